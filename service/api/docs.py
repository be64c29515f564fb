"""Swagger UI's static files, served from the swagger-ui-bundle package: ``/docs`` works offline."""

from __future__ import annotations

from flask import Blueprint, Response, send_from_directory
from swagger_ui_bundle import swagger_ui_path

blp = Blueprint("swagger-ui-static", __name__)


@blp.route("/docs/static/<path:filename>")
def static_file(filename: str) -> Response:
    return send_from_directory(str(swagger_ui_path), filename, max_age=86400)
