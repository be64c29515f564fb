"""GET /v1/games and /v1/games/{game}: the catalogue a client generator builds on."""

from engine.registry import GAMES
from tests.service.conftest import TEST_GAMES


def test_list_names_every_registered_game(client):
    resp = client.get("/v1/games")
    assert resp.status_code == 200
    ids = [g["id"] for g in resp.json["games"]]
    assert ids == sorted(TEST_GAMES)
    assert set(GAMES) <= set(ids)


def test_detail_has_counts_options_with_defaults_and_action_schemas(client):
    for gid, game in TEST_GAMES.items():
        doc = client.get(f"/v1/games/{gid}").json
        assert (doc["min_players"], doc["max_players"]) == (game.min_players, game.max_players)
        assert doc["options"] == game.options
        for spec in doc["options"].get("properties", {}).values():
            assert "default" in spec
        assert doc["actions"] == game.actions
        assert doc["rules_url"] == f"/v1/games/{gid}/rules"


def test_rules_link_serves_the_packaged_rules(client):
    for gid, game in TEST_GAMES.items():
        resp = client.get(f"/v1/games/{gid}/rules")
        assert resp.status_code == 200
        assert resp.mimetype == "text/markdown"
        with open(game.rules_file, encoding="utf-8") as f:
            assert resp.get_data(as_text=True) == f.read()


def test_unknown_game_is_404_in_the_error_shape(client):
    resp = client.get("/v1/games/no_such_game")
    assert resp.status_code == 404
    assert resp.json["code"] == "not_found" and "no_such_game" in resp.json["message"]
    assert set(resp.json) == {"code", "message", "details"}
