"""``GET /v1/apps/me``: an app's limits and how much of them it has used, so an integration can pace
itself instead of learning its budget from 429s."""

from __future__ import annotations

from typing import Any

from flask import current_app

from service.domain.accounts import require_app
from service.http.api import Blueprint
from service.http.context import current_caller, services
from service.http.limits import QUOTAS, Quotas
from service.http.schemas.quota import MyAppSchema
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint("quota", __name__, url_prefix="/v1/apps", description="An app's limits and usage")


@blp.route("/me")
@blp.response(200, MyAppSchema)
@blp.doc(operationId="getMyApp", security=REQUIRED_SEAT, responses=errors((401, "The app key is required.")))
def get_my_app() -> dict[str, Any]:
    """The calling app (its key authenticates the call: `Authorization: Bearer ta.…`): its record, the
    limits in effect for its calls (rate limits per scope, waiter caps) and its usage (what is left of
    each of its own rate limits, and when more will be; its player count).  This call is counted too.
    Every limited answer also carries the `RateLimit` and `RateLimit-Policy` headers."""
    app_id = require_app(current_caller())
    found = services().accounts.app(app_id)
    config = services().config
    quotas: Quotas = current_app.extensions[QUOTAS]
    own = dict(found["limits"] or {})
    return {
        "id": found["id"],
        "name": found["name"],
        "status": found["status"],
        "created_at": found["created_at"],
        "limits": {
            "rates": quotas.rates(own),
            "max_waiters_per_app": config.max_waiters_per_app,
            "max_waiters_per_player": config.max_waiters_per_player,
            "tournaments": services().tournaments.limits(),
            "overrides": own,
        },
        "usage": {
            "rates": quotas.usage(app_id, own),
            "players": _players(app_id),
            "tournaments": services().tournaments.usage(app_id),
        },
    }


def _players(app_id: str) -> int:
    return services().accounts.store.player_count(app_id)
