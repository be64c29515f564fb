"""A chat message's text rule and its forms.

The text is held to the rule of names (:func:`service.domain.names.normalise`: NFKC, runs of spaces
collapsed, no control, format, bidirectional or invisible characters, no line breaks, no stacked
combining marks), with ``TABLETOP_CHAT_MAX_LENGTH`` characters (:data:`MAX_TEXT` by default) instead of
a name's 40: what other players read
must not render as something else, nor break their layout.  Clients show it as text, never as markup.

A message as stored has two more fields than the one clients get (:func:`shown`): ``event_id`` (its
event on the match's stream, removed with it) and ``player`` (the author's player key, when a player
token wrote it: what a player's export and erasure find).  Neither is ever shown.
"""

from __future__ import annotations

from typing import Any

from service.config import Config
from service.domain import names
from service.domain.errors import invalid

#: Characters of a message at most (after normalisation), unless the setting says otherwise.
MAX_TEXT = Config.chat_max_length
#: Characters of a report's reason at most.
MAX_REASON = 200
#: The fields a message is stored with that clients never get.
PRIVATE_FIELDS = ("event_id", "player")


def clean_text(raw: str, field: str = "text", max_length: int = MAX_TEXT) -> str:
    """``raw`` as the message will be stored, or 422 naming ``field`` and why."""
    try:
        return names.normalise(raw, max_length)
    except names.BadName as exc:
        raise invalid(field, str(exc)) from None


def shown(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored message as clients get it."""
    return {k: v for k, v in stored.items() if k not in PRIVATE_FIELDS}
