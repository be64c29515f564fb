"""The one interface every kind of player data answers to, so that export and erasure cover it.

Each kind of data the service keeps about a player (profile and tokens, matches, ratings, seeks,
challenges, tournament entries, webhook deliveries, chat, push subscriptions, ...) is one *part*: it
lists what it holds about a player (:meth:`PlayerData.export`) and removes it
(:meth:`PlayerData.erase`).  :mod:`service.wiring` hands the list of parts to
:class:`service.domain.privacy.erasure.Privacy`; a feature that stores something new about players adds
its part there, and the export and the deletion cover it without another change.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol


class PlayerData(Protocol):
    """One kind of data stored about players of an app.

    ``section`` names the export's section (``"profile"``, ``"chat"``, ``"push_subscriptions"``...),
    unique among the parts.  :meth:`export` yields JSON-able items (dicts) lazily, so that the export
    streams in bounded memory; it never yields a secret (a token, a key, a webhook secret, a hidden
    hand).  :meth:`erase` removes the player's data of this kind, or replaces the player's id and name
    by ``placeholder`` where other players' data must stay consistent (a finished match, a record); it
    is idempotent (a second call finds nothing and returns 0) and returns how many items it removed or
    rewrote.
    """

    section: str

    def export(self, app: str, player: str) -> Iterable[dict[str, Any]]: ...

    def erase(self, app: str, player: str, placeholder: str) -> int: ...
