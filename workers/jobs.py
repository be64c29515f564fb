"""The RQ jobs: a bot seat's turn, a hint for a human seat, the move played for a human seat out of time
(:func:`play_timeout`, announced by the clock keepers through :func:`hand_over`, and by the API when it
refuses a late move), the clock warnings the keepers give (:func:`clock_warning`), and the sweep for lost
bot turns.

A job reloads the match from Redis and trusts nothing it was given but the match id and the version it
was enqueued for.  A bot move is written through :meth:`service.domain.matches.play.MatchPlay.bot_move`,
the compare-and-set path of human moves, so a job that runs twice or late can never apply a move twice: the
second commit finds the version moved and does nothing.

The bot is handed ``game.determinize(state, seat, rng)``, never the stored state: whatever the bot does,
it cannot read another seat's hand or the deck order.

A job of a match whose app is revoked does nothing (:data:`REVOKED`): its bot turns, timeouts and hints
stop, the match's deadline leaves the clock index and the sweep passes it by.  Whether an app is revoked
is read once per :data:`APP_STATUS_SECONDS` per process (:func:`app_revoked`).
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import redis
from rq.job import Job

from engine import ai
from engine.core import Action, Game
from service.config import Config
from service.domain import accounts
from service.domain.feeds import sweep as feed_sweep
from service.domain.matches.bots import is_bot, lane_of, lane_of_level, think_budget, think_ms_of
from service.domain.matches.operations import Matches
from service.storage.matches import ACTIVE, Loaded, MatchMeta, now
from service.wiring import Wiring, build

log = logging.getLogger(__name__)

#: What :func:`play_bot_turn` did, as its job result (and log line).
MOVED, STALE, NOT_A_BOT, GONE = "moved", "stale", "not-a-bot", "gone"
#: What :func:`time_out` found besides those: no deadline pending, or one not due yet; and what
#: :func:`hand_over` did with a decision out of time.
NO_DEADLINE, NOT_DUE, HANDED_OVER = "no-deadline", "not-due", "handed-over"
#: What every job found of a match whose app is revoked: nothing was played.
REVOKED = "revoked"
#: Seconds a process trusts that an app it found active still is, so a job's check costs a read per app
#: and second at most; a revoked app is remembered for good (revocation is final).
APP_STATUS_SECONDS = 1.0


@dataclass(frozen=True)
class Turns:
    """What :func:`take_turns` did: the outcome of its first decision, and how many it committed."""

    outcome: str
    played: int


_wired: Wiring | None = None
#: :func:`app_revoked`'s memory: apps found active, until when; apps found revoked.
_active_until: dict[str, float] = {}
_revoked: set[str] = set()


def bind(wired: Wiring) -> None:
    """Set the objects the jobs of this process use (:func:`service.wiring.build`: ``tabletop worker``
    does it once per process; forked work horses inherit it)."""
    global _wired
    _wired = wired


def current() -> Wiring:
    """The bound objects; without :func:`bind` (a plain ``rq worker``), built from the ``TABLETOP_*``
    variables, like the API's."""
    if _wired is None:
        bind(build(Config.from_env()))
    assert _wired is not None
    return _wired


def app_revoked(matches: Matches, app: str | None) -> bool:
    """Whether the app of a match (``None``: anonymous, never revoked) is revoked, read at most once per
    :data:`APP_STATUS_SECONDS`."""
    if app is None:
        return False
    if app in _revoked:
        return True
    at = time.monotonic()
    if _active_until.get(app, 0.0) > at:
        return False
    stored = matches.accounts.store.app(app)
    if stored is not None and stored.status == accounts.REVOKED:
        _revoked.add(app)
        return True
    _active_until[app] = at + APP_STATUS_SECONDS
    return False


def decide_blind(game: Game, state: Any, seat: int, level: str, think_ms: int) -> Action:
    """The move a bot of ``level`` makes for ``seat`` (:func:`engine.ai.decide_blind`, on a world sampled
    from what ``seat`` knows), with a generator seeded from the operating system."""
    return ai.decide_blind(game, state, seat, level, random.Random(secrets.randbits(64)), think_ms=think_ms)


