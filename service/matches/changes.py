"""A change of who holds a match's seats, as the lifecycle's operations decide it and
:meth:`service.matches.operations.Matches.change` commits it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.store import MatchMeta


@dataclass
class Change:
    """What a lifecycle operation decided on one version of the match: the match after it, and its
    events; ``answer`` is anything the caller gets back besides the match (a new token)."""

    after: MatchMeta
    events: list[dict[str, Any]]
    answer: dict[str, Any] = field(default_factory=dict)
