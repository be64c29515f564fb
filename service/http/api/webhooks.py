"""Webhook endpoints of the calling app and their deliveries (being built)."""

from __future__ import annotations

from service.http.api import Blueprint

blp = Blueprint(
    "webhooks",
    __name__,
    url_prefix="/v1/apps/me/webhooks",
    description="Webhook endpoints of the calling app and their deliveries",
)
