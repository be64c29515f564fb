"""What a push message is (pure: no store, no clock): which feed entries are pushed, how long each may
wait at the push service (``TTL``), how urgent it is (``Urgency``), which ones replace each other
(``Topic``), and the payload the browser's service worker shows.

**Types.**  Four of the feed's entry types (:data:`PUSH_TYPES`): a player's turn, a challenge received,
a match over and the clock warning; each subscription chooses among them.  The rest of the feed
(``seat_joined``, ``match_started``...) is for the apps' servers (webhooks), not for a phone's lock screen.

**TTL and urgency** (RFC 8030 sections 5.2 and 5.3), per type (:func:`rules`): ``your_turn`` waits
at most a day at the push service, urgency ``normal``; ``clock_warning`` until the decision's deadline,
``high``; ``challenge_received`` until the challenge expires (at most a day), ``normal``;
``match_over`` a day, ``low``.

A message is never sent once its TTL has run out (a clock warning after its deadline says nothing).

**Collapse** (RFC 8030 section 5.4): a ``your_turn`` carries a ``Topic`` naming its match, so a newer
turn of the same match replaces an older one the push service still holds for an offline browser; a
clock warning has a topic of its own per match.  The lane does the same before sending: a
``your_turn`` whose match has had a newer note queued for the subscription since is dropped
(:class:`service.domain.push.delivery.PushDelivery`).

**The payload** (encrypted for the browser, RFC 8291): ``{"type", "title", "body", "tag", "url",
"data"}``: a short text to show, the notification's ``tag`` (the topic: a newer turn's notification
replaces the shown one), the page to open (``/play/<match>``; no token: the page the player has open
holds it), and the feed entry (never a token or a secret: :func:`service.domain.webhooks.messages.scrub`),
trimmed to what fits in :data:`MAX_PAYLOAD` bytes.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from engine.registry import GAMES
from service.domain.feeds.feed import CHALLENGE_RECEIVED, CLOCK_WARNING, MATCH_OVER, YOUR_TURN
from service.domain.webhooks.messages import scrub

#: The feed entry types a subscription may choose (all of them by default), in the spec's order.
PUSH_TYPES = (YOUR_TURN, CHALLENGE_RECEIVED, MATCH_OVER, CLOCK_WARNING)
#: The longest a message waits at the push service, and the TTL of those without a deadline of their own.
DAY = 24 * 3600
#: Urgency values (RFC 8030 section 5.3).
URGENCIES = ("very-low", "low", "normal", "high")
#: The largest payload before encryption: push services take 4096 bytes of body, and aes128gcm adds
#: 103 (a header of 86, a tag of 16, a delimiter of 1).
MAX_PAYLOAD = 3800
#: Entry fields kept in a payload's ``data`` when the whole entry would not fit.
_ESSENTIAL = ("type", "match_id", "challenge_id", "game", "version", "seat", "deadline", "expires_at")


@dataclass(frozen=True)
class Rules:
    """How one message goes: seconds it may wait at the push service (from when it was queued), its
    urgency, and its topic (``None``: no collapse)."""

    ttl: int
    urgency: str
    topic: str | None


def topic(kind: str, source: str) -> str:
    """The ``Topic`` of ``kind``'s messages about ``source`` (a match): RFC 8030 allows at most 32
    characters of the URL-safe base64 alphabet, so it is a digest, the same for every message it
    replaces."""
    digest = hashlib.sha256(f"{kind}\n{source}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:32]


def rules(entry: dict[str, Any], source: str, queued_at: float) -> Rules:
    """The TTL, urgency and topic of a message carrying ``entry`` (see the module)."""
    kind = entry.get("type")
    if kind == YOUR_TURN:
        return Rules(DAY, "normal", topic(YOUR_TURN, source))
    if kind == CLOCK_WARNING:
        deadline = entry.get("deadline")
        left = int(float(deadline) - queued_at) if isinstance(deadline, int | float) else DAY
        return Rules(max(0, min(DAY, left)), "high", topic(CLOCK_WARNING, source))
    if kind == CHALLENGE_RECEIVED:
        expires = entry.get("expires_at")
        left = int(float(expires) - queued_at) if isinstance(expires, int | float) else DAY
        return Rules(max(0, min(DAY, left)), "normal", None)
    return Rules(DAY, "low", None)


def _text(entry: dict[str, Any]) -> tuple[str, str]:
    """The notification's title and body (plain text: a notification shows no markup)."""
    kind = entry.get("type")
    game_id = str(entry.get("game") or "")
    game = GAMES[game_id].title if game_id in GAMES else game_id or "a game"
    if kind == YOUR_TURN:
        return "Your turn", f"It is your move in {game}."
    if kind == CLOCK_WARNING:
        return "Your clock is running out", f"Decide soon in {game}, or the clock decides for you."
    if kind == CHALLENGE_RECEIVED:
        challenger = entry.get("challenger") or {}
        who = str(challenger.get("name") or challenger.get("id") or "Someone")[:80]
        return "New challenge", f"{who} challenges you to {game}."
    return "Match over", f"Your match of {game} is over."


def payload(entry: dict[str, Any], source: str) -> bytes:
    """The bytes encrypted for the browser (see the module): the whole entry when it fits in
    :data:`MAX_PAYLOAD`, else its essential fields."""
    title, body = _text(entry)
    match_id = entry.get("match_id")
    data = scrub(entry)
    doc = {
        "type": entry.get("type"),
        "title": title,
        "body": body,
        "tag": topic(str(entry.get("type")), source),
        "url": f"/play/{match_id}" if match_id else "/play",
        "data": data,
    }
    encoded = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    if len(encoded) > MAX_PAYLOAD:
        doc["data"] = {k: data[k] for k in _ESSENTIAL if k in data}
        encoded = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    return encoded
