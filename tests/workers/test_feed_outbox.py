"""The players' feeds as the workers keep them, against the real Redis: the outbox sweep delivers what a
committer that died after its commit left in the match's outbox, each note once however many drain at
once, and drops a pending mark only once it has settled; the clock keepers' ``clock_warning`` reaches
the deciding player once per decision, after that decision's own notes, and never for a decision that is
over (:mod:`service.domain.outbox.sweep`, :mod:`service.domain.feeds.sweep`)."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from service.domain.feeds import sweep as feed_sweep
from service.domain.identity import APP, Caller
from service.domain.matches.operations import Matches
from service.domain.outbox import sweep as outbox_sweep
from service.domain.outbox.entries import Outbox
from service.domain.outbox.sweep import OutboxSweep, Swept
from service.storage.accounts import AccountStore
from service.storage.matches import MatchMeta, match_key, now
from service.wiring import Wiring, build
from workers import jobs
from workers.keeper import Duty

PENDING = "tt:outbox:pending"


class Players:
    """An app with players ``ann`` and ``bob``, and High Card matches between them (no swaps: every
    decision passes the turn, so every move has a note for someone)."""

    def __init__(self, wired: Wiring) -> None:
        self.wired = wired
        matches = self.matches = wired.matches
        self.accounts: AccountStore = matches.accounts.store
        self.outboxes: Outbox = wired.outbox
        self.app: str = matches.accounts.create_app("Backend")["id"]
        self.caller = Caller(APP, app=self.app, scopes=frozenset({"read", "play"}))
        for player in ("ann", "bob"):
            matches.accounts.put_player(self.caller, player, player.title(), False)

    def key(self, player: str) -> str:
        return f"{self.app}:{player}"

    def create(self, matches: Matches | None = None, **request: Any) -> dict[str, Any]:
        seats = [
            {"name": "Ann", "kind": "human", "player": "ann"},
            {"name": "Bob", "kind": "human", "player": "bob"},
        ]
        body = {"game": "high_card", "seats": seats, "options": {"swaps": False, "rounds": 4}, "seed": 3}
        return (matches or self.matches).create({**body, **request}, caller=self.caller)

    def play(self, match_id: str, matches: Matches | None = None) -> MatchMeta:
        """The seat to move plays its first legal action, through the commit path of every move; the
        match after it."""
        matches = matches or self.matches
        loaded = matches.store.load(match_id)
        assert loaded is not None and loaded.meta.to_move is not None
        game = matches.games[loaded.meta.game]
        state = game.decode(loaded.encoded_state())
        played = matches.seat_move(loaded.meta, state, loaded.meta.to_move, game.legal_actions(state)[0])
        assert played.meta is not None
        return played.meta

    def mark(self, match_id: str) -> float:
        """The match's pending mark (when a commit with notes was last about to happen there)."""
        score = self.matches.store.redis.zscore(PENDING, match_id)
        assert score is not None
        return float(score)

    def feed(self, player: str) -> list[dict[str, Any]]:
        return [e.entry for e in self.accounts.feed_after(self.key(player), "0-0")]

    def outbox(self, match_id: str) -> list[dict[str, Any]]:
        raw = self.matches.store.redis.lrange(match_key(match_id, "outbox"), 0, -1)
        return [json.loads(entry) for entry in raw]


@pytest.fixture
def players(wired: Wiring) -> Players:
    return Players(wired)


def crash_after_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on committers never drain: as if each died right after its commit."""
    monkeypatch.setattr(Outbox, "deliver", lambda self, match_id, entry: None)


def fed(players: Players, match_id: str) -> Counter[tuple[str, int, str]]:
    """(player, version, type) of every feed entry about ``match_id``, counted."""
    return Counter(
        (player, entry["version"], entry["type"])
        for player in ("ann", "bob")
        for entry in players.feed(player)
        if entry["match_id"] == match_id
    )


def noted(players: Players, outbox: list[dict[str, Any]]) -> Counter[tuple[str, int, str]]:
    """What an outbox's entries tell whom, counted as :func:`fed` counts feed entries."""
    return Counter(
        (note["player"].split(":", 1)[1], entry["version"], note["entry"]["type"])
        for entry in outbox
        for note in entry["notes"]
    )


