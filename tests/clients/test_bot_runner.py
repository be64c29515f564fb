"""The bot runner (issue 44, point 3) against a real ``tabletop serve`` (development mode: a private
Redis and a bot worker beside the API): the example bots play through it, a restart catches up, Ctrl-C
withdraws its seeks, and a 429 is waited out for as long as ``Retry-After`` says."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from examples.greedy_bot import GreedyBot
from examples.random_bot import RandomBot
from tabletop_client import ApiError, AppClient, Client, PlayerClient
from tabletop_client.runner import ChallengePolicy, Runner
from tabletop_client.runner.pacing import Pacer
from tests.clients.test_readme import ADMIN_TOKEN, api  # noqa: F401  (the module's server)

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]
#: Each game at its smallest table: the bot player in seat 0, built-in random bots in the others.
TABLES = {"year_of_dragon": 2, "china": 3, "taj_mahal": 3, "confucius": 3}


@pytest.fixture
def app(api: str) -> Iterator[AppClient]:  # noqa: F811
    """A fresh app (its own feed, seeks, limits) with a bot player ``bot`` and a person ``ann``."""
    admin = Client(api)
    client = AppClient(api, admin.create_app(ADMIN_TOKEN, "runner")["key"])
    admin.close()
    client.put_player("bot", "Bot", bot=True)
    client.put_player("ann", "Ann")
    yield client
    client.close()


def seats(game: str) -> list[dict[str, object]]:
    bots = [{"name": f"r{i}", "kind": "bot", "level": "random"} for i in range(1, TABLES[game])]
    return [{"player": "bot"}, *bots]


def run_until(runner: Runner, done: Callable[[Runner], bool], timeout: float = 90.0) -> None:
    """Run ``runner`` on a thread until ``done``; stop it and fail if that takes over ``timeout``."""
    failed: list[BaseException] = []

    def target() -> None:
        try:
            runner.run(until=done)
        except BaseException as exc:  # reported on the test's thread
            failed.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        runner.stop()
        thread.join(30)
        pytest.fail(f"the runner did not get there in {timeout:.0f} s: {runner.stats}")
    assert not failed, failed


def feed_tail(app: AppClient, player: str) -> str:
    """The id of the player's newest feed entry: where a previous run would have stopped reading."""
    after = "0-0"
    while (page := app.feed(player, after))["events"]:
        after = page["last_id"]
    return after


@pytest.mark.parametrize("policy", [RandomBot, GreedyBot])
def test_the_example_bots_play_a_match_of_each_game_to_its_end_one_request_a_decision(app, policy):
    ids = [app.create_match(game, seats(game))["id"] for game in TABLES]
    runner = Runner(app.api.base_url, app.mint_token("bot")["token"], policy(seed=1))
    run_until(runner, lambda r: r.stats.finished >= len(ids))
    for match_id in ids:
        doc = app.match(match_id)
        assert doc["status"] == "finished" and len(doc["result"]["scores"]) == len(doc["seats"]), doc
    assert runner.stats.failures == 0 and runner.stats.decisions >= 4 * len(ids)
    # The catch-up (me, return, my matches, four matches read) and one stream; then one move each.
    assert runner.requests <= runner.stats.decisions + 16, (runner.requests, runner.stats)


def test_a_restarted_runner_plays_the_decisions_and_answers_the_challenges_that_came_while_it_was_down(app):
    pending = app.create_match("year_of_dragon", seats("year_of_dragon"))["id"]  # the bot is to move
    ann = PlayerClient(app.api.base_url, app.mint_token("ann")["token"])
    challenge = ann.create_challenge("year_of_dragon", ["bot"])
    declined = ann.create_challenge("year_of_dragon", ["bot"], rated=True)  # the policy: unrated only
    runner = Runner(
        app.api.base_url, app.mint_token("bot")["token"], RandomBot(seed=2),
        challenges=ChallengePolicy(rated=False), after=feed_tail(app, "bot"), stream=False, poll_wait=1,
    )  # fmt: skip

    def caught_up(_: Runner) -> bool:
        return app.match(pending)["version"] > 0 and ann.challenge(challenge["id"])["status"] != "open"

    run_until(runner, caught_up)  # the bot had the only decision of ``pending``: it moved there
    accepted = ann.challenge(challenge["id"])
    assert accepted["status"] == "accepted" and accepted["match_id"], accepted
    assert ann.challenge(declined["id"])["status"] == "declined"
    ann.close()


