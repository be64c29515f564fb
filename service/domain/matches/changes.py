"""What the match operations hand to a commit: a change of who holds a match's seats, as the lifecycle's
operations decide it and :meth:`service.domain.matches.commits.Commits.change` commits it, and where a
commit's news goes (:class:`News`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from service.storage.matches import MatchMeta


@dataclass
class Change:
    """What a lifecycle operation decided on one version of the match: the match after it, and its
    events; ``answer`` is anything the caller gets back besides the match (a new token)."""

    after: MatchMeta
    events: list[dict[str, Any]]
    answer: dict[str, Any] = field(default_factory=dict)


class News(Protocol):
    """Where a commit's news goes: the matches' outbox (:class:`service.domain.outbox.entries.Outbox`,
    given by the composition root), named here so the matches need not know its subscribers."""

    def entry(
        self, before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """The outbox entry the commit from ``before`` to ``after`` appends (``None``: none)."""
        ...

    def deliver(self, match_id: str, entry: dict[str, Any] | None) -> None:
        """Carry the match's outbox on, after the commit that appended ``entry``."""
        ...
