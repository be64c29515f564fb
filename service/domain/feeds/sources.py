"""Where a player's note comes from, and its number there: the one home of both.

A feed keeps a note once per ``(source, number)`` (the feed script dedups on them, and webhook
deliveries are keyed by them too), so every writer that may give a note twice (a drain run again, a
sweep after a crash, two keepers at once) must name it the same way each time.  A source is a match (its
id), or a seek, a challenge or a tournament (a prefixed id: they share the feed with matches).  Within a
match the notes of the commit to ``version`` are numbered ``version * 1000 + n`` in commit order, and
the clock warning of that version's decision ``version * 1000 + 999``: after every note of its own
commit and before any of the next, so it is fed once per decision and never after a later commit's.
"""

from __future__ import annotations

from typing import Any, Protocol

#: Numbers a match's version spans: a commit's notes are numbered from ``version * NOTES_PER_VERSION``.
NOTES_PER_VERSION = 1000
#: The number of a clock warning among the notes of its version (a commit's notes count from 0).
WARNING_NOTE = NOTES_PER_VERSION - 1
#: The number of a seek's note (``seek_matched`` or ``seek_expired``: a seek ends one way).
SEEK_NOTE = 1
#: A challenge's notes: received, then its outcome (accepted, declined or expired).
CHALLENGE_RECEIVED_NOTE, CHALLENGE_OUTCOME_NOTE = 1, 2
#: A tournament's ``tournament_over`` note, after every ``tournament_match`` note (numbered by match).
TOURNAMENT_OVER_NOTE = 1_000_000_000


def match_note(version: int, n: int) -> int:
    """The number of the ``n``-th note (from 0) of the commit that made ``version``."""
    return version * NOTES_PER_VERSION + n


def clock_warning_note(version: int) -> int:
    """The number of the clock warning of the decision pending at ``version``."""
    return match_note(version, WARNING_NOTE)


def match_source(match_id: str) -> str:
    """A match's notes' source: its id."""
    return match_id


def seek_source(seek_id: str) -> str:
    return f"s:{seek_id}"


def challenge_source(challenge_id: str) -> str:
    return f"c:{challenge_id}"


def tournament_source(tid: str) -> str:
    return f"t:{tid}"


def chat_source(match_id: str) -> str:
    """A match's chat messages' source (:mod:`service.domain.chat`): numbered by message id."""
    return f"x:{match_id}"


class NoteSink(Protocol):
    """Gives the player ``key`` one note about ``source``, numbered within it (``seq``: the match's
    creation sequence, ``None`` for a source that is no match); the feed entry's id, or ``""`` if the
    feed had it already (:meth:`service.domain.outbox.notes.Notes.note`)."""

    def __call__(self, key: str, source: str, number: int, entry: dict[str, Any], seq: int | None) -> str: ...