# -- the outbox sweep --------------------------------------------------------------------------------


def test_the_sweep_delivers_what_a_dead_committer_left_once(
    players: Players, matches: Matches, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = players.create()
    crash_after_commit(monkeypatch)
    played = players.play(doc["id"])
    left = players.outbox(doc["id"])
    assert [entry["version"] for entry in left] == [1]
    assert not any(key[1] == 1 for key in fed(players, doc["id"]))  # nobody heard of the move

    fresh = outbox_sweep.sweep_outboxes(players.outboxes, time.time())
    assert fresh.delivered == 0 and players.outbox(doc["id"]) == left  # the committer's, for a second

    later = time.time() + 2
    swept = outbox_sweep.sweep_outboxes(players.outboxes, later)
    assert swept.delivered == sum(noted(players, left).values()) >= 1
    assert players.outbox(doc["id"]) == []
    counts = fed(players, doc["id"])
    assert all(counts[key] == 1 for key in noted(players, left))
    assert any(key[2] == "your_turn" and key[1] == played.version for key in counts)
    assert outbox_sweep.sweep_outboxes(players.outboxes, later).delivered == 0
    assert fed(players, doc["id"]) == counts


@pytest.mark.parametrize("trial", range(4))
def test_committers_and_sweeps_draining_at_once_deliver_each_note_once(
    players: Players, matches: Matches, monkeypatch: pytest.MonkeyPatch, trial: int
) -> None:
    """A whole match's commits left undelivered, then two committers' drains and two sweeps at once
    (threads on one connection pool): every note in its feed exactly once, in the order of the commits."""
    doc = players.create()
    crash_after_commit(monkeypatch)
    for _ in range(8):
        players.play(doc["id"])
    left = players.outbox(doc["id"])
    assert len(left) >= 4 and left[-1]["version"] == 8  # a round's leader moves again: no note then
    expected = noted(players, left)
    before = fed(players, doc["id"])
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def run(work: Any) -> None:
        try:
            start.wait()
            work()
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    later = time.time() + 2
    work = [
        lambda: players.outboxes.drain(doc["id"]),
        lambda: players.outboxes.drain(doc["id"]),
        lambda: outbox_sweep.sweep_outboxes(players.outboxes, later),
        lambda: outbox_sweep.sweep_outboxes(players.outboxes, later, settle=0),
    ]
    threads = [threading.Thread(target=run, args=(w,)) for w in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    assert players.outbox(doc["id"]) == []
    assert fed(players, doc["id"]) - before == expected
    for player in ("ann", "bob"):
        versions = [e["version"] for e in players.feed(player) if e["match_id"] == doc["id"]]
        assert versions == sorted(versions)


def test_a_mark_is_dropped_only_once_settled_and_its_outbox_empty(players: Players) -> None:
    doc = players.create()
    players.play(doc["id"])  # delivered by its committer; the mark stays behind
    score = players.mark(doc["id"])
    kept = outbox_sweep.sweep_outboxes(players.outboxes, score + 5, settle=30)
    assert kept.dropped == 0 and players.matches.store.redis.zscore(PENDING, doc["id"]) == score

    # An entry no drain has taken (a commit slower than the grace, whose process then died):
    stray = {"version": 99, "seq": 1, "notes": [{"player": players.key("ann"), "entry": {"type": "x"}}]}
    players.matches.store.redis.rpush(match_key(doc["id"], "outbox"), json.dumps(stray))
    settled = outbox_sweep.sweep_outboxes(players.outboxes, score + 31, settle=30)
    assert (settled.delivered, settled.dropped) == (1, 1)  # drained before it is dropped
    assert players.matches.store.redis.zscore(PENDING, doc["id"]) is None
    assert players.outbox(doc["id"]) == []


def test_a_mark_renewed_by_a_later_commit_stays(players: Players) -> None:
    doc = players.create()
    old = players.mark(doc["id"])
    page = players.accounts.pending(old + 1, 10)
    players.play(doc["id"])  # marks the match again, later
    for match_id, score in page:
        players.accounts.unmark(match_id, score)  # what a sweep that read the old mark does
    assert players.mark(doc["id"]) > old


def keepers_sweep(outbox: Outbox, settle: float | None = None) -> Callable[[float], Swept | None]:
    """The outbox sweep as the keeper runs it: a duty every second, its cursor kept between sweeps;
    what a call swept (``None``: not due yet)."""
    sweep = OutboxSweep(outbox) if settle is None else OutboxSweep(outbox, settle=settle)
    duty = Duty("the outbox sweep", outbox_sweep.SWEEP_SECONDS, sweep)
    return lambda at: sweep(at) if duty.due(at) else None


def test_the_keepers_sweeper_looks_at_a_mark_at_the_grace_and_when_settled_only(players: Players) -> None:
    """The cursor: a mark is drained once it is past the grace and again once it has settled, not every
    second in between (a steady load costs the sweep its commit rate, not its backlog)."""
    doc = players.create()
    score = players.mark(doc["id"])
    sweeper = keepers_sweep(players.outboxes, settle=10.0)
    assert sweeper(score + 1.5) is not None
    assert sweeper(score + 2.0) is None  # once a second at most

    stray = {"version": 99, "seq": 1, "notes": [{"player": players.key("bob"), "entry": {"type": "x"}}]}
    players.matches.store.redis.rpush(match_key(doc["id"], "outbox"), json.dumps(stray))
    between = sweeper(score + 3.0)
    assert between is not None and between.delivered == 0  # looked at already
    settled = sweeper(score + 11.0)
    assert settled is not None and (settled.delivered, settled.dropped) == (1, 1)


def test_a_fresh_sweeper_drains_every_mark_past_the_grace(
    players: Players, matches: Matches, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A keeper that starts (or restarts) has no cursor: it drains every mark already past the grace."""
    doc = players.create()
    crash_after_commit(monkeypatch)
    players.play(doc["id"])
    swept = keepers_sweep(players.outboxes)(time.time() + 5)
    assert swept is not None and swept.delivered >= 1 and players.outbox(doc["id"]) == []


# -- clock warnings ----------------------------------------------------------------------------------


#: A 30-s decision warned 20 s before its deadline (the control's own warning time: the default would
#: be 20% of the decision's, service/domain/matches/clocks.py).
WARNED_30 = {"per_move_seconds": 30, "warning_seconds": 20}


def warning_matches(matches: Matches, lead: float, at: float) -> Matches:
    """The match operations with ``clock_warning_seconds = lead`` and their clock stopped at ``at``."""
    config = dataclasses.replace(matches.config, clock_warning_seconds=lead)
    return build(
        config, store=matches.store, games=matches.games, bot_queue=matches.bots, clock=lambda: at
    ).matches


def warnings(players: Players, match_id: str) -> list[dict[str, Any]]:
    return [
        e
        for p in ("ann", "bob")
        for e in players.feed(p)
        if e["type"] == "clock_warning" and e["match_id"] == match_id
    ]


def test_a_clock_warning_reaches_the_deciding_player_once(players: Players) -> None:
    t0 = now()
    clocked = warning_matches(players.matches, 20, t0)
    doc = players.create(clocked, time_control=WARNED_30)
    deadline = doc["clock"]["deadline"]
    store = players.matches.store
    assert store.clocks.claim_warnings(deadline - 20.5, 10, 2.0) == []
    assert store.clocks.claim_warnings(deadline - 19.9, 10, 2.0) == [(doc["id"], 0)]
    assert store.clocks.claim_warnings(deadline - 19.9, 10, 2.0) == []  # claimed: leased to that keeper

    assert jobs.clock_warning(players.wired, doc["id"], 0, at=deadline - 19.9) == feed_sweep.WARNED
    [warning] = warnings(players, doc["id"])
    to_move = "ann" if doc["to_move"] == 0 else "bob"
    assert warning in players.feed(to_move)
    assert warning["deadline"] == deadline and warning["my_turn"] and warning["version"] == 0
    assert store.clocks.claim_warnings(deadline, 10, 2.0) == []  # given: out of the index

    # A keeper that lost the reply of its claim gives it again: the feed holds it once.
    assert jobs.clock_warning(players.wired, doc["id"], 0, at=deadline - 19) == feed_sweep.ALREADY
    assert len(warnings(players, doc["id"])) == 1


def test_a_move_in_time_voids_the_warning_and_the_next_decision_gets_its_own(players: Players) -> None:
    t0 = now()
    clocked = warning_matches(players.matches, 20, t0)
    doc = players.create(clocked, time_control=WARNED_30)
    players.play(doc["id"], warning_matches(players.matches, 20, t0 + 5))
    store = players.matches.store
    assert store.clocks.claim_warnings(t0 + 15.5, 10, 2.0) == [(doc["id"], 1)]  # version 0's was dropped
    assert jobs.clock_warning(players.wired, doc["id"], 0, at=t0 + 15.5) == feed_sweep.STALE
    assert jobs.clock_warning(players.wired, doc["id"], 1, at=t0 + 15.5) == feed_sweep.WARNED
    [warning] = warnings(players, doc["id"])
    assert warning["version"] == 1 and warning["seat"] == 1 - doc["to_move"]


def test_a_warning_past_its_deadline_is_not_given(players: Players) -> None:
    t0 = now()
    doc = players.create(warning_matches(players.matches, 20, t0), time_control=WARNED_30)
    late = doc["clock"]["deadline"] + 0.5
    assert jobs.clock_warning(players.wired, doc["id"], 0, at=late) == feed_sweep.TOO_LATE
    assert warnings(players, doc["id"]) == []
    assert players.matches.store.clocks.claim_warnings(late, 10, 2.0) == []


def test_no_warning_when_the_decision_is_no_longer_than_the_lead(players: Players) -> None:
    t0 = now()
    control = {"per_move_seconds": 20, "warning_seconds": 20}
    doc = players.create(warning_matches(players.matches, 20, t0), time_control=control)
    assert doc["clock"]["deadline"] == t0 + 20  # a clock runs, with its deadline indexed
    assert players.matches.store.clocks.claim_due(t0 + 60, 10, 2.0) == [doc["id"]]
    assert players.matches.store.clocks.claim_warnings(t0 + 60, 10, 2.0) == []


def test_no_warning_for_a_seat_no_player_holds(players: Players) -> None:
    """An anonymous seat has no feed: its decisions are not indexed for warnings."""
    t0 = now()
    seats = [{"name": "Ann", "kind": "human", "player": "ann"}, {"name": "Zed", "kind": "human"}]
    clocked = warning_matches(players.matches, 20, t0)
    doc = players.create(clocked, seats=seats, time_control=WARNED_30)
    claimed = players.matches.store.clocks.claim_warnings(t0 + 60, 10, 2.0)
    assert claimed == ([(doc["id"], 0)] if doc["to_move"] == 0 else [])


def test_a_warning_comes_after_the_notes_of_its_own_commit(
    players: Players, matches: Matches, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit that started the decision died before its drain: the warning drains it first, so the
    ``your_turn`` of that version is not taken for fed already (notes are numbered per version)."""
    t0 = now()
    doc = players.create(warning_matches(matches, 20, t0), time_control=WARNED_30)
    crash_after_commit(monkeypatch)
    played = players.play(doc["id"], warning_matches(matches, 20, t0 + 1))
    version = played.version
    assert jobs.clock_warning(players.wired, doc["id"], version, at=t0 + 12) == feed_sweep.WARNED
    to_move = "ann" if played.to_move == 0 else "bob"
    kinds = [(e["version"], e["type"]) for e in players.feed(to_move) if e["version"] == version]
    assert kinds == [(version, "your_turn"), (version, "clock_warning")]
