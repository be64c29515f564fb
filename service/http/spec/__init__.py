"""The OpenAPI document: flask-smorest's, plus what depends on the registered games, so client
generators get one real type per thing a client reads or sends.

The app builds it in two steps (``service/http/app.py``):
:func:`~service.http.spec.components.register_components` before the blueprints register their schemas
(the security scheme, each game's components, the events and the stream's lines), then
:func:`~service.http.spec.requests.describe_match_request` after them (the requests and documents
marshmallow declares as plain dicts, typed per game).  The blueprints describe
their operations with :mod:`~service.http.spec.security` and :mod:`~service.http.spec.responses`.

- :mod:`~service.http.spec.refs`: component names and references;
- :mod:`~service.http.spec.games`: each game's components (actions, view, result, board, log entry);
- :mod:`~service.http.spec.events`: the events, per game and the service's own;
- :mod:`~service.http.spec.stream`: the lines of the streamed feed (``StreamLine``);
- :mod:`~service.http.spec.documents`: the documents and requests split by game (``Match``...);
- :mod:`~service.http.spec.requests`: ``CreateMatch`` and its seats, request defaults.
"""

from __future__ import annotations

import json

from flask import Flask


def render(app: Flask) -> str:
    """The app's OpenAPI document as committed in ``openapi/openapi.json`` (stable formatting)."""
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec
    return json.dumps(spec.to_dict(), indent=2, ensure_ascii=False) + "\n"
