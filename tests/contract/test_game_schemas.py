"""The published per-game schemas agree with the engine: every view (each seat's and the spectator's),
result, event (as each seat and a spectator receive it) and log entry of random playouts of every
game, player count and option set is valid against the spec's components, and the documents the API
serves for a real match of every game are valid against the operations' response schemas.

The schemas checked are those of the spec the service serves (``service/http/spec/`` built from each
game's ``outputs.py``), so a generated client can never be handed something its types deny.
"""

from __future__ import annotations

import functools
import importlib
import json
import random
from typing import Any

import jsonschema_rs
import pytest

from engine.core import event_visible
from engine.registry import GAMES
from service.config import Config
from service.http.app import OFFLINE_REDIS_URL, create_app
from service.http.spec import render
from service.http.spec.refs import pascal
from tests.service.conftest import make_config

#: Playouts per (game, player count, option set); each is a full game.
PLAYOUTS = 4
SPEC: dict[str, Any] = json.loads(render(create_app(Config(redis_url=OFFLINE_REDIS_URL))))


@functools.cache
def validator(name: str) -> Any:
    """A validator of component ``name``, its references resolved inside the spec (built once per name:
    building one resolves the whole spec's components, some 20 ms, which per stream line was seconds)."""
    return jsonschema_rs.validator_for(
        {"$ref": f"#/components/schemas/{name}", "components": SPEC["components"]}
    )


def check(validate: Any, name: str, instance: Any, where: str) -> None:
    problems = [f"{e.instance_path}: {e.message}" for e in validate.iter_errors(instance)]
    assert not problems, f"{where}: not a valid {name}: {problems[:3]}\n{json.dumps(instance)[:2000]}"


def configurations() -> list[tuple[str, int, dict[str, Any]]]:
    """Every game, player count and option set of the engine's own contract suites."""
    out = []
    for gid, game in sorted(GAMES.items()):
        suite = importlib.import_module(f"tests.engine.{gid}.test_contract").TestContract
        for players in range(game.min_players, game.max_players + 1):
            for options in suite.option_sets:
                out.append((gid, players, options))
    return out


def client_event(ev: dict[str, Any], n: int) -> dict[str, Any]:
    """An engine event as the service delivers it (service.live.shaping.client_event)."""
    return {"id": f"{n}-1", **{k: v for k, v in ev.items() if k != "visible_to"}}


@pytest.mark.parametrize(("gid", "players", "options"), configurations(), ids=str)
def test_random_playouts_fit_the_published_schemas(gid, players, options):
    game, g = GAMES[gid], pascal(gid)
    view, result, event, entry = (validator(f"{g}{n}") for n in ("View", "Result", "Event", "LogEntry"))
    seen_types: set[str] = set()
    for seed in range(PLAYOUTS):
        state = game.setup(players, options, seed=seed)
        rng = random.Random(seed)
        step = 0
        while game.to_move(state) is not None:
            if step % 3 == 0:
                for seat in [None, *range(players)]:
                    check(view, f"{g}View", game.view(state, seat), f"step {step}, seat {seat}")
            events = game.apply(state, rng.choice(game.legal_actions(state)))
            step += 1
            for ev in json.loads(json.dumps(events)):
                seen_types.add(ev["type"])
                for seat in [None, *range(players)]:
                    if not event_visible(ev, seat):
                        continue
                    check(event, f"{g}Event", client_event(ev, step), f"step {step}, seat {seat}")
                    if ev["type"] == "action":
                        logged = {"version": step, "seat": ev["seat"], "action": ev["action"]}
                        check(entry, f"{g}LogEntry", logged, f"step {step}, seat {seat}")
        final = game.result(state)
        check(result, f"{g}Result", final, "result")
        check(event, f"{g}Event", {"id": f"{step}-9", "type": "match_over", "result": final}, "match_over")
        for seat in [None, *range(players)]:
            check(view, f"{g}View", game.view(state, seat), f"end, seat {seat}")
    assert {"action"} < seen_types <= set(game.event_schemas) | {"action"}


