"""The push lane's job: one attempt at one Web Push message (issue 48; the rules are
:mod:`service.domain.push.delivery`'s).

``tabletop worker`` runs the ``push`` lane (:data:`service.domain.matches.bots.LANES`) as a process of
its own, an RQ worker fair between apps like the bot lanes (:mod:`workers.worker`), so a slow push
service never holds a bot turn, a timeout or a hint.  The message is POSTed with the webhooks' HTTP
client (:func:`workers.webhook_http.post`): the push service's name is resolved once and the address
judged before connecting (``TABLETOP_WEBHOOK_ALLOW_PRIVATE``), no redirect is followed, and the whole
attempt is bounded by ``TABLETOP_WEBHOOK_TIMEOUT_SECONDS``.
"""

from __future__ import annotations

import logging
from typing import Any

from service.domain.identity import split_player_key
from service.domain.push.delivery import CONTENT_TYPE, Sent
from workers import webhook_http
from workers.jobs import REVOKED, app_revoked, current

log = logging.getLogger(__name__)


def send(url: str, body: bytes, headers: dict[str, str]) -> Sent:
    """POST one encrypted message with the lane's settings (see the module)."""
    config = current().config
    reply = webhook_http.post(
        url,
        body,
        headers,
        timeout=config.webhook_timeout_seconds,
        allow_private=config.webhook_allow_private,
        allow_http=config.webhook_allow_http,
        content_type=CONTENT_TYPE,
    )
    return Sent(reply.status, reply.headers, reply.error)


def deliver(message: dict[str, Any]) -> str:
    """RQ job ``push-...`` (:class:`service.domain.push.delivery.PushQueue`): one attempt of
    ``message``; its outcome (``delivered``, ``retry``, ``gone``, ``superseded``...).  Nothing is sent
    for a player of a revoked app."""
    wired = current()
    if app_revoked(wired.matches, split_player_key(str(message["key"]))[0]):
        return REVOKED
    outcome = wired.push.deliver(message, send)
    log.debug("push %s %s -> %s: %s", message.get("type"), message.get("source"), message.get("subscription"),
              outcome)  # fmt: skip
    return outcome