def _pending_bot(meta: MatchMeta | None, version: int) -> str | None:
    """Why the bot turn of ``version`` is no longer to be played, or ``None`` if it is."""
    if meta is None:
        return GONE
    if meta.version != version:
        return STALE
    if meta.to_move is None or not is_bot(meta.seats[meta.to_move]):
        return NOT_A_BOT
    return None


def take_turns(
    matches: Matches, match_id: str, version: int, *, level: str | None = None, slice_seconds: float = 0.0
) -> Turns:
    """Play the bot seat's pending decision of ``match_id`` at ``version`` (at ``level``, default the
    seat's own), then go on while the next decision is also a bot's of the same lane and
    ``slice_seconds`` have not passed: each decision is its own compare-and-set commit, with its own
    version, events and log entry, on the state this job holds (no reload, no queue round trip).

    When it stops with a bot still to move, it announces that turn to the queue like any write does.
    A failure after the first decision also hands the turn to the queue (its own job, with its own
    retries) rather than failing this job, whose decisions are committed already.
    """
    loaded = matches.store.load(match_id)
    meta = loaded.meta if loaded is not None else None
    skip = _pending_bot(meta, version)
    if skip is not None:
        return Turns(skip, 0)
    assert loaded is not None and meta is not None and meta.to_move is not None
    if app_revoked(matches, meta.life.get("app")):
        return Turns(REVOKED, 0)
    game = matches.games[meta.game]
    state = game.decode(loaded.encoded_state())
    lane = lane_of(meta.seats[meta.to_move])
    deadline = time.monotonic() + slice_seconds
    played = 0
    while True:
        seat = meta.to_move
        assert seat is not None
        bot = meta.seats[seat]
        try:
            action = decide_blind(game, state, seat, level or bot["level"], think_ms_of(bot))
            outcome = matches.bot_move(meta, state, seat, action, announce=False)
        except Exception:
            if not played:
                raise  # this job's own turn: RQ retries it, then the fallback plays
            log.exception("bot turn %s v%s failed after %d chained decisions", match_id, meta.version, played)
            matches.announce_bot_turn(meta)
            return Turns(MOVED, played)
        if outcome.meta is None:
            return Turns(MOVED if played else GONE if outcome.commit.gone else STALE, played)
        played += 1
        meta = outcome.meta
        nxt = meta.seats[meta.to_move] if meta.to_move is not None else None
        if nxt is None or not is_bot(nxt):
            return Turns(MOVED, played)
        if lane_of(nxt) != lane or time.monotonic() >= deadline:
            matches.announce_bot_turn(meta)
            return Turns(MOVED, played)


def take_turn(matches: Matches, match_id: str, version: int, level: str | None = None) -> str:
    """One bot decision (no chaining); what happened, as one of the outcome names."""
    return take_turns(matches, match_id, version, level=level).outcome


def play_bot_turn(match_id: str, version: int) -> str:
    """RQ job ``bot-<match>-<version>``: the bot to move at ``version`` decides and moves, and the bots
    after it for up to ``TABLETOP_BOT_SLICE_SECONDS``."""
    matches = current().matches
    turns = take_turns(matches, match_id, version, slice_seconds=matches.config.bot_slice_seconds)
    log.info("bot turn %s v%s: %s (%d decisions)", match_id, version, turns.outcome, turns.played)
    return turns.outcome


def bot_turn_failed(
    job: Job,
    connection: redis.Redis,
    exc_type: type[BaseException] | None,
    exc: BaseException | None,
    traceback: TracebackType | None,
) -> None:
    """RQ failure callback of a bot turn, after every failed attempt.  While retries are left RQ
    retries with backoff; after the last one the seat plays a random legal move, so no match stalls
    on a bot that keeps failing."""
    if job.retries_left:
        return
    match_id, version = job.args
    log.warning("bot turn %s v%s failed for good (%s): playing a random move", match_id, version, exc_type)
    take_turns(current().matches, match_id, version, level="random")


