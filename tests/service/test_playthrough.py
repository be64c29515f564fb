"""Complete matches of every registered game, for every player count, played over HTTP with random
legal actions; after every move every seat and a spectator read the match, and nothing of another
seat's secrets may appear in what they are served.

A local shadow state (same seed, same actions) is the oracle: each served view must be exactly the
engine's ``view`` for the caller's seat, and each seat's events exactly those ``event_visible`` lets
through.  Beyond that, every text served to a seat (views, legal actions, move results, events, log) is
searched for the other seats' secrets: the strings that another seat's view shows and neither this
seat's view nor a spectator's does (hidden cards and tiles are named by such strings).  The seed, a
secret until the match is over, must appear in no response.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.core import event_visible
from engine.registry import GAMES
from tests.service.conftest import TEST_GAMES, Table

CASES = [
    (gid, n)
    for gid in sorted(TEST_GAMES)
    for n in range(TEST_GAMES[gid].min_players, TEST_GAMES[gid].max_players + 1)
]
SEED_BASE = 987_654_321_000


def strings(doc: Any) -> set[str]:
    """Every string (keys and values) of a JSON document that is long enough to search for."""
    found: set[str] = set()
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(k for k in item if len(k) >= 3)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and len(item) >= 3:
            found.add(item)
    return found


class Oracle:
    """The views of every seat and a spectator after one move, computed from the shadow state."""

    def __init__(self, game: Any, state: Any, seats: list[int]) -> None:
        self.views = {s: json.loads(json.dumps(game.view(state, s))) for s in [None, *seats]}
        self.strings = {s: strings(v) for s, v in self.views.items()}

    def secrets_hidden_from(self, reader: int | None) -> set[str]:
        """Strings some other seat sees that ``reader`` and a spectator do not."""
        known = self.strings[None] | self.strings[reader]
        return set().union(*(self.strings[s] - known for s in self.views if s not in (None, reader)))

    def check(self, reader: int | None, served_view: dict, texts: list[str]) -> None:
        assert served_view == self.views[reader], f"seat {reader} was not served its own view"
        for secret in self.secrets_hidden_from(reader):
            for text in texts:
                assert json.dumps(secret) not in text, f"seat {reader} was served another seat's {secret!r}"


def test_every_registered_game_is_covered():
    assert set(GAMES) <= {gid for gid, _ in CASES}


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_random_complete_match_over_http_leaks_no_secret(client, game_id, players):
    game = TEST_GAMES[game_id]
    seed = SEED_BASE + players
    table = Table(client, game=game_id, players=players, seed=seed)
    options = table.created.json["options"]
    shadow = game.setup(players, options, seed=seed)
    rng = random.Random(f"{game_id}/{players}")
    expected_events: list[tuple[str, dict]] = [("0-1", {})]
    seats = list(range(players))
    version = 0
    texts = [table.created.get_data(as_text=True)]
    oracle = Oracle(game, shadow, seats)
    oracle.check(None, table.created.json["view"], texts)
    while game.to_move(shadow) is not None:
        mover = game.to_move(shadow)
        resp = table.get(mover, "/legal-actions")
        assert resp.json["actions"] == json.loads(json.dumps(game.legal_actions(shadow)))
        oracle.check(mover, oracle.views[mover], [resp.get_data(as_text=True)])
        texts.append(resp.get_data(as_text=True))
        other = seats[(mover + 1 + version) % players]
        if other != mover:
            assert table.get(other, "/legal-actions").status_code == 403
        action = rng.choice(resp.json["actions"])
        resp = table.move(mover, action, version)
        assert resp.status_code == 200, resp.json
        events = game.apply(shadow, action, seat=mover)
        version += 1
        if game.to_move(shadow) is None:
            events.append({"type": "match_over", "visible_to": "all", "result": game.result(shadow)})
        expected_events += [(f"{version}-{n}", ev) for n, ev in enumerate(events, 1)]
        oracle = Oracle(game, shadow, seats)
        oracle.check(mover, resp.json["view"], [resp.get_data(as_text=True)])
        assert [e["id"] for e in resp.json["events"]] == [
            eid for eid, ev in expected_events if eid.startswith(f"{version}-") and event_visible(ev, mover)
        ]
        texts.append(resp.get_data(as_text=True))
        for seat in [None, *seats]:
            served = table.get(seat)
            assert served.json["version"] == version
            oracle.check(seat, served.json["view"], [served.get_data(as_text=True)])
            texts.append(served.get_data(as_text=True))
        for seat in [None, *seats]:
            feed = table.get(seat, "/events", query_string={"after": f"{version - 1}-999"})
            oracle.check(seat, oracle.views[seat], [feed.get_data(as_text=True)])
    for seat in [None, *seats]:
        feed = table.get(seat, "/events")
        assert [e["id"] for e in feed.json["events"]] == [
            eid for eid, ev in expected_events if eid == "0-1" or event_visible(ev, seat)
        ]
        texts.append(feed.get_data(as_text=True))
    assert all(str(seed) not in text for text in texts), "the seed leaked during play"
    log = table.get(None, "/log").json
    assert log["complete"] and log["seed"] == seed
    result = table.get().json["result"]
    counts = {"decisions": result.pop("decisions"), "stand_in": result.pop("stand_in")}  # issue 42 point 6
    assert result == json.loads(json.dumps(game.result(shadow)))
    assert sum(counts["decisions"]) == len(log["entries"]) and counts["stand_in"] == [0] * players
