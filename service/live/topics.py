"""What a waiter follows (:class:`Topic`: a match's events or a player's feed) and the order of the
ids of its events (:func:`event_key`)."""

from __future__ import annotations

from dataclasses import dataclass

from service.storage.accounts import feed_channel
from service.storage.matches import notify_channel

#: The kinds of :class:`Topic`.
MATCH, PLAYER = "match", "player"
#: Who may see every entry of a topic: a player's feed holds only that player's entries.
ALL = "all"


def event_key(event_id: str) -> tuple[int, int]:
    """Stream ids ``<version>-<n>`` (or a feed's ``<ms>-<n>``) in their order."""
    version, n = event_id.split("-")
    return int(version), int(n)


@dataclass(frozen=True)
class Topic:
    """What a subscription follows: a match's events (``key`` the match id) or a player's feed (``key``
    the player key ``<app>:<player>``).  Its :attr:`channel` is the name its writes publish on."""

    kind: str
    key: str

    @classmethod
    def match(cls, match_id: str) -> Topic:
        return cls(MATCH, match_id)

    @classmethod
    def player(cls, key: str) -> Topic:
        return cls(PLAYER, key)

    @property
    def channel(self) -> str:
        return notify_channel(self.key) if self.kind == MATCH else feed_channel(self.key)
