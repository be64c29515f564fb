"""Player data (issue 48): a player's export (NDJSON), a player's deletion, and the app's audit log of
both.  The domain is :mod:`service.domain.privacy`; the format and semantics, docs/api/privacy.md."""

from __future__ import annotations

from typing import Any

from flask import Response

from service.http.api import Blueprint
from service.http.api.streams import NDJSON
from service.http.context import current_caller, services
from service.http.schemas.privacy import (
    AuditPageSchema,
    AuditQuerySchema,
    DeletedPlayerSchema,
    export_line_schema,
)
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint(
    "privacy", __name__, url_prefix="/v1", description="Player data: export, deletion, and their audit log"
)

_EXPORT_DOC = {
    200: {
        "description": "One JSON document a line: a header, the items of every section, a last `end` line "
        "(docs/api/privacy.md).",
        "content": {
            NDJSON: {
                "schema": {"type": "string", "description": "One `PlayerExport…` document per line."},
                "x-item-schema": export_line_schema(),
            }
        },
    }
}


@blp.route("/players/<player_id>/export", methods=["GET"])
@blp.doc(
    operationId="exportPlayerData",
    security=REQUIRED_SEAT,
    responses={**_EXPORT_DOC, **errors(401, 403, 404)},
)
def export_player(player_id: str) -> Response:
    """Everything stored about the player, streamed as NDJSON (format `tabletop-player-export/1`): the
    profile and its tokens' metadata (never a token), matches with their records, ratings and their
    history, seeks, challenges, tournament entries, webhook deliveries that named the player, and
    whatever else a feature keeps (chat, push subscriptions).  For the app's key, or the player's own
    token (`read`); another player's token is 403, another app's player 404.  Audited."""
    lines = services().privacy.export(current_caller(), player_id)
    return Response(lines, mimetype=NDJSON, headers={"Cache-Control": "no-store"})


@blp.route("/players/<player_id>", methods=["DELETE"])
@blp.response(200, DeletedPlayerSchema)
@blp.doc(operationId="deletePlayer", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 422))
def delete_player(player_id: str) -> dict[str, Any]:
    """Delete the player, for good: every token revoked (open streams end), open seeks and challenges
    withdrawn, seats of matches in play given up by each match's leave policy, ratings and board places
    removed, and the player's name replaced by a stable placeholder in the matches and records that stay
    (docs/api/privacy.md lists what remains and why).  The app's key only.  Idempotent: a second call
    answers the same (200); a player the app never had is 404.  Audited."""
    return services().privacy.delete(current_caller(), player_id)


@blp.route("/apps/me/audit", methods=["GET"])
@blp.arguments(AuditQuerySchema(), location="query")
@blp.response(200, AuditPageSchema)
@blp.doc(operationId="getAppAudit", security=REQUIRED_SEAT, responses=errors(401, 422))
def get_audit(query: dict[str, Any]) -> dict[str, Any]:
    """The app's audit log of player-data requests, oldest first: who (the kind of credential and its id,
    never the secret), when, which player, and what a deletion removed."""
    entries, cursor = services().privacy.audit_log(current_caller(), query.get("after"), query["limit"])
    return {"entries": entries, "next_cursor": cursor}