def suggest_move(match_id: str, version: int, seat: int, level: str, think_ms: int) -> dict[str, Any]:
    """RQ job ``hint-...``: what a bot of ``level`` would play for ``seat`` at ``version``.

    ``action`` is ``None`` when the match has moved on (the hint would answer an old question).
    """
    matches = current().matches
    loaded = matches.store.load(match_id)
    answer: dict[str, Any] = {"version": version, "seat": seat, "level": level, "action": None}
    if loaded is None or loaded.meta.version != version or loaded.meta.to_move != seat:
        return answer
    if app_revoked(matches, loaded.meta.life.get("app")):
        return answer
    game = matches.games[loaded.meta.game]
    answer["action"] = decide_blind(game, game.decode(loaded.encoded_state()), seat, level, think_ms)
    return answer


def _out_of_time(matches: Matches, match_id: str, meta: MatchMeta | None, at: float) -> str | None:
    """``None`` if the human decision pending in ``meta`` is out of time at ``at``; else why not, with the
    match's entry in the deadline index put right (removed, or back at its real deadline: the index was
    behind the match, e.g. a move landed after the claim)."""
    clock = meta.clock if meta is not None else None
    if meta is None or clock is None or clock["deadline"] is None or meta.status != ACTIVE:
        matches.store.clocks.set_deadline(match_id, None)
        return GONE if meta is None else NO_DEADLINE
    if clock["deadline"] > at:
        matches.store.clocks.set_deadline(match_id, clock["deadline"])
        return NOT_DUE
    return None


def hand_over(matches: Matches, match_id: str, at: float | None = None) -> str:
    """What a clock keeper does with a deadline it claimed, if the match's pending decision is out of
    time at ``at`` (default: now).  A ``random`` or ``easy`` timeout takes a millisecond or two, as
    much as announcing a job would cost, so the keeper plays it at once; a searching level's thinking
    goes to the thinking lane as the job ``timeout-<match>-<version>``
    (:meth:`service.domain.matches.bots.BotQueue.timeout_due`, :data:`HANDED_OVER`), so no level and no number
    of timeouts can hold the keeper up.  A quick timeout that fails is handed to the quick lane, whose job
    retries it, then plays a random move."""
    loaded, skip = _due(matches, match_id, now() if at is None else at)
    if skip is not None:
        return skip
    assert loaded is not None and loaded.meta.clock is not None
    level = loaded.meta.clock["on_timeout"]
    if lane_of_level(level) == "quick":
        try:
            return _play_out_of_time(matches, loaded, level)
        except Exception:  # the lane's job retries it, then falls back to a random move
            log.exception("clocks: timeout of match %s failed; handing it to its lane", match_id)
    matches.bots.timeout_due(match_id, loaded.meta.version, level, app=loaded.meta.life.get("app"))
    return HANDED_OVER


def time_out(matches: Matches, match_id: str, at: float | None = None, level: str | None = None) -> str:
    """Play the pending decision of ``match_id`` if its human seat is out of time at ``at`` (default:
    now), with a bot of ``level`` (default: the clock's ``on_timeout``; see :func:`_play_out_of_time`).
    Whatever it finds, the match's entry in the deadline index ends up right: removed, put back at its
    real deadline, or renewed by the commit."""
    loaded, skip = _due(matches, match_id, now() if at is None else at)
    if skip is not None:
        return skip
    assert loaded is not None and loaded.meta.clock is not None
    return _play_out_of_time(matches, loaded, level or loaded.meta.clock["on_timeout"])


def _due(matches: Matches, match_id: str, at: float) -> tuple[Loaded | None, str | None]:
    """The match, and ``None`` if its pending decision is out of time at ``at``, else why not (see
    :func:`_out_of_time`)."""
    loaded = matches.store.load(match_id)
    if loaded is not None and app_revoked(matches, loaded.meta.life.get("app")):
        matches.store.clocks.set_deadline(match_id, None)  # the keepers stop claiming it (the sweep skips it)
        return loaded, REVOKED
    return loaded, _out_of_time(matches, match_id, loaded.meta if loaded is not None else None, at)


