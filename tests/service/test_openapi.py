"""The committed spec, the served spec, Swagger UI offline, health and metrics."""

import json
from pathlib import Path

import jsonschema_rs

from engine.registry import GAMES
from service.config import Config
from service.http.app import OFFLINE_REDIS_URL, create_app
from service.http.spec import render
from service.http.spec.refs import pascal
from tests.service.high_card import GAME as HIGH_CARD

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_spec_is_up_to_date():
    """openapi/openapi.json is what `tabletop spec` writes for the registered games; regenerate it with
    `.venv/bin/tabletop spec` when this fails."""
    assert COMMITTED.read_text(encoding="utf-8") == render(create_app(Config(redis_url=OFFLINE_REDIS_URL)))


def test_an_app_over_the_same_games_serves_the_same_document_over_other_games_its_own():
    """create_app builds the document once per set of games (service.http.app._SPECS): a second app
    over the registry serves the same document, an app over other games documents those games."""
    first = create_app(Config(redis_url=OFFLINE_REDIS_URL)).test_client().get("/openapi.json").json
    second = create_app(Config(redis_url=OFFLINE_REDIS_URL, max_body_bytes=4096))
    assert second.test_client().get("/openapi.json").json == first
    other = create_app(Config(redis_url=OFFLINE_REDIS_URL), games={**GAMES, "high_card": HIGH_CARD})
    schemas = other.test_client().get("/openapi.json").json["components"]["schemas"]
    assert "HighCardAction" in schemas and "HighCardAction" not in first["components"]["schemas"]
    assert set(first["paths"]) == set(other.test_client().get("/openapi.json").json["paths"])


def _strings_under(key, node):
    """Every string value of ``key`` anywhere in a JSON document."""
    if isinstance(node, dict):
        if isinstance(node.get(key), str):
            yield node[key]
        for value in node.values():
            yield from _strings_under(key, value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings_under(key, value)


def test_every_pattern_in_the_spec_is_a_valid_ecma_regex():
    """Client generators and validators read patterns as ECMA-262 regexes, which refuse some that
    Python accepts (a range of lone surrogates): a rejected pattern is silently dropped by tools."""
    patterns = list(_strings_under("pattern", json.loads(COMMITTED.read_text(encoding="utf-8"))))
    assert patterns
    for pattern in patterns:
        jsonschema_rs.validator_for({"type": "string", "pattern": pattern})  # raises if invalid


def test_served_spec_documents_every_action_type_and_error_status(client, app):
    spec = client.get("/openapi.json").json
    assert spec["openapi"].startswith("3.1")
    schemas = spec["components"]["schemas"]
    for gid, game in app.extensions["tabletop"].matches.games.items():
        g = pascal(gid)
        for kind, schema in game.actions.items():
            assert schemas[f"{g}{pascal(kind)}Action"] == schema
        assert {"$ref": f"#/components/schemas/{g}Action"} in schemas["Action"]["anyOf"]
    assert set(schemas["Error"]["properties"]) == {"code", "message", "details", "rule"}
    move = spec["paths"]["/v1/matches/{match_id}/actions"]["post"]["responses"]
    assert {"200", "401", "403", "404", "409", "412", "413", "422", "428"} <= set(move)
    created = spec["paths"]["/v1/matches"]["post"]["responses"]["201"]
    assert set(created["links"]) >= {"GetMatch", "GetLegalActions", "SubmitAction", "GetEvents", "GetLog"}


def test_every_reference_resolves_and_move_errors_say_what_they_mean():
    """flask-smorest registers its response components only when referenced by name: a reference
    built by hand to one nobody else names would dangle.  The move's error statuses carry the
    operation's own descriptions (service.http.spec.responses.errors), which a bare component reference
    cannot."""
    spec = json.loads(COMMITTED.read_text(encoding="utf-8"))
    refs = set(_strings_under("$ref", spec))
    assert refs
    for ref in refs:
        node = spec
        for part in ref.removeprefix("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    move = spec["paths"]["/v1/matches/{match_id}/actions"]["post"]["responses"]
    assert "If-Match" in move["412"]["description"]
    assert "expected_version" in move["409"]["description"]
    assert "rule" in move["422"]["description"]
    assert move["422"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert move["401"] == {"$ref": "#/components/responses/UNAUTHORIZED"}


def test_swagger_ui_is_served_from_local_files(client):
    page = client.get("/docs").get_data(as_text=True)
    assert "/docs/static/swagger-ui-bundle.js" in page and "http" not in page.split("<body>")[0]
    asset = client.get("/docs/static/swagger-ui-bundle.js")
    assert asset.status_code == 200 and len(asset.data) > 100_000


def test_health_readiness_and_metrics(client, table):
    assert client.get("/healthz").json == {"status": "ok"}
    assert client.get("/readyz").json == {"status": "ready"}
    table.move(0, table.legal(0)[0], 0)
    text = client.get("/metrics").get_data(as_text=True)
    assert (
        'tabletop_http_requests_total{method="POST",route="/v1/matches/<match_id>/actions",status="200"} 1.0'
        in text
    )
    assert "tabletop_move_seconds_count 1.0" in text
    assert "tabletop_active_matches 1.0" in text


def test_readyz_is_503_when_redis_is_unreachable():
    app = create_app(Config(redis_url="unix:///nonexistent/redis.sock"), games={})
    resp = app.test_client().get("/readyz")
    assert resp.status_code == 503 and resp.json["code"] == "unavailable"
    resp = app.test_client().get("/v1/matches")
    assert resp.status_code == 503 and resp.json["code"] == "unavailable"
