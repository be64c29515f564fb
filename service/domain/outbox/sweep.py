"""The outbox sweep: deliver the outbox entries a dead committer left.

A commit with an entry marks its match in ``tt:outbox:pending`` before it runs and appends the entry
to the match's outbox inside the commit script; the committing process then drains the outbox
(:meth:`service.domain.outbox.entries.Outbox.deliver`).  A process that dies in between (or whose
drain met a Redis error) leaves the entry in the outbox and the mark behind, and
:func:`sweep_outboxes` delivers it: every mark older than :data:`GRACE_SECONDS` (time for the committer
to drain it itself) has its match drained once, and a mark is dropped only once it is older than
``settle`` seconds (no commit begun before then is still in flight) and the outbox is empty.  Drains
are idempotent per part, so the committer, the live readers and any number of sweeps may drain one
match at once and each note still reaches each feed once.

A mark is looked at twice in its life, not every second: once when it passes the grace (the sweep
keeps a cursor, :class:`OutboxSweep`) and once when it has settled, when it is drained again before
it is dropped, which also catches a commit slower than the grace whose process then died.  So a
steady load of ``n`` commits a second costs the sweep about ``2 n`` reads of an empty outbox a second,
however many marks are waiting to settle.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.domain.outbox.entries import Outbox
from service.storage.accounts import SETTLED_SECONDS

#: Seconds a pending mark is left to its committer, who drains right after its commit, before the
#: sweep drains the match too.
GRACE_SECONDS = 1.0
#: Seconds between two sweeps of one keeper.
SWEEP_SECONDS = 1.0
#: Marks read per round trip.
PAGE = 500


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


class OutboxSweep:
    """:func:`sweep_outboxes` with its cursor kept between sweeps (see the module): the keeper's duty,
    run every :data:`SWEEP_SECONDS`."""

    def __init__(self, outbox: Outbox, settle: float = SETTLED_SECONDS, limit: int = PAGE) -> None:
        self.outbox = outbox
        self.settle = settle
        self.limit = limit
        self.since: float | None = None

    def __call__(self, now: float) -> Swept:
        """Sweep the marks since the last sweep's cursor.  A sweep that fails (Redis away) keeps the
        cursor, so the next one covers its marks.  ``now``: epoch seconds, as the committers mark."""
        swept = sweep_outboxes(self.outbox, now, self.settle, self.limit, since=self.since)
        self.since = swept.until
        return swept