def _play_out_of_time(matches: Matches, loaded: Loaded, level: str) -> str:
    """A bot of ``level`` decides for the human seat out of time, seeing only what the seat sees, and
    the move is committed like the seat's own
    (:meth:`~service.domain.matches.play.MatchPlay.timeout_move`, which also counts the timeout and
    hands the seat to the bot after too many).  A second run, or a move that landed in time, loses
    the compare-and-set on the version."""
    meta = loaded.meta
    assert meta.to_move is not None
    game = matches.games[meta.game]
    state = game.decode(loaded.encoded_state())
    action = decide_blind(game, state, meta.to_move, level, think_budget(level)[1])
    played = matches.timeout_move(meta, state, meta.to_move, action)
    if played.meta is None:  # the seat moved in time after all, or the match is gone
        return GONE if played.commit.gone else STALE
    log.info("timeout %s v%s: seat %s played by a %s bot", meta.id, meta.version, meta.to_move, level)
    return MOVED


def clock_warning(wired: Wiring, match_id: str, version: int, at: float | None = None) -> str:
    """What a clock keeper does with a clock warning it claimed: the ``clock_warning`` feed entry of
    the decision pending at ``version``, if it still is at ``at`` (default: now) and a player makes it
    (:func:`service.domain.feeds.sweep.warn`).  Like a quick timeout, it costs a few Redis commands and
    no thinking, so the keeper gives it itself."""
    at = now() if at is None else at
    return feed_sweep.warn(wired.store, wired.outbox.drain, wired.notes.note, match_id, version, at)


def play_timeout(match_id: str, version: int) -> str:
    """RQ job ``timeout-<match>-<version>`` (see :meth:`service.domain.matches.bots.BotQueue.timeout_due`):
    the timeout of the decision pending at ``version``, judged again on the stored match."""
    outcome = time_out(current().matches, match_id)
    log.debug("timeout job %s v%s: %s", match_id, version, outcome)
    return outcome


def timeout_failed(
    job: Job,
    connection: redis.Redis,
    exc_type: type[BaseException] | None,
    exc: BaseException | None,
    traceback: TracebackType | None,
) -> None:
    """RQ failure callback of a timeout, after every failed attempt: once the retries are spent, a
    random bot plays the decision, so no clock stays stuck on a bot that keeps failing."""
    if job.retries_left:
        return
    match_id, version = job.args
    log.warning("timeout %s v%s failed for good (%s): playing a random move", match_id, version, exc_type)
    time_out(current().matches, match_id, level="random")


def wake() -> str:
    """RQ job ``wake-<kind>`` (:meth:`service.domain.matches.bots.BotQueue._wake`): nothing.  Taking it is
    what
    counts: the worker that does reads the lane's tenants again before its next job."""
    return "awake"


def sweep() -> int:
    """Periodic job: enqueue again every pending bot turn with no live job (lost with a killed worker,
    failed past its fallback, or never enqueued because the API died between commit and enqueue).
    Returns how many it enqueued."""
    return sweep_matches(current().matches)


def sweep_matches(matches: Matches, page: int = 200) -> int:
    """The sweep over every active match, public and private (but a revoked app's): bot turns without
    a live job, and deadlines missing from the clock index (lost if a process died between a commit and
    its index write)."""
    enqueued = 0
    for private in (False, True):
        cursor = None
        while True:
            metas, cursor = matches.store.list_matches(None, ACTIVE, cursor, page, private=private)
            for meta in metas:
                app = meta.life.get("app")
                if app_revoked(matches, app):
                    continue
                if meta.to_move is not None and is_bot(meta.seats[meta.to_move]):
                    seat = meta.seats[meta.to_move]
                    enqueued += matches.bots.ensure_turn(meta.id, meta.version, seat, app=app)
                if meta.clock is not None and meta.clock["deadline"] is not None:
                    matches.store.clocks.set_deadline(meta.id, meta.clock["deadline"], only_missing=True)
            if cursor is None:
                break
    if enqueued:
        log.warning("sweep: enqueued %d stalled bot turn(s)", enqueued)
    return enqueued
