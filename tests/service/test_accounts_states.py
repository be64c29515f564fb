""" "My matches" and the players' feeds stay consistent with the matches under any order of creations,
joins, moves, resigns, returns, bot turns, timeouts and clock warnings, some of them racing in threads
(issue 25 point 9), checked with hypothesis against a real Redis.

One app with four players; matches of High Card name some of them (seats held, open seats kept for
them), beside anonymous seats, open seats and bots.  Moves come through the domain (``Matches.move``
with a player's :class:`Caller`) and through HTTP with real player tokens.  After every step, for every
player: my matches are exactly the matches where the metas give it a seat (held or kept), with the
right seat, status, version and ``my_turn``; its feed, read in order, ends for each of its matches in
the state the match is in (a finished one with ``match_over`` and the match's result), holds a
``your_turn`` for the decision pending on it, never holds an entry twice, and never one of a match
or seat it never had.  Every outbox is drained (the committer's own drain)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, cast

import hypothesis.strategies as st
import redis
from flask import Flask
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine.core import Game
from service.domain.errors import MatchError
from service.domain.feeds import feed
from service.domain.feeds import sweep as feed_sweep
from service.domain.identity import APP, PLAYER, SCOPES, SEAT, Caller
from service.domain.matches import seating
from service.domain.matches.operations import Move
from service.http.app import create_app
from service.http.errors import from_refusal
from service.storage.accounts import FeedEntry
from service.storage.matches import ACTIVE, OVER_STATUSES, WAITING, Store
from service.wiring import build
from tests.service.conftest import TEST_GAMES, bearer, make_config
from workers import jobs

GAMES = cast("dict[str, Game]", TEST_GAMES)
PLAYERS = ("p0", "p1", "p2", "p3")
MAX_MATCHES = 5
PER_MOVE = 60
WARN_LEAD = 20.0
#: The HTTP statuses a refused step may get: no step of a client doing what it may is a 5xx.
REFUSALS = {401, 403, 404, 409, 422}
#: A match's seats drawn from these (players twice as likely: their seats are what is checked).
SEAT_KINDS = ["player", "player", "kept", "anon", "bot", "open"]
#: Steps of every example of a run, by what they did.
REACHED: Counter[str] = Counter()


def refused(exc: MatchError) -> int:
    """The HTTP status the refusal becomes; anything but a client's mistake fails the test."""
    status = from_refusal(exc).status
    assert status in REFUSALS, (status, exc.code, exc.message)
    return status


