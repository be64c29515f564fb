"""The test side of a match played over HTTP: a local shadow state that applies exactly the moves the
server acknowledged, and the final check that the server's stored match is that game.

The tests create matches with a seed they choose (``TABLETOP_ALLOW_SEED``), so the engine can replay
locally what the server did; what a client picks is drawn from the shadow's legal actions.
"""

from __future__ import annotations

import json
import random
import threading
from typing import Any

from bench.api import Client
from engine.registry import get_game
from tests.reliability.processes import bearer, call, create_match


class PlayedMatch:
    """One match: id, seat tokens, the shadow state and the acknowledged moves by version."""

    def __init__(self, client: Client, game_id: str, players: int, seed: int) -> None:
        doc = create_match(client, game_id, [{"name": f"p{i}"} for i in range(players)], seed)
        self.id: str = doc["id"]
        self.tokens = {t["seat"]: t["token"] for t in doc["tokens"]}
        self.game = get_game(game_id)
        self.seed, self.options = seed, doc["options"]
        self.shadow = self.game.setup(players, self.options, seed=seed)
        self.version = 0
        #: version -> the action whose commit produced it, as acknowledged by a 200.
        self.acked: dict[int, dict[str, Any]] = {}
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"/v1/matches/{self.id}"

    def over(self) -> bool:
        with self.lock:  # another thread may be applying a move to the shadow
            return self.game.to_move(self.shadow) is None

    def pick(self, rng: random.Random) -> tuple[int, int, dict[str, Any]] | None:
        """(version, seat, action) for the next move, or None when the match is over."""
        with self.lock:
            seat = self.game.to_move(self.shadow)
            if seat is None:
                return None
            return self.version, seat, rng.choice(self.game.legal_actions(self.shadow))

    def acknowledge(self, based_on: int, action: dict[str, Any], reply: dict[str, Any]) -> None:
        """The server said 200 to ``action`` at version ``based_on``: it is the next move of the game."""
        with self.lock:
            assert reply["version"] == based_on + 1, (self.id, based_on, reply["version"])
            assert based_on == self.version, f"{self.id}: two moves acknowledged at version {based_on}"
            self.game.apply(self.shadow, action)
            self.version += 1
            self.acked[self.version] = action

    def move(self, client: Client, rng: random.Random, **headers: str) -> tuple[int, Any]:
        """Pick and submit one move (If-Match: the shadow's version); acknowledge it on 200."""
        picked = self.pick(rng)
        assert picked is not None, f"{self.id} is over"
        version, seat, action = picked
        status, reply = call(
            client,
            "POST",
            f"{self.url}/actions",
            {"action": action},
            **bearer(self.tokens[seat]),
            **{"If-Match": f'"{version}"', **headers},
        )
        if status == 200:
            self.acknowledge(version, action, reply)
        return status, reply

    def resync(self, client: Client) -> tuple[int, int]:
        """After a fault, make the shadow follow the server: drop acknowledged moves the server lost,
        and learn moves it applied whose answer never arrived (from the log as their mover sees it).
        Returns (acknowledged moves lost, unanswered moves found applied)."""
        status, doc = call(client, "GET", self.url)
        assert status == 200, (status, doc)
        served = doc["version"]
        with self.lock:
            lost = max(0, self.version - served)
            if lost:
                kept = {v: a for v, a in self.acked.items() if v <= served}
                self.shadow = self.game.setup(len(self.tokens), self.options, seed=self.seed)
                for v in sorted(kept):
                    self.game.apply(self.shadow, kept[v])
                self.version, self.acked = served, kept
            found = served - self.version
            while self.version < served:
                seat = self.game.to_move(self.shadow)
                status, log = call(client, "GET", f"{self.url}/log", **bearer(self.tokens[seat]))
                assert status == 200, (status, log)
                entry = next(e for e in log["entries"] if e["version"] == self.version + 1)
                assert entry["seat"] == seat, (self.id, entry)
                self.game.apply(self.shadow, entry["action"])
                self.version += 1
                self.acked[self.version] = entry["action"]
        return lost, found

    def verify(self, client: Client) -> None:
        """The finished match as stored: its log is exactly the acknowledged moves, version by version,
        and replaying the log from the seed gives the stored result and the stored spectator view."""
        status, log = call(client, "GET", f"{self.url}/log")
        assert status == 200 and log["complete"], (status, log)
        entries = log["entries"]
        assert [e["version"] for e in entries] == list(range(1, len(entries) + 1)), self.id
        assert {e["version"]: e["action"] for e in entries} == self.acked, f"{self.id}: log != acknowledged"
        replay = self.game.setup(log["players"], log["options"], seed=log["seed"])
        for entry in entries:
            self.game.apply(replay, entry["action"], seat=entry["seat"])
        status, doc = call(client, "GET", self.url)
        assert status == 200 and doc["status"] == "finished" and doc["version"] == len(entries)
        counts = {k: doc["result"].pop(k) for k in ("decisions", "stand_in")}  # issue 42 point 6
        assert doc["result"] == json.loads(json.dumps(self.game.result(replay)))
        assert sum(counts["decisions"]) == len(entries), f"{self.id}: decisions != moves"
        assert doc["view"] == json.loads(json.dumps(self.game.view(replay, None)))
