"""The clock warnings no commit carries: the ``clock_warning`` entries of the players' feeds.

The clock's warning time before the deadline of a player's decision
(:func:`service.domain.matches.clocks.warning_seconds`: the time control's ``warning_seconds``, by default
a share of the decision's time up to ``clock_warning_seconds``), that player's feed gets a
``clock_warning`` (:func:`service.domain.feeds.feed.warning`).  The commit that starts the decision
records when (:func:`service.domain.matches.clocks.warning_at`, in ``tt:warnings``, one member per match
and version); the keeper claims the warnings due with a lease, like deadlines, and :func:`warn` feeds the
note if that version is still the match's (a move since voids it) and its deadline has not passed.  The
note is numbered :func:`service.domain.feeds.sources.clock_warning_note`: after every note of its own
commit and before any of the next.
"""

from __future__ import annotations

from collections.abc import Callable

from service.domain.feeds import feed
from service.domain.feeds.sources import NoteSink, clock_warning_note, match_source
from service.storage.matches import Store

#: What :func:`warn` did with a claimed warning.
WARNED, ALREADY, STALE, NO_WARNING, TOO_LATE = "warned", "already", "stale", "no-warning", "too-late"


def warn(
    store: Store, drain: Callable[[str], int], note: NoteSink, match_id: str, version: int, now: float
) -> str:
    """Give the clock warning of ``match_id``'s decision pending at ``version``, claimed from the
    warnings index, if that version is still the match's and its deadline is still ahead at ``now``;
    then drop it from the index.  The match's outbox is ``drain``-ed first, so the commit's own notes
    (numbered below the warning) are not taken for fed already; ``note`` feeds it."""
    meta = store.metas([match_id])[0]
    deadline = meta.clock.get("deadline") if meta is not None and meta.clock is not None else None
    warning = feed.warning(meta) if meta is not None else None
    if meta is None or meta.version != version:
        outcome = STALE
    elif warning is None or deadline is None:
        outcome = NO_WARNING
    elif deadline <= now:
        outcome = TOO_LATE  # the timeout is the news now
    else:
        drain(match_id)
        fed = note(
            warning["player"], match_source(match_id), clock_warning_note(version), warning["entry"], meta.seq
        )
        outcome = WARNED if fed else ALREADY
    store.clocks.drop_warning(match_id, version)
    return outcome
