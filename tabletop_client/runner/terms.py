"""What a bot agrees to play: the challenges it accepts and the seeks it keeps open."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabletop_client.digits import digits
from tabletop_client.transport import Doc


@dataclass(frozen=True)
class ChallengePolicy:
    """Which challenges to accept; the others are declined.  ``accept=False`` declines every one;
    ``games``, ``rated`` and ``opponents`` (challenger player ids) narrow what is accepted when set
    (``None``: any); ``refuse`` lists challengers always declined."""

    accept: bool = True
    games: frozenset[str] | None = None
    rated: bool | None = None
    opponents: frozenset[str] | None = None
    refuse: frozenset[str] = frozenset()

    def accepts(self, challenge: Doc) -> bool:
        """Whether to accept ``challenge`` (the API's challenge document)."""
        challenger = challenge["challenger"]["id"]
        return (
            self.accept
            and (self.games is None or challenge["game"] in self.games)
            and (self.rated is None or challenge["rated"] == self.rated)
            and (self.opponents is None or challenger in self.opponents)
            and challenger not in self.refuse
        )


@dataclass(frozen=True)
class SeekSpec:
    """One kind of seek to keep open: the terms :meth:`~tabletop_client.Client.create_seek` takes."""

    game: str
    players: int
    rated: bool = False
    options: Doc = field(default_factory=dict)
    bots: Doc | None = None
    time_control: Doc | None = None

    @classmethod
    def parse(cls, text: str) -> SeekSpec:
        """``GAME:PLAYERS`` with ``:rated`` and ``:bots`` (bots fill it after 30 s) or ``:bots=SECONDS``
        after it, as the command line writes one (``china:3:rated:bots=10``)."""
        game, _, rest = text.partition(":")
        count, _, flags = rest.partition(":")
        if not game or not digits(count):
            raise ValueError(f"{text!r}: write a seek as GAME:PLAYERS[:rated][:bots[=SECONDS]]")
        terms: dict[str, Any] = {}
        for flag in filter(None, flags.split(":")):
            name, _, value = flag.partition("=")
            if name == "rated" and not value:
                terms["rated"] = True
            elif name == "bots" and (not value or digits(value)):
                terms["bots"] = {"allow": True, "after_seconds": int(value or 30)}
            else:
                raise ValueError(f"{text!r}: {flag!r} is neither rated nor bots[=SECONDS]")
        return cls(game, int(count), **terms)
