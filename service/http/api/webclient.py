"""The reference web client: ``/play`` (start or find a match) and ``/play/<match_id>`` (its board).

These routes only hand out static files (``service/web``): the pages then talk to the public v1 API from
the browser, as any third-party client would, so the client doubles as a worked example for integrators
and as proof that the public API alone can play every game.  The seat token lives in the URL fragment,
which browsers never send, and goes to the API only as the ``Authorization`` header.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from flask import Blueprint, Response, send_from_directory

#: The client's pages, modules, styles and pictures.
WEB = Path(str(files("service") / "web"))

blp = Blueprint("webclient", __name__)


@blp.route("/play")
def start_page() -> Response:
    return send_from_directory(WEB, "index.html", max_age=0)


@blp.route("/play/<match_id>")
def match_page(match_id: str) -> Response:
    # One page for every match: the module reads the id from the path.
    return send_from_directory(WEB, "match.html", max_age=0)


@blp.route("/play/sw.js")
def service_worker() -> Response:
    """The Web Push service worker (``service/web/sw.js``), served from ``/play/`` so that its scope is
    every page of the client (a worker's scope is at most its script's directory); never cached, so a
    new version takes over at the next visit."""
    resp = send_from_directory(WEB, "sw.js", max_age=0, mimetype="text/javascript")
    resp.headers["Service-Worker-Allowed"] = "/play/"
    return resp


@blp.route("/play/static/<path:filename>")
def static_file(filename: str) -> Response:
    return send_from_directory(WEB, filename, max_age=300)
