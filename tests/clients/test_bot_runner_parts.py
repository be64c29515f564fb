"""The bot runner's parts that need no server (issue 44, point 3): the rate-limit headers read into one
shape, seek and challenge terms, loading a policy by name, async policies, a move's idempotency key,
and the example greedy bot's lookahead on worlds sampled from a seat's view."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from engine.registry import get_game
from examples.greedy_bot import GreedyBot
from tabletop_client import ApiError, Client
from tabletop_client.ratelimits import RateLimit, parse_rate_limit, parse_retry_after
from tabletop_client.runner import ChallengePolicy, SeekSpec, load_policy
from tabletop_client.runner.policy import AsyncBridge
from tabletop_client.runner.seeks import SeekKeeper


def test_the_ietf_rate_limit_fields_are_read_with_their_policy():
    headers = {"ratelimit": '"player-60s";r=0;t=4', "ratelimit-policy": '"player-60s";q=600;w=60'}
    assert parse_rate_limit(headers) == RateLimit("player-60s", 0, 4, 600, 60)
    assert parse_rate_limit(headers).exhausted  # type: ignore[union-attr]
    assert parse_rate_limit({"ratelimit": '"app-1s";r=7;t=1'}) == RateLimit("app-1s", 7, 1)


def test_the_older_x_rate_limit_headers_are_read_too_an_epoch_reset_as_seconds_from_now():
    later = str(int(time.time()) + 30)
    found = parse_rate_limit(
        {"x-ratelimit-remaining": "0", "x-ratelimit-reset": later, "x-ratelimit-limit": "9"}
    )
    assert found is not None and found.remaining == 0 and 28 <= found.reset <= 30 and found.quota == 9
    assert parse_rate_limit({"x-ratelimit-remaining": "3", "x-ratelimit-reset": "2"}) == RateLimit(None, 3, 2)
    assert parse_rate_limit({}) is None and parse_rate_limit({"ratelimit": "junk"}) is None
    # a gateway's header of digits that are digits only to str.isdigit ("²": int refuses it) states none
    assert parse_rate_limit({"x-ratelimit-remaining": "²"}) is None
    assert parse_rate_limit({"x-ratelimit-remaining": "3", "x-ratelimit-reset": "²"}) == RateLimit(None, 3, 0)


def test_an_api_error_says_when_to_come_back():
    exc = ApiError(429, {"code": "rate_limited"}, {"retry-after": "2", "ratelimit": '"token-1s";r=0;t=1'})
    assert exc.retry_after == 2.0 and exc.rate_limit == RateLimit("token-1s", 0, 1)
    assert (
        ApiError(400, {"code": "x"}).retry_after is None
        and parse_retry_after({"retry-after": "soon"}) is None
    )


def test_a_seek_spec_reads_as_the_command_line_writes_it():
    assert SeekSpec.parse("china:3") == SeekSpec("china", 3)
    spec = SeekSpec.parse("year_of_dragon:2:rated:bots=10")
    assert spec.rated and spec.bots == {"allow": True, "after_seconds": 10}
    for bad in ("china", "china:three", "china:3:fast", "china:²", "china:3:bots=²"):  # "²": isdigit, not int
        with pytest.raises(ValueError, match=r"GAME:PLAYERS|neither"):
            SeekSpec.parse(bad)


def test_the_challenge_policy_accepts_by_game_rating_and_challenger():
    challenge = {"game": "china", "rated": True, "challenger": {"id": "ann"}}
    assert ChallengePolicy().accepts(challenge)
    assert not ChallengePolicy(accept=False).accepts(challenge)
    assert not ChallengePolicy(games=frozenset({"confucius"})).accepts(challenge)
    assert not ChallengePolicy(rated=False).accepts(challenge)
    assert ChallengePolicy(opponents=frozenset({"ann"})).accepts(challenge)
    assert not ChallengePolicy(refuse=frozenset({"ann"})).accepts(challenge)


def test_a_policy_is_loaded_by_module_or_file_and_a_name_without_decide_is_refused(tmp_path: Path):
    assert type(load_policy("examples.random_bot:RandomBot")).__name__ == "RandomBot"
    mine = tmp_path / "mine.py"
    mine.write_text(
        "class Bot:\n    def decide(self, view, legal_actions):\n        return legal_actions[-1]\n"
    )
    assert load_policy(f"{mine}:Bot").decide({}, [{"a": 1}, {"b": 2}]) == {"b": 2}
    for bad, said in (("examples.random_bot", "module:Name"), ("examples.random_bot:Nope", "has no Nope")):
        with pytest.raises(ValueError, match=said):
            load_policy(bad)
    (tmp_path / "plain.py").write_text("VALUE = 3\n")
    with pytest.raises(ValueError, match="has no decide"):
        load_policy(f"{tmp_path / 'plain.py'}:VALUE")


def test_an_async_policys_answer_is_awaited_on_the_runners_loop():
    class Slow:
        async def decide(self, view, legal_actions):
            return legal_actions[0]

    bridge = AsyncBridge()
    try:
        assert bridge.resolve(Slow().decide({}, [{"type": "pass"}])) == {"type": "pass"}
        assert bridge.resolve({"type": "sync"}) == {"type": "sync"}
    finally:
        bridge.close()


def test_every_move_carries_an_idempotency_key_a_fresh_one_unless_given():
    client, sent = Client("http://127.0.0.1:9"), []

    class Answer:
        status = 200

        def read(self) -> bytes:
            return b"{}"

    def send(method, path, data, headers):
        sent.append(headers)
        return Answer()

    client._http._send = send  # type: ignore[method-assign,assignment]
    client.move("m1", "tp.x", {"type": "pass"}, 3)
    client.move("m1", "tp.x", {"type": "pass"}, 3)
    client.move("m1", "tp.x", {"type": "pass"}, 3, idempotency_key="mine")
    keys = [h["Idempotency-Key"] for h in sent]
    assert len(set(keys[:2])) == 2 and all(len(k) == 32 for k in keys[:2]) and keys[2] == "mine"


@pytest.mark.parametrize(
    "game_id, players", [("year_of_dragon", 2), ("china", 3), ("taj_mahal", 3), ("confucius", 3)]
)
def test_the_greedy_example_plays_a_legal_action_from_a_view_that_crossed_the_wire(game_id, players):
    game, bot = get_game(game_id), GreedyBot(samples=2, seed=5)
    state, rng = game.setup(players, None, seed=11), random.Random(3)
    for _ in range(12):  # a few decisions in, so hidden parts have moved
        seat = game.to_move(state)
        if seat is None:
            break
        view = json.loads(json.dumps(game.view(state, seat)))  # what a client holds: JSON
        legal = json.loads(json.dumps(game.legal_actions(state)))
        action = bot.decide(view, legal)
        assert action in legal
        game.apply(state, action if rng.random() < 0.5 else rng.choice(legal))


def test_the_seek_keeper_posts_to_its_count_stops_at_the_cap_until_a_place_frees_and_withdraws_all():
    keeper, posted, answers = SeekKeeper([SeekSpec("china", 3), SeekSpec("taj_mahal", 3)], 3), [], []

    def send(spec: SeekSpec) -> dict[str, str]:
        posted.append(spec.game)
        if len(posted) == 3:
            raise ApiError(409, {"code": "bot_busy"})  # the bot player's cap
        return {"id": f"s{len(posted)}", "status": "open"}

    keeper.top_up(send)
    assert posted == ["china", "taj_mahal", "china"] and sorted(keeper.open) == ["s1", "s2"]
    keeper.top_up(send)  # at the cap: nothing sent until a seek settles or a match ends
    assert len(posted) == 3
    keeper.freed()
    keeper.top_up(send)
    assert len(posted) == 4 and len(keeper.open) == 3

    def cancel(seek_id: str) -> None:
        answers.append(seek_id)
        if seek_id == "s2":
            raise ApiError(409, {"code": "seek_closed"})  # matched meanwhile: simply gone

    assert keeper.withdraw(cancel) == ["s1", "s4"] and sorted(answers) == ["s1", "s2", "s4"]
    assert keeper.open == {}
