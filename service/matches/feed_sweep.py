"""What the workers do for the players' feeds: deliver the outbox entries a dead committer left, and
give the clock warnings no commit carries.

**The outbox sweep.**  A commit with notes marks its match in ``tt:outbox:pending`` before it runs and
appends its notes to the match's outbox inside the commit script; the committing process then drains
the outbox (:meth:`service.accounts_store.AccountStore.drain`).  A process that dies in between (or
whose drain met a Redis error) leaves the entry in the outbox and the mark behind, and
:func:`sweep_outboxes` delivers it: every mark older than :data:`GRACE_SECONDS` (time for the committer
to drain it itself) has its match drained once, and a mark is dropped only once it is older than
``settle`` seconds (no commit begun before then is still in flight) and the outbox is empty.  Drains
are idempotent per note, so the committer, the live readers and any number of sweeps may drain one
match at once and each note still reaches each feed once.

A mark is looked at twice in its life, not every second: once when it passes the grace (the sweep
keeps a cursor, :class:`OutboxSweeper`) and once when it has settled, when it is drained again before
it is dropped, which also catches a commit slower than the grace whose process then died.  So a
steady load of ``n`` commits a second costs the sweep about ``2 n`` reads of an empty outbox a second,
however many marks are waiting to settle.

**Clock warnings.**  The clock's warning time before the deadline of a player's decision
(:func:`service.matches.clocks.warning_seconds`: the time control's ``warning_seconds``, by default a
share of the decision's time up to ``clock_warning_seconds``), that player's feed gets a
``clock_warning`` (:func:`service.matches.feed.warning`).  The commit that starts the
decision records when (:func:`index_warning`, in ``tt:warnings``, one member per match and version);
the clock keepers claim the warnings due with a lease, like deadlines, and :func:`warn` feeds the note
if that version is still the match's (a move since voids it) and its deadline has not passed.  The note
is numbered ``version * 1000 + 999`` among the match's notes: after every note of its own commit and
before any of the next, so it is fed once per decision, and never once the player has heard of a
later commit.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.accounts_store import SETTLED_SECONDS
from service.matches import clocks, feed
from service.matches.outbox import Outbox
from service.store import ACTIVE, MatchMeta, Store

#: Seconds a pending mark is left to its committer, who drains right after its commit, before the
#: sweep drains the match too.
GRACE_SECONDS = 1.0
#: Seconds between two sweeps of one keeper.
SWEEP_SECONDS = 1.0
#: Marks read per round trip.
PAGE = 500
#: The number of a clock warning among the notes of its version (a commit's notes count from 0).
WARNING_NOTE = 999

#: What :func:`warn` did with a claimed warning.
WARNED, ALREADY, STALE, NO_WARNING, TOO_LATE = "warned", "already", "stale", "no-warning", "too-late"


@dataclass(frozen=True)
class Swept:
    """What one :func:`sweep_outboxes` did: notes that reached a feed (a dead committer's, or one
    in flight), marks dropped, and the cursor of the next sweep (every mark up to it was drained)."""

    delivered: int
    dropped: int
    until: float


def sweep_outboxes(
    outbox: Outbox,
    now: float,
    settle: float = SETTLED_SECONDS,
    limit: int = PAGE,
    *,
    since: float | None = None,
    grace: float = GRACE_SECONDS,
) -> Swept:
    """Drain the matches marked pending more than ``grace`` seconds before ``now`` and after ``since``
    (every such mark when ``None``); then drain the marks older than ``settle`` seconds again and drop
    those whose outbox is empty.  ``limit``: marks read per round trip."""
    store = outbox.store
    delivered = dropped = 0
    horizon = now - grace
    cursor = since
    while True:
        page = store.pending(horizon, limit, after=cursor)
        for match_id, _ in page:
            delivered += outbox.drain(match_id)
        if len(page) < limit:
            break
        cursor = page[-1][1]
    settled: float | None = None
    while True:
        page = store.pending(now - settle, limit, after=settled)
        for match_id, score in page:
            delivered += outbox.drain(match_id)
            if store.outbox_length(match_id) == 0:  # else a commit appended meanwhile: its mark is newer
                store.unmark(match_id, score)
                dropped += 1
        if len(page) < limit:
            break
        settled = page[-1][1]
    return Swept(delivered, dropped, horizon)


class OutboxSweeper:
    """:func:`sweep_outboxes` every ``every`` seconds with its cursor kept between sweeps (see the
    module): what a clock keeper runs beside its clocks."""

    def __init__(
        self,
        outbox: Outbox,
        every: float = SWEEP_SECONDS,
        settle: float = SETTLED_SECONDS,
        limit: int = PAGE,
    ) -> None:
        self.outbox = outbox
        self.every = every
        self.settle = settle
        self.limit = limit
        self.since: float | None = None
        self.next_at = 0.0

    def tick(self, now: float) -> Swept | None:
        """Sweep if the last sweep was ``every`` seconds ago or more; ``None`` if not yet.  A sweep that
        fails (Redis away) keeps the cursor, so the next one covers its marks."""
        if now < self.next_at:
            return None
        self.next_at = now + self.every
        swept = sweep_outboxes(self.outbox, now, self.settle, self.limit, since=self.since)
        self.since = swept.until
        return swept


def warning_at(meta: MatchMeta, lead: float) -> float | None:
    """When the player deciding in ``meta`` (the match after a commit) is warned of the deadline:
    ``lead`` seconds before it; ``None`` if no player decides against a deadline, or if the whole
    decision is no longer than ``lead`` (the ``your_turn`` entry carries the deadline already)."""
    clock = meta.clock
    if lead <= 0 or clock is None or meta.status != ACTIVE or clock.get("deadline") is None:
        return None
    if feed.warning(meta) is None:
        return None
    at = float(clock["deadline"]) - lead
    started = clock.get("turn_started")
    if started is not None and at <= started:
        return None
    return at


def index_warning(store: Store, meta: MatchMeta, cap: float) -> None:
    """After the commit of ``meta``: its decision's clock warning in the warnings index (and the
    previous version's out of it), at its clock's warning time (``cap``: the server's
    ``clock_warning_seconds``, the most a default warning time may be)."""
    lead = clocks.warning_seconds(meta.clock, cap) if meta.clock is not None else 0.0
    store.set_warning(meta.id, meta.version, warning_at(meta, lead))


def warn(store: Store, outbox: Outbox, match_id: str, version: int, now: float) -> str:
    """Give the clock warning of ``match_id``'s decision pending at ``version``, claimed from the
    warnings index, if that version is still the match's and its deadline is still ahead at ``now``;
    then drop it from the index.  The match's outbox is drained first, so the commit's own notes
    (numbered below the warning) are not taken for fed already."""
    meta = store.metas([match_id])[0]
    deadline = meta.clock.get("deadline") if meta is not None and meta.clock is not None else None
    note = feed.warning(meta) if meta is not None else None
    if meta is None or meta.version != version:
        outcome = STALE
    elif note is None or deadline is None:
        outcome = NO_WARNING
    elif deadline <= now:
        outcome = TOO_LATE  # the timeout is the news now
    else:
        outbox.drain(match_id)
        number = version * 1000 + WARNING_NOTE
        fed = outbox.note(note["player"], match_id, number, note["entry"], meta.seq)
        outcome = WARNED if fed else ALREADY
    store.drop_warning(match_id, version)
    return outcome
