"""Structured logs as production writes them: ``tabletop serve`` (gunicorn) at DEBUG level, stderr captured.

A full Taj Mahal match (hidden hands, card ids like ``red-05``) is played over HTTP; then every line of
the captured log must be one JSON object, the moves' access lines must carry request id, match id, seat,
version and latency, and no line may contain a seat token, a card any seat held, or the seed.
"""

from __future__ import annotations

import json
import random
import re
import uuid

import pytest

from tests.reliability.oracle import PlayedMatch
from tests.reliability.processes import ApiServer, RedisServer, bearer, call

GAME, PLAYERS = "taj_mahal", 3
SEED = 731_205_884_129


def hand_cards(match: PlayedMatch) -> set[str]:
    """The ids of the cards in every seat's hand now (from the shadow state, as each seat sees it)."""
    view = match.game.view
    return {card["id"] for seat in match.tokens for card in view(match.shadow, seat)["players"][seat]["hand"]}


@pytest.mark.timeout(180)
def test_a_full_match_logs_json_with_ids_and_no_secret(tmp_path):
    log_path = tmp_path / "api.log"
    with (
        RedisServer(tmp_path / "redis") as redis_server,
        ApiServer(redis_server.url, log_path, workers=1, log_level="DEBUG") as api,
    ):
        client = api.client()
        match = PlayedMatch(client, GAME, PLAYERS, SEED)
        rng = random.Random(SEED)
        cards = hand_cards(match)
        request_ids = []
        while not match.over():
            request_ids.append(str(uuid.uuid4()))
            status, reply = match.move(client, rng, **{"X-Request-ID": request_ids[-1]})
            assert status == 200, reply
            cards |= hand_cards(match)
        status, _ = call(client, "GET", match.url, **bearer(match.tokens[0]), **{"X-Request-ID": "bad id!"})
        assert status == 200
    assert len(cards) > 20, "the match showed too few hand cards to make the check meaningful"
    text = log_path.read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines()]  # every line is one JSON object

    for token in match.tokens.values():
        assert token not in text
    leaked = {card for card in cards if re.search(rf"\b{re.escape(card)}\b", text)}
    assert not leaked, f"hand cards in the log: {sorted(leaked)[:10]}"
    assert str(SEED) not in text

    moves = [r for r in lines if r.get("logger") == "service.access" and r["route"].endswith("/actions")]
    assert [r["request_id"] for r in moves] == request_ids
    for version, record in enumerate(moves, 1):
        assert record["match_id"] == match.id and record["version"] == version
        assert record["status"] == 200 and record["latency_ms"] > 0
        assert record["seat"] in match.tokens
    reads = [r for r in lines if r.get("route") == "/v1/matches/<match_id>"]
    assert reads[-1]["seat"] == 0 and re.fullmatch(r"[0-9a-f]{16}", reads[-1]["request_id"])
    assert any(r["logger"] == "gunicorn.error" for r in lines), "gunicorn's own lines are not JSON"
