"""The spec says what the server does, in forms client generators honour (issue 15, point 2)."""

from __future__ import annotations

import pytest

from engine.registry import GAMES
from service.http.app import create_app
from service.http.spec.refs import pascal
from service.http.spec.security import OPTIONAL_SEAT_NOTE
from tests.contract.test_game_schemas import SPEC
from tests.service.conftest import make_config

SPECTATOR_OPERATIONS = {"getMatch", "getEvents", "getLog"}


def operations() -> dict[str, dict]:
    return {
        op["operationId"]: op
        for item in SPEC["paths"].values()
        for op in item.values()
        if "operationId" in op
    }


def test_spectator_operations_take_an_optional_token_in_a_form_generators_read_as_optional():
    """No security requirement (openapi-python-client then accepts an anonymous client), and the
    description says a token is optional; seat operations require one."""
    ops = operations()
    for name in SPECTATOR_OPERATIONS:
        assert "security" not in ops[name] and OPTIONAL_SEAT_NOTE in ops[name]["description"], name
    for name in ("getLegalActions", "submitAction", "requestHint"):
        assert ops[name]["security"] == [{"seatToken": []}], name
    # `{}` among the requirements (anonymous allowed) makes openapi-python-client demand a token
    assert not [name for name, op in ops.items() if {} in op.get("security", [])]


def test_game_ids_and_each_games_seat_counts_and_options_are_in_the_spec():
    game_id = SPEC["paths"]["/v1/games/{game_id}"]["parameters"][0]
    assert game_id["schema"]["enum"] == sorted(GAMES)
    schemas = SPEC["components"]["schemas"]
    assert schemas["CreateMatch"]["discriminator"]["propertyName"] == "game"
    for gid, game in GAMES.items():
        variant = schemas[f"{pascal(gid)}CreateMatch"]["properties"]
        assert variant["game"] == {"const": gid}
        assert (variant["seats"]["minItems"], variant["seats"]["maxItems"]) == (
            game.min_players,
            game.max_players,
        )
        assert variant["options"]["$ref"] == f"#/components/schemas/{pascal(gid)}Options"


def test_the_hint_body_is_optional_as_the_server_treats_it():
    assert SPEC["paths"]["/v1/matches/{match_id}/hint"]["post"]["requestBody"].get("required") is False


@pytest.fixture(scope="module")
def client(redis_url):
    return create_app(make_config(redis_url)).test_client()


@pytest.fixture(scope="module")
def match(client):
    body = client.post(
        "/v1/matches", json={"game": "china", "seats": [{"name": n} for n in "abc"], "seed": 1}
    ).json
    token = {t["seat"]: t["token"] for t in body["tokens"]}[body["to_move"]]
    return body["id"], token


def test_a_versionless_move_is_401_or_404_before_428(client, match):
    match_id, token = match
    move = {"action": {"type": "finish"}}
    assert client.post(f"/v1/matches/{match_id}/actions", json=move).status_code == 401
    missing = client.post(
        "/v1/matches/0123456789abcdef/actions", json=move, headers={"Authorization": f"Bearer {token}"}
    )
    assert missing.status_code == 404
    resp = client.post(
        f"/v1/matches/{match_id}/actions", json=move, headers={"Authorization": f"Bearer {token}"}
    )
    assert resp.status_code == 428 and resp.json["code"] == "version_required"


def test_an_unquoted_if_match_is_refused_with_the_quoted_form(client, match):
    match_id, token = match
    resp = client.post(
        f"/v1/matches/{match_id}/actions",
        json={"action": {"type": "finish"}},
        headers={"Authorization": f"Bearer {token}", "If-Match": "0"},
    )
    assert resp.status_code == 422
    assert 'If-Match: "0"' in str(resp.json["details"]), resp.json