def test_a_restarted_runner_takes_back_a_seat_that_went_away_and_plays_it_to_the_end(app):
    """The bot's first decision times out while no runner runs, which (``max_timeouts`` 1) makes its
    seat away: a stand-in plays it without waiting.  Ann's and Bob's clocks (the first timeout of each
    makes them away too) give the runner those seconds to take the seat back (``POST /v1/me/return``)
    at its start; from then on the runner plays the bot's decisions."""
    app.put_player("bob", "Bob")
    clock = {"per_move_seconds": 3, "on_timeout": "random", "max_timeouts": 1}
    seated = [{"player": "bot"}, {"player": "ann"}, {"player": "bob"}]
    match_id = app.create_match("year_of_dragon", seated, time_control=clock)["id"]
    deadline = time.monotonic() + 30
    while not app.my_matches("bot", away=True)["matches"]:
        assert time.monotonic() < deadline, "the bot's seat never went away"
        time.sleep(0.05)
    runner = Runner(app.api.base_url, app.mint_token("bot")["token"], RandomBot(seed=3))
    run_until(runner, lambda r: r.stats.finished >= 1)
    assert app.match(match_id)["status"] == "finished"
    # A seat still away would have refused the runner's moves (403 seat_away): it played them.
    assert runner.stats.decisions >= 1 and runner.stats.failures == 0, runner.stats


def test_ctrl_c_withdraws_the_seeks_the_runner_kept_open(app):
    token = app.mint_token("bot")["token"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "bot", "run", "examples.random_bot:RandomBot",
         "--url", app.api.base_url, "--token", token, "--seek", "year_of_dragon:2", "--open-seeks", "2"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip

    def mine() -> list[str]:
        return [s["id"] for s in app.seeks("year_of_dragon")["seeks"] if s["player"]["id"] == "bot"]

    deadline = time.monotonic() + 30
    while len(mine()) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, proc.stdout and proc.stdout.read()
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, out
    assert mine() == [], out
    assert "withdrew 2 seeks" in out


def test_a_429_is_waited_out_for_its_retry_after_and_the_request_then_answered(api):  # noqa: F811
    admin = Client(api)
    app = AppClient(api, admin.create_app(ADMIN_TOKEN, "tight", rate="3/second")["key"])
    app.put_player("bot", "Bot")
    token = app.mint_token("bot")["token"]
    spender, runner_side = Client(api), Client(api)
    refused = None
    for _ in range(10):  # spend the app's second
        try:
            spender.me(token)
        except ApiError as exc:
            refused = exc
            break
    assert refused is not None and refused.status == 429, "the limit did not bite"
    assert refused.retry_after is not None and refused.retry_after >= 1
    limit = refused.rate_limit
    assert limit is not None and limit.remaining == 0 and limit.quota == 3, limit
    pacer = Pacer(threading.Event())
    started = time.monotonic()
    answer = pacer.call(runner_side._http, lambda: runner_side.me(token))
    assert answer["id"] == "bot"
    assert pacer.refused == 1 and time.monotonic() - started >= 0.5, (pacer.refused, pacer.waited)
    for client in (admin, app, spender, runner_side):
        client.close()


def test_the_bot_runner_benchmark_runs_and_reports_requests_per_decision(api, capsys):  # noqa: F811
    from bench import bot_runner

    args = ["--url", api, "--admin-token", ADMIN_TOKEN, "--matches", "1", "--games", "year_of_dragon"]
    assert bot_runner.main(args) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("as served: 1 matches") and "per decision (target <= 1.1)" in line, line
