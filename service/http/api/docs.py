"""Swagger UI's static files for ``/docs``, served from the ``flask-swagger-ui`` wheel, so the page works
offline.

The page itself is flask-smorest's (``OPENAPI_SWAGGER_UI_PATH``); only its scripts come from here.  The
wheel ships Swagger UI 5 (its ``dist/VERSION``): version 4 cannot read an OpenAPI 3.1 document and shows
"Unable to render this definition" instead of our spec.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from flask import Blueprint, Response, send_from_directory

#: Swagger UI's ``dist`` folder inside the installed ``flask_swagger_ui`` package.
SWAGGER_UI_DIST = Path(str(files("flask_swagger_ui") / "dist"))

blp = Blueprint("swagger-ui-static", __name__)


def swagger_ui_version() -> str:
    """The bundled Swagger UI release, e.g. ``5.34.0``."""
    return (SWAGGER_UI_DIST / "VERSION").read_text(encoding="utf-8").strip().removeprefix("v")


@blp.route("/docs/static/<path:filename>")
def static_file(filename: str) -> Response:
    return send_from_directory(SWAGGER_UI_DIST, filename, max_age=86400)
