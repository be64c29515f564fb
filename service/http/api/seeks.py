"""Matchmaking: open seeks paired into matches (see :mod:`service.domain.matchmaking.seeks`)."""

from __future__ import annotations

from typing import Any

from flask import url_for

from service.http.api import Blueprint
from service.http.api.idempotency import idempotent
from service.http.context import current_caller, services
from service.http.schemas.matchmaking import CreateSeekSchema, SeekListQuerySchema, SeekListSchema, SeekSchema
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint(
    "seeks",
    __name__,
    url_prefix="/v1/seeks",
    description="Matchmaking: open seeks paired into matches",
)

CREDENTIALS = (401, "A player token (or the app key naming `player`) is required.")
SCOPE = (403, "The player token lacks the `play` scope (`insufficient_scope`).")
SEEK_CONFLICT = (
    409,
    "`seek_open`: the player has an open seek already (`details.seek_id`; a person seeks one match at a "
    "time); `bot_busy`: a bot player is at its cap of matches and open seeks (TABLETOP_BOT_MAX_MATCHES).",
)
NOT_OPEN = (409, "`seek_closed`: the seek is no longer open (matched, being matched, expired, cancelled).")
NOT_YOURS = (403, "`not_your_seek`: another player's seek; or a token without the `play` scope.")


@blp.route("", methods=["POST"])
@idempotent
@blp.arguments(CreateSeekSchema())
@blp.response(201, SeekSchema, headers={"Location": {"schema": {"type": "string"}}})
@blp.doc(
    operationId="createSeek",
    security=REQUIRED_SEAT,
    responses=errors(CREDENTIALS, SCOPE, 404, SEEK_CONFLICT, 413, 422),
)
def create_seek(body: dict[str, Any]) -> Any:
    """Look for a match: the game, the player count, options, rated or not, a time control, the
    opponents' rating range, whether bots may fill seats and after how long.  Compatible seeks of the
    same app are paired atomically into a match: the answer is `matched` (with `match_id`) if this
    seek completed a group, else `open`; the player's feed (and the app's webhooks) say
    `seek_matched` or, once it expires, `seek_expired`."""
    doc = services().seeks.post(current_caller(), body)
    return doc, 201, {"Location": url_for("seeks.get_seek", seek_id=doc["id"])}


@blp.route("", methods=["GET"])
@blp.arguments(SeekListQuerySchema(), location="query")
@blp.response(200, SeekListSchema)
@blp.doc(operationId="listSeeks", security=REQUIRED_SEAT, responses=errors(401, 403, 422))
def list_seeks(query: dict[str, Any]) -> dict[str, Any]:
    """The open seeks of the caller's app for a game (one player count, or all), oldest first; follow
    `next_cursor` (as `cursor`)."""
    after = float(query["cursor"]) if "cursor" in query else None
    found, cursor = services().seeks.list_open(
        current_caller(), query["game"], query.get("players"), after, query["limit"]
    )
    return {"seeks": found, "next_cursor": None if cursor is None else repr(cursor)}


@blp.route("/<seek_id>", methods=["GET"])
@blp.response(200, SeekSchema)
@blp.doc(operationId="getSeek", security=REQUIRED_SEAT, responses=errors(401, 403, 404))
def get_seek(seek_id: str) -> dict[str, Any]:
    """A seek of the caller's app: its status, and its match once `matched`."""
    return services().seeks.get(current_caller(), seek_id)


@blp.route("/<seek_id>", methods=["DELETE"])
@blp.response(200, SeekSchema)
@blp.doc(operationId="cancelSeek", security=REQUIRED_SEAT, responses=errors(401, NOT_YOURS, 404, NOT_OPEN))
def cancel_seek(seek_id: str) -> dict[str, Any]:
    """Withdraw an open seek (its player, or its app's key): `cancelled`."""
    return services().seeks.cancel(current_caller(), seek_id)