class AccountsLife(RuleBasedStateMachine):
    redis_url = ""
    #: One Flask app over the test Redis, built once: its data is flushed with each example's.
    http: ClassVar[Flask | None] = None

    @initialize()
    def setup(self) -> None:
        client = redis.Redis.from_url(self.redis_url)
        client.flushall()
        self.t = 1_000_000.0
        config = make_config(self.redis_url, clock_warning_seconds=WARN_LEAD)
        self.wired = build(config, store=Store(client), games=GAMES, clock=lambda: self.t)
        self.matches = self.wired.matches
        accounts = self.matches.accounts
        created = accounts.create_app("machine")
        self.app = created["id"]
        self.app_caller = Caller(APP, app=self.app, scopes=frozenset(SCOPES))
        for pid in PLAYERS:
            accounts.put_player(self.app_caller, pid, pid.upper(), False)
        self.callers = {
            pid: Caller(PLAYER, app=self.app, player=pid, scopes=frozenset({"play"})) for pid in PLAYERS
        }
        self.keys = {pid: f"{self.app}:{pid}" for pid in PLAYERS}
        self.tokens = {
            pid: accounts.mint_token(self.app_caller, pid, ["play"], None)["token"] for pid in PLAYERS
        }
        if AccountsLife.http is None:
            AccountsLife.http = create_app(make_config(self.redis_url), games=GAMES)
        # The HTTP app's commits are timed by the same fake clock as the domain's.
        AccountsLife.http.extensions["tabletop"].matches.now = lambda: self.t
        self.client = AccountsLife.http.test_client()
        self.ids: list[str] = []
        self.seat_tokens: dict[tuple[str, int], str] = {}  # anonymous seats: (match, seat) -> token
        self.invites: dict[str, dict[int, str]] = {}
        # What the invariants learn step by step (see ``consistent``).
        self.ever: dict[str, set[tuple[str, int]]] = {key: set() for key in self.keys.values()}
        self.seen_version: dict[str, int] = {}
        self.runs: dict[str, tuple[int, int]] = {}  # match -> (seat, lowest version its turn began at)
        self.steps: Counter[str] = Counter()

    # -- helpers ------------------------------------------------------------------------------------------

    def pick(self, n: int, where: Callable[[Any], bool] | None = None) -> str | None:
        """The ``n``-th match (cyclically), among those ``where`` holds for (their meta) if given: the
        rules that play pick a match with something to play, so steps are rarely wasted."""
        ids = [mid for mid in self.ids if where is None or where(self.matches.meta(mid))]
        return ids[n % len(ids)] if ids else None

    @staticmethod
    def deciding(kind: str) -> Callable[[Any], bool]:
        """Whether an active match's pending decision is a seat's of ``kind`` (``bot``, or ``human``: a
        human's or an away human's)."""

        def check(meta: Any) -> bool:
            if meta.status != ACTIVE or meta.to_move is None:
                return False
            seat = meta.seats[meta.to_move]
            return seating.held_by_player(seat) if kind == "human" else bool(seat["kind"] == kind)

        return check

    def caller_of(self, match_id: str, seat: int) -> Caller | None:
        """Who acts for ``seat``: its player, or the holder of its anonymous token."""
        key = seating.player_keys(self.matches.meta(match_id).life).get(seat)
        if key is not None and seating.seat_of_player(self.matches.meta(match_id).life, key) == seat:
            return self.callers[key.partition(":")[2]]
        token = self.seat_tokens.get((match_id, seat))
        return Caller(SEAT, token=token) if token is not None else None

    def move_once(self, match_id: str, pick: int) -> Callable[[], Any]:
        """The pending human decision of ``match_id`` as its player or token holder would send it
        (``pick``: which legal action), ready to run; a no-op when no human decides."""
        meta, state = self.matches.meta_and_state(match_id)
        if (
            meta.status != ACTIVE
            or meta.to_move is None
            or not seating.held_by_player(meta.seats[meta.to_move])
        ):
            return lambda: None
        who = self.caller_of(match_id, meta.to_move)
        if who is None:
            return lambda: None
        legal = self.matches.games[meta.game].legal_actions(state)
        move = Move(legal[pick % len(legal)], meta.version, None, None)
        return lambda: self.matches.move(match_id, who, move)

    def run(self, step: Callable[[], Any]) -> Any:
        try:
            return step()
        except MatchError as exc:
            self.steps[f"refused {refused(exc)} {exc.code}"] += 1
            return None

    # -- rules --------------------------------------------------------------------------------------------

    @precondition(lambda self: len(self.ids) < MAX_MATCHES)
    @rule(
        kinds=st.lists(st.sampled_from(SEAT_KINDS), min_size=2, max_size=4),
        order=st.permutations(PLAYERS),
        clocked=st.booleans(),
        visibility=st.sampled_from(["public", "private"]),
        then=st.sampled_from(["bot", "abort"]),
        seed=st.integers(0, 50),
    )
    def create(
        self, kinds: list[str], order: list[str], clocked: bool, visibility: str, then: str, seed: int
    ) -> None:
        named = iter(order)
        seats: list[dict[str, Any]] = []
        for i, kind in enumerate(kinds):
            if kind == "player":
                seats.append({"kind": "human", "player": next(named)})
            elif kind == "kept":
                seats.append({"kind": "open", "player": next(named)})
            elif kind == "anon":
                seats.append({"kind": "human", "name": f"guest{i}"})
            elif kind == "bot":
                seats.append({"kind": "bot", "name": f"bot{i}", "level": "random"})
            else:
                seats.append({"kind": "open"})
        body: dict[str, Any] = {
            "game": "high_card",
            "options": {"rounds": 2},
            "seed": seed,
            "visibility": visibility,
            "on_leave": {"then": then, "level": "random"},
            "seats": seats,
        }
        if clocked:
            body["time_control"] = {"per_move_seconds": PER_MOVE, "on_timeout": "random", "max_timeouts": 1}
        doc = self.matches.create(body, caller=self.app_caller)
        self.ids.append(doc["id"])
        self.seat_tokens.update({(doc["id"], t["seat"]): t["token"] for t in doc["tokens"]})
        self.invites[doc["id"]] = {i["seat"]: i["code"] for i in doc["invites"]}
        self.steps["created"] += 1

    @rule(n=st.integers(0, 9), joiner=st.sampled_from(["kept", *PLAYERS, "guest"]), code_of=st.integers(0, 3))
    def join(self, n: int, joiner: str, code_of: int) -> None:
        """A player (``kept``: one a seat is kept for; else any, for any open seat) or a guest joins; a
        private match's seat with the invite code of seat ``code_of`` if it has one."""
        match_id = self.pick(n)
        if match_id is None:
            return
        code = self.invites[match_id].get(code_of)
        if joiner == "kept":
            life = self.matches.meta(match_id).life
            kept = [k for s, k in seating.player_keys(life).items() if seating.seat_of_player(life, k) != s]
            joiner = kept[0].partition(":")[2] if kept else "guest"
        if joiner == "guest":
            joined = self.run(lambda: self.matches.join(match_id, "any", "guest", code, Caller()))
            if joined is not None:
                self.seat_tokens[match_id, joined["seat"]] = joined["token"]
        else:
            joined = self.run(lambda: self.matches.join(match_id, "any", None, code, self.callers[joiner]))
        self.steps["joined" if joined else "join refused"] += 1

    @rule(n=st.integers(0, 9), pick=st.integers(0, 9))
    def move(self, n: int, pick: int) -> None:
        match_id = self.pick(n, self.deciding("human"))
        if match_id is not None and self.run(self.move_once(match_id, pick)) is not None:
            self.steps["moved"] += 1

    @rule(n=st.integers(0, 9), pick=st.integers(0, 9))
    def move_over_http(self, n: int, pick: int) -> None:
        """The pending decision of a player's seat, sent with its player token over HTTP."""
        match_id = self.pick(n, self.deciding("human"))
        if match_id is None:
            return
        meta, state = self.matches.meta_and_state(match_id)
        players = seating.player_keys(meta.life)
        if meta.status != ACTIVE or meta.to_move is None or meta.to_move not in players:
            return
        if seating.seat_of_player(meta.life, players[meta.to_move]) != meta.to_move:
            return  # kept, not taken
        if not seating.held_by_player(meta.seats[meta.to_move]):
            return  # resigned: a bot's for good
        legal = self.matches.games[meta.game].legal_actions(state)
        token = self.tokens[players[meta.to_move].partition(":")[2]]
        resp = self.client.post(
            f"/v1/matches/{match_id}/actions",
            json={"action": legal[pick % len(legal)]},
            headers={**bearer(token), "If-Match": f'"{meta.version}"'},
        )
        assert resp.status_code == 200 or resp.status_code in REFUSALS, (resp.status_code, resp.json)
        self.steps[f"http move {resp.status_code} {(resp.json or {}).get('code', '')}".strip()] += 1

    @rule(n=st.integers(0, 9), who=st.sampled_from(PLAYERS))
    def resign(self, n: int, who: str) -> None:
        match_id = self.pick(n)
        if match_id is not None:
            done = self.run(lambda: self.matches.resign(match_id, self.callers[who]))
            self.steps["resigned" if done else "resign refused"] += 1

    @rule(n=st.integers(0, 9), who=st.sampled_from(PLAYERS))
    def come_back(self, n: int, who: str) -> None:
        match_id = self.pick(n)
        if match_id is not None:
            done = self.run(lambda: self.matches.return_to_seat(match_id, self.callers[who]))
            self.steps["returned" if done else "return refused"] += 1

    @rule(n=st.integers(0, 9))
    def bots_move(self, n: int) -> None:
        match_id = self.pick(n, self.deciding("bot"))
        if match_id is None:
            return
        meta = self.matches.meta(match_id)
        if meta.status == ACTIVE and meta.to_move is not None and meta.seats[meta.to_move]["kind"] == "bot":
            jobs.take_turns(self.matches, match_id, meta.version, slice_seconds=0)
            self.steps["bot moved"] += 1

    @rule(seconds=st.sampled_from([5, 45, 61]))
    def time_passes(self, seconds: int) -> None:
        """The clock keepers' work at the new time: clock warnings due, then timeouts due."""
        self.t += seconds
        for match_id, version in self.matches.store.clocks.claim_warnings(self.t, 20, 30):
            outcome = feed_sweep.warn(
                self.wired.store, self.wired.outbox.drain, self.wired.notes.note, match_id, version, self.t
            )
            self.steps[f"warning {outcome}"] += 1
        for match_id in self.matches.store.clocks.claim_due(self.t, 20, 30):
            self.steps[f"timeout {jobs.time_out(self.matches, match_id, at=self.t)}"] += 1

    @rule(n=st.integers(0, 9), race=st.sampled_from(["same move", "joins", "move and resign"]))
    def race(self, n: int, race: str) -> None:
        """Two requests at once from two threads: the same pending move twice (one commits), two
        players joining one match, or a move beside another seat's resign."""
        waiting: Callable[[Any], bool] = lambda meta: meta.status == WAITING  # noqa: E731
        match_id = self.pick(n, waiting if race == "joins" else self.deciding("human"))
        if match_id is None:
            return
        meta = self.matches.meta(match_id)
        if race == "same move":
            steps = [self.move_once(match_id, 0), self.move_once(match_id, 1)]
        elif race == "joins":
            kept = [
                k.partition(":")[2]
                for s, k in seating.player_keys(meta.life).items()
                if s in seating.open_seats(meta.seats)
            ]
            free = [p for p in PLAYERS if seating.seat_of_player(meta.life, self.keys[p]) is None]
            free = (kept + [p for p in free if p not in kept])[:2]  # the players seats are kept for first
            code = next(iter(self.invites[match_id].values()), None)
            steps = [
                lambda p=p: self.matches.join(match_id, "any", None, code, self.callers[p])  # type: ignore[misc]
                for p in free
            ]
        else:
            others = [
                pid
                for seat, key in seating.player_keys(meta.life).items()
                if seat != meta.to_move and (pid := key.partition(":")[2])
            ]
            steps = [self.move_once(match_id, 0)]
            steps += [lambda: self.matches.resign(match_id, self.callers[others[0]])] if others else []
        barrier = threading.Barrier(len(steps)) if steps else None

        def go(step: Callable[[], Any]) -> Any:
            assert barrier is not None
            barrier.wait()
            return self.run(step)

        with ThreadPoolExecutor(max_workers=2) as pool:
            done = list(pool.map(go, steps))
        self.steps[f"race {race}: {sum(d is not None for d in done)} of {len(steps)}"] += 1

    # -- invariants -----------------------------------------------------------------------------------------

    @invariant()
    def consistent(self) -> None:
        metas = {mid: self.matches.meta(mid) for mid in self.ids}
        for mid in self.ids:
            assert self.matches.accounts.store.outbox_length(mid) == 0, mid  # the committer drained it
        self._learn(metas)
        for pid in PLAYERS:
            key = self.keys[pid]
            self._my_matches(key, metas)
            self._feed(key, metas, self.matches.accounts.store.feed_after(key, "0-0"))

    def _learn(self, metas: dict[str, Any]) -> None:
        """Seats each player has had, and since which version each pending decision of a player's
        human seat has been theirs (its ``your_turn`` entry is at that version or later).  A step
        commits at most one move per match, so a decision pending at two observations in a row has
        not left its seat in between."""
        for mid, meta in metas.items():
            for seat, key in seating.player_keys(meta.life).items():
                self.ever[key].add((mid, seat))
            pending = self._pending(meta)
            if pending is None:
                self.runs.pop(mid, None)
            elif self.runs.get(mid, (None, 0))[0] != pending:
                self.runs[mid] = (pending, self.seen_version[mid] + 1 if mid in self.seen_version else 0)
            self.seen_version[mid] = meta.version

    @staticmethod
    def _pending(meta: Any) -> int | None:
        """The seat whose player decides now (a taken seat of a player, played by them: not away, not
        resigned), or ``None``."""
        seat = meta.to_move
        if meta.status != ACTIVE or seat is None or meta.seats[seat]["kind"] != seating.HUMAN:
            return None
        return seat if seating.player_keys(meta.life).get(seat) is not None else None

    def _my_matches(self, key: str, metas: dict[str, Any]) -> None:
        listed, cursor = self.matches.my_matches(key, None, None, None, 100)
        assert cursor is None
        expected = {
            mid: seat
            for mid, meta in metas.items()
            for seat, k in seating.player_keys(meta.life).items()
            if k == key
        }
        assert {m["id"]: m["seat"] for m in listed} == expected, key
        assert [m["id"] for m in listed] == sorted(expected, key=lambda mid: -metas[mid].seq)  # newest first
        for mine in listed:
            meta = metas[mine["id"]]
            assert (mine["status"], mine["version"], mine["to_move"]) == (
                meta.status,
                meta.version,
                meta.to_move,
            )
            assert mine["my_turn"] == (self._pending(meta) == mine["seat"]), (mine, meta)
            assert mine["result"] == meta.result
            assert mine["invited"] == (str(mine["seat"]) in meta.life.get("reserved", {}))
        for flag in (True, False):  # the filter agrees with the flag
            turn, _ = self.matches.my_matches(key, None, flag, None, 100)
            assert {m["id"] for m in turn} == {m["id"] for m in listed if m["my_turn"] is flag}

    def _feed(self, key: str, metas: dict[str, Any], entries: list[FeedEntry]) -> None:
        ids = [e.id for e in entries]
        assert len(set(ids)) == len(ids) and ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-"))))
        triples = [(e.entry["match_id"], e.entry["version"], e.entry["type"]) for e in entries]
        assert len(set(triples)) == len(triples), [t for t, n in Counter(triples).items() if n > 1]
        by_match: dict[str, list[dict[str, Any]]] = {}
        for e in entries:
            entry = e.entry
            assert entry["type"] in feed.ENTRY_TYPES
            assert (entry["match_id"], entry["seat"]) in self.ever[key], (key, entry)  # never another's
            by_match.setdefault(entry["match_id"], []).append(entry)
        for mid, seen in by_match.items():
            meta = metas[mid]
            versions = [e["version"] for e in seen]
            assert versions == sorted(versions) and versions[-1] <= meta.version, (
                mid,
                versions,
                meta.version,
            )
            last = seen[-1]
            if key not in seating.player_keys(meta.life).values():
                continue  # left before the start: told nothing since
            assert last["status"] == meta.status, (key, last, meta.status)  # no change of status unsaid
            if last["version"] == meta.version:
                assert last["to_move"] == meta.to_move
            if meta.status in OVER_STATUSES:
                assert last["type"] == feed.MATCH_OVER and last["result"] == meta.result, (key, last)
        for mid, meta in metas.items():
            if key not in seating.player_keys(meta.life).values():
                continue
            assert mid in by_match, (key, mid)  # told of every match it has a seat in (``invited`` at least)
            seat, since = self.runs.get(mid, (None, 0))
            if seat is not None and seating.player_keys(meta.life)[seat] == key:
                assert any(
                    e["type"] == feed.YOUR_TURN
                    and e["seat"] == seat
                    and e["my_turn"]
                    and e["version"] >= since
                    for e in by_match[mid]
                ), (key, mid, seat, since, by_match[mid])

    def teardown(self) -> None:
        # Which steps the draws reached (the test asserts the ones that matter were reached).
        if hasattr(self, "matches"):
            for meta in map(self.matches.meta, self.ids):
                self.steps[f"ended {meta.status}"] += 1
            REACHED.update(self.steps)


def test_my_matches_and_feeds_state_machine(redis_url: str) -> None:
    AccountsLife.redis_url = redis_url
    AccountsLife.http = None
    machine = AccountsLife.TestCase
    # Derandomized: the same draws every run, so the check below that they reached real play cannot
    # fail one run in ten on unlucky draws (the races' outcomes still vary with the threads).
    machine.settings = settings(
        max_examples=100,
        stateful_step_count=50,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    REACHED.clear()
    machine().runTest()
    # The draws reached real play: commits of every kind, races that committed, matches played out.
    for step in ("moved", "http move 200", "bot moved", "timeout moved", "joined", "resigned"):
        assert REACHED[step] > 0, (step, sorted(REACHED.items()))
    assert REACHED["race same move: 1 of 2"] + REACHED["race move and resign: 1 of 2"] > 0, sorted(
        REACHED.items()
    )
    assert REACHED["ended finished"] > 0, sorted(REACHED.items())