def test_schemas_are_strict_enough_to_catch_drift():
    """A view with a renamed field, a result without scores and an event of an unknown type fail:
    the schemas above are not vacuous."""
    for gid, game in GAMES.items():
        g = pascal(gid)
        state = game.setup(game.min_players, {}, seed=1)
        doc = game.view(state, 0)
        assert validator(f"{g}View").is_valid(doc)
        doc["playerz"] = doc.pop("players")
        assert not validator(f"{g}View").is_valid(doc)
        assert not validator(f"{g}Result").is_valid({"ranking": [0], "tiebreak": None})
        assert not validator(f"{g}Event").is_valid({"id": "1-1", "type": "no_such_event"})
        assert not validator("GameView").is_valid({**game.view(state, None), "game": "no_such_game"})


@functools.cache
def response_validator(path: str, method: str, status: str = "200") -> Any:
    schema = SPEC["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
    return jsonschema_rs.validator_for({**schema, "components": SPEC["components"]})


@pytest.fixture(scope="module")
def client(redis_url):
    return create_app(make_config(redis_url, max_wait_seconds=0.05)).test_client()


@pytest.mark.parametrize("gid", sorted(GAMES))
def test_served_documents_of_a_full_match_fit_the_spec(client, gid):
    """One match of the game over HTTP, every seat human: each move's result, the match as a seat
    and as a spectator, the event pages and the log (during play and complete) are valid."""
    game = GAMES[gid]
    match, move = (
        response_validator("/v1/matches/{match_id}", "get"),
        response_validator("/v1/matches/{match_id}/actions", "post"),
    )
    events, log = (
        response_validator("/v1/matches/{match_id}/events", "get"),
        response_validator("/v1/matches/{match_id}/log", "get"),
    )
    created = client.post(
        "/v1/matches",
        json={"game": gid, "seats": [{"name": f"p{i}"} for i in range(game.min_players)], "seed": 3},
    )
    assert created.status_code == 201, created.json
    check(response_validator("/v1/matches", "post", "201"), "CreatedMatch", created.json, "created")
    match_id, tokens = created.json["id"], {t["seat"]: t["token"] for t in created.json["tokens"]}
    rng, doc, moves = random.Random(3), created.json, 0
    while doc["status"] != "finished":
        auth = {"Authorization": f"Bearer {tokens[doc['to_move']]}"}
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=auth).json
        body = {"action": rng.choice(legal["actions"]), "expected_version": legal["version"]}
        resp = client.post(f"/v1/matches/{match_id}/actions", json=body, headers=auth)
        assert resp.status_code == 200, resp.json
        check(move, "MoveResult", resp.json, f"move {moves}")
        doc, moves = resp.json, moves + 1
        if moves % 50 == 1:
            for headers in ({}, auth):
                check(match, "Match", client.get(f"/v1/matches/{match_id}", headers=headers).json, "match")
                check(log, "Log", client.get(f"/v1/matches/{match_id}/log", headers=headers).json, "log")
    for headers in ({}, {"Authorization": f"Bearer {tokens[0]}"}):
        check(match, "Match", client.get(f"/v1/matches/{match_id}", headers=headers).json, "final match")
        page = client.get(f"/v1/matches/{match_id}/events", headers=headers).json
        check(events, "EventsPage", page, "events")
        assert page["events"][-1]["type"] == "match_over"
    stream = client.get(f"/v1/matches/{match_id}/events", headers={"Accept": "application/x-ndjson"})
    lines = [json.loads(line) for line in stream.get_data(as_text=True).splitlines()]
    assert lines[0]["type"] == "snapshot" and lines[-1]["type"] == "match_over"
    for line in lines:
        check(validator("StreamLine"), "StreamLine", line, "stream")
    final_log = client.get(f"/v1/matches/{match_id}/log").json
    check(log, "Log", final_log, "final log")
    assert final_log["complete"] and len(final_log["entries"]) == moves
