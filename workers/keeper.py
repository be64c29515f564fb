"""The keeper: one child process of ``tabletop worker`` that runs every periodic duty, each behind one
error wrapper (:func:`guarded`), riding out Redis outages like the lanes.

* **Clocks**, every :data:`CLOCK_POLL` seconds when nothing was due: it claims the deadlines due from the
  match clocks' index (:func:`workers.jobs.hand_over`): a ``random`` or ``easy`` timeout it plays at once
  (a millisecond or two, no more than handing it over would cost), a searching level's it hands to the
  timeouts lane (:func:`workers.jobs.play_timeout`).  The keeper never thinks, so no number of ``hard``
  timeouts can hold up another match's ``easy`` one.  It polls the index rather than scheduling an RQ
  job per deadline: a deadline moves with every move of its match, and RQ's scheduler looks for due
  jobs only once a second, which alone would make timeouts up to a second late.  A claim holds for
  :data:`CLOCK_LEASE` seconds: a keeper that dies after claiming, or whose claim's reply is lost,
  delays a timeout by that much, and the claim that follows plays it, or announces the same job (one
  per decision).  It claims the clock warnings due the same way (``clock_warning`` entries of the
  players' feeds, :func:`workers.jobs.clock_warning`).
* **The outbox sweep** (:class:`service.domain.outbox.sweep.OutboxSweep`), once a second: the entries a
  dead committer left undelivered.
* **Matchmaking**, once a second: seeks expired, filled with bots or left paired by a dead process
  (:meth:`service.domain.matchmaking.seeks.Seeks.sweep`); challenges expired
  (:meth:`service.domain.matchmaking.challenges.Challenges.sweep`).
* **Tournaments**, every :data:`~service.domain.tournaments.scheduler.DUE_POLL` seconds: those due to
  start, to go on after a match's end
  (:meth:`~service.domain.tournaments.scheduler.TournamentScheduler.follow` hands that here, out of the
  mover's request), or left half scheduled by a dead process
  (:meth:`~service.domain.tournaments.scheduler.TournamentScheduler.sweep`).

Each is a few cheap reads, never a wait.  Several keepers may run against one Redis: claims are
scripts with leases, and every sweep is idempotent.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from service.config import Config
from service.domain.outbox.sweep import SWEEP_SECONDS, OutboxSweep
from service.domain.tournaments.scheduler import DUE_POLL, TournamentScheduler
from service.storage.client import STORAGE_ERRORS
from service.storage.matches import connect_store, now
from service.wiring import Wiring, build
from workers import jobs

log = logging.getLogger(__name__)

#: Seconds between two attempts to reach a Redis that went away (doubling up to the second).
BACKOFF = (0.5, 5.0)
#: Seconds between looks at the deadline index when nothing was due; deadlines claimed per look
#: (several keepers share a burst); seconds a claim holds before the deadline is due again (a keeper
#: that died with it, or lost the claim's reply).  A keeper never thinks, so the lease need not cover
#: any thinking; a decision whose job waits in its lane past the lease is claimed again and the
#: announcement finds the job there.
CLOCK_POLL = 0.1
CLOCK_CLAIM = 16
CLOCK_LEASE = 2.0
#: Seconds between two matchmaking sweeps.
MATCHMAKING_SECONDS = 1.0


def guarded(what: str, work: Callable[[], object]) -> bool:
    """Run ``work``; whether it ran through.  The one error wrapper of every duty: a Redis error is
    logged as a deferral (the next round tries again: a claim's lease, a sweep's cursor and idempotence
    see to that), anything else with its traceback; neither stops the other duties."""
    try:
        work()
    except STORAGE_ERRORS as exc:
        log.warning("keeper: %s deferred, redis unavailable (%s)", what, exc)
        return False
    except Exception:
        log.exception("keeper: %s failed", what)
        return False
    return True


def wait_for_redis(who: str, exc: Exception, delay: float) -> float:
    """Log that Redis is unavailable, sleep ``delay`` and return the next delay (doubling, capped)."""
    log.warning("%s: redis unavailable (%s); retrying in %.1f s", who, exc, delay)
    time.sleep(delay)
    return min(delay * 2, BACKOFF[1])


@dataclass
class Duty:
    """A periodic duty: ``run(now)`` every ``every`` seconds (the next time is set before it runs, so a
    failing duty waits its period like a succeeding one)."""

    name: str
    every: float
    run: Callable[[float], object]
    next_at: float = 0.0

    def due(self, at: float) -> bool:
        if at < self.next_at:
            return False
        self.next_at = at + self.every
        return True


def tournaments_duty(scheduler: TournamentScheduler, every: float) -> Duty:
    """The tournaments' sweep as a duty: it reads the due index every
    :data:`~service.domain.tournaments.scheduler.DUE_POLL` seconds at most (one cheap read: what is due
    at once, a start, a cancel's aborts or a batch to go on with, is seen within it); a running
    tournament itself comes due every ``every`` seconds (``tournament_sweep_seconds``)."""
    return Duty("the tournaments' sweep", min(DUE_POLL, every), scheduler.sweep)


class Keeper:
    """The periodic duties of one process (see the module), over one process's objects."""

    def __init__(self, wired: Wiring) -> None:
        self.wired = wired
        self.duties = [
            Duty("the outbox sweep", SWEEP_SECONDS, OutboxSweep(wired.outbox)),
            Duty("the matchmaking sweep", MATCHMAKING_SECONDS, self._matchmaking),
            tournaments_duty(wired.tournament_scheduler, float(wired.config.tournament_sweep_seconds)),
        ]

    def _matchmaking(self, at: float) -> None:
        self.wired.seeks.sweep(at)
        self.wired.challenges.sweep(at)

    def clocks(self) -> bool:
        """Claim the deadlines and clock warnings due and act on each; whether any was due.  Raises
        Redis's errors of the claims (the caller waits for Redis)."""
        clocks = self.wired.store.clocks
        due = clocks.claim_due(now(), CLOCK_CLAIM, CLOCK_LEASE)
        warnings = clocks.claim_warnings(now(), CLOCK_CLAIM, CLOCK_LEASE)
        matches = self.wired.matches
        for match_id in due:  # one match's failure must not stop every clock: due again after the lease
            guarded(f"the timeout of match {match_id}", partial(jobs.hand_over, matches, match_id))
        for match_id, version in warnings:  # as a timeout's: claimed again after the lease
            guarded(
                f"the clock warning of match {match_id}",
                partial(jobs.clock_warning, self.wired, match_id, version),
            )
        return bool(due or warnings)

    def periodic(self, at: float) -> None:
        """Run each duty whose time came (``at``: epoch seconds, as the committers mark the outbox)."""
        for duty in self.duties:
            if duty.due(at):
                guarded(duty.name, partial(duty.run, at))

    def run(self, parent: int) -> None:
        """Keep the clocks and the duties until the parent worker is gone, waiting out Redis outages."""
        delay = BACKOFF[0]
        while os.getppid() == parent:
            try:
                busy = self.clocks()
            except STORAGE_ERRORS as exc:
                delay = wait_for_redis("clocks", exc, delay)
                continue
            delay = BACKOFF[0]
            if not busy:
                time.sleep(CLOCK_POLL)
            self.periodic(time.time())


def keep(config: Config, parent: int) -> None:
    """Child process of ``tabletop worker``: the keeper over its own objects, until ``parent`` is gone."""
    store = connect_store(config, timeout=config.redis_timeout_seconds)
    Keeper(build(config, store=store)).run(parent)
