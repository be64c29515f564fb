"""The webhook delivery lane as it runs (issue 26 points 2 and 3): a real lane process
(``workers/webhooks.py``, under gevent) on the tests' Redis, delivering to real HTTP receivers
(pytest-httpserver, threaded, in this process), with loopback and plain http allowed as in
development mode.

A move in a player match reaches the receiver signed the Standard Webhooks way (checked with the
library's own verifier); a match's notes arrive in order across many moves, through retries; a failed
attempt is retried with the same ``webhook-id``; ``410 Gone`` disables the endpoint; ``Retry-After`` is
honoured; during a rotation's grace both secrets verify; a receiver that hangs does not delay another
endpoint's deliveries.  Every wait polls with a deadline.  The long reliability cases (a receiver down
for 30 s, a lane SIGKILLed mid-delivery, Redis restarted) are in tests/reliability."""

from __future__ import annotations

import itertools
import json
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import redis
from pytest_httpserver import HTTPServer
from standardwebhooks import Webhook
from werkzeug import Request, Response

from devtools.private_redis import REDIS_SERVER
from service.config import Config
from service.domain.accounts import APP_REVOKED
from service.domain.feeds import feed
from service.domain.identity import APP, Caller
from service.domain.matches.bots import LANES
from service.domain.webhooks.delivery import GONE_REASON, SEND_CHECK_SECONDS
from service.domain.webhooks.signing import new_secret
from service.domain.webhooks.webhooks import Webhooks
from service.storage.matches import MatchMeta, Store
from service.storage.webhooks import WebhookStore
from service.wiring import build
from tests.service.conftest import TEST_GAMES, make_config
from workers import webhooks as lane
from workers.worker import LISTEN_SECONDS

#: Seconds a delivery may take in these tests (the hanging receiver outlasts it).
TIMEOUT = 1.0


@dataclass(frozen=True)
class Hit:
    """One request a receiver got."""

    at: float
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def payload(self) -> dict[str, Any]:
        return dict(json.loads(self.body))


Answer = Callable[[Hit], tuple[int, dict[str, str]]]


class Receiver:
    """A threaded HTTP server recording every POST, answering as ``answer`` says (204 by default)."""

    def __init__(self, answer: Answer | None = None) -> None:
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.expect_request(re.compile(".*"), method="POST").respond_with_handler(self._handle)
        self.answer: Answer = answer or (lambda hit: (204, {}))
        self.hits: list[Hit] = []
        self.accepted: list[Hit] = []
        self.lock = threading.Lock()
        self.server.start()

    def _handle(self, request: Request) -> Response:
        headers = {k.lower(): v for k, v in request.headers.items()}
        hit = Hit(time.time(), request.path, headers, request.get_data())
        with self.lock:
            self.hits.append(hit)
        status, extra = self.answer(hit)
        if 200 <= status < 300:
            with self.lock:
                self.accepted.append(hit)
        return Response(status=status, headers=extra)

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.port}{path}"

    def wait(self, what: Callable[[], bool], timeout: float = 20.0, message: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not what():
            assert time.monotonic() < deadline, message or f"timed out; got {len(self.hits)} requests"
            time.sleep(0.02)

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Hit]:
        self.wait(lambda: len(self.accepted) >= count, timeout, f"{len(self.accepted)} of {count} accepted")
        with self.lock:
            return list(self.accepted)

    def stop(self) -> None:
        if self.server.is_running():
            self.server.stop()


@pytest.fixture
def receivers() -> Iterator[Callable[..., Receiver]]:
    made: list[Receiver] = []

    def make(answer: Answer | None = None) -> Receiver:
        made.append(Receiver(answer))
        return made[-1]

    yield make
    for r in made:
        r.stop()


@pytest.fixture
def settings(redis_url: str) -> Config:
    return make_config(
        redis_url,
        webhook_allow_http=True,
        webhook_allow_private=True,
        webhook_timeout_seconds=TIMEOUT,
        webhook_retry_seconds=240.0,  # the longest pause between attempts: 10 s
        webhook_concurrency=4,
    )


@pytest.fixture
def hooks(redis_client: redis.Redis, settings: Config) -> Webhooks:
    return Webhooks(WebhookStore(redis_client), settings)


@pytest.fixture
def start_lane(settings: Config) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start lane processes (the real ``python -m workers.webhooks`` way); stopped after the test."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(**overrides: Any) -> subprocess.Popen[bytes]:
        config = Config(**{**settings.__dict__, **overrides})
        procs.append(lane.spawn(config))
        return procs[-1]

    yield start
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        assert proc.returncode in (0, -15), f"the lane exited with {proc.returncode}"


class Table:
    """An app with players ann and bob, High Card matches between them, and webhook endpoints."""

    def __init__(self, redis_client: redis.Redis, settings: Config) -> None:
        wired = build(settings, store=Store(redis_client), games=TEST_GAMES)
        self.matches = wired.matches
        self.hooks = wired.webhooks
        self.app: str = self.matches.accounts.create_app("Backend")["id"]
        self.caller = Caller(APP, app=self.app, scopes=frozenset({"read", "play"}))
        for player in ("ann", "bob"):
            self.matches.accounts.put_player(self.caller, player, player.title(), False)

    def endpoint(self, url: str, types: list[str] | None = None) -> dict[str, Any]:
        return self.hooks.create(self.app, url, types, "test receiver")

    def create(self, rounds: int = 4) -> str:
        seats = [
            {"name": "Ann", "kind": "human", "player": "ann"},
            {"name": "Bob", "kind": "human", "player": "bob"},
        ]
        body = {"game": "high_card", "seats": seats, "options": {"swaps": False, "rounds": rounds}, "seed": 3}
        return str(self.matches.create(body, caller=self.caller)["id"])

    def play(self, match_id: str) -> MatchMeta | None:
        """The seat to move plays its first legal action (every one passes the turn); ``None`` once
        the match is over."""
        loaded = self.matches.store.load(match_id)
        assert loaded is not None
        if loaded.meta.to_move is None:
            return None
        game = self.matches.games[loaded.meta.game]
        state = game.decode(loaded.encoded_state())
        played = self.matches.seat_move(loaded.meta, state, loaded.meta.to_move, game.legal_actions(state)[0])
        return played.meta


@pytest.fixture
def table(redis_client: redis.Redis, settings: Config) -> Table:
    return Table(redis_client, settings)


def note(match: str, version: int, kind: str = feed.YOUR_TURN) -> dict[str, Any]:
    return {"type": kind, "match_id": match, "game": "high_card", "version": version, "seat": 0}


# -- signed, in order ------------------------------------------------------------------------------


def test_a_move_reaches_the_receiver_signed(
    table: Table, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    receiver = receivers()
    ep = table.endpoint(receiver.url(), [feed.YOUR_TURN])
    start_lane()
    match = table.create()
    (first,) = receiver.wait_for(1)  # ann's turn, from the creation
    table.play(match)
    hits = receiver.wait_for(2)
    second = hits[1]
    for hit in (first, second):
        # The library's own verifier: id, timestamp (within its five minutes) and signature.
        assert Webhook(ep["secret"]).verify(hit.body, hit.headers) == hit.payload
        assert hit.id.startswith("msg_") and hit.headers["content-type"] == "application/json"
        assert hit.headers["user-agent"].startswith("Tabletop-Webhooks")
        assert abs(int(hit.headers["webhook-timestamp"]) - hit.at) < 5
    assert first.payload["type"] == second.payload["type"] == feed.YOUR_TURN
    assert first.payload["data"]["match_id"] == match and first.payload["data"]["player"] == "ann"
    assert second.payload["data"]["player"] == "bob" and second.payload["data"]["version"] == 1
    assert second.payload["data"]["my_turn"] is True
    with pytest.raises(Exception, match="signature"):
        Webhook(new_secret()).verify(second.body, second.headers)  # another secret does not verify

    # The delivery log says so, once the lane has recorded the answers (just after the receiver gave them).
    def delivered() -> list[dict[str, Any]]:
        return table.hooks.deliveries(table.app, ep["id"], status="delivered", before=None, limit=10)[0]

    receiver.wait(lambda: len(delivered()) == 2)
    docs = delivered()
    assert {d["id"] for d in docs} == {first.id, second.id}
    assert all(d["response_status"] == 204 and d["attempts"] == 1 and d["latency_ms"] > 0 for d in docs)


def test_a_match_s_notes_arrive_in_order_across_many_moves_and_retries(
    table: Table, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    """Per-match order with four deliveries in flight per endpoint, a receiver that takes a random
    while to answer, and one answer in ten a 500 (retried): each match's accepted notes are in the
    order of its commits, each once."""
    rng = random.Random(5)
    lock = threading.Lock()

    def flaky(hit: Hit) -> tuple[int, dict[str, str]]:
        with lock:
            pause, fail = rng.uniform(0, 0.03), rng.random() < 0.1
        time.sleep(pause)
        return (500, {}) if fail else (200, {})

    receiver = receivers(flaky)
    table.endpoint(receiver.url())
    start_lane()
    matches = [table.create(rounds=4) for _ in range(8)]
    while any([table.play(m) is not None for m in matches]):
        pass
    queued: dict[str, list[tuple[int, str, int]]] = {m: [] for m in matches}
    for player in ("ann", "bob"):
        for fed in table.matches.accounts.store.feed_after(f"{table.app}:{player}", "0-0"):
            e = fed.entry
            queued[e["match_id"]].append((e["version"], e["type"], e["seat"]))
    total = sum(len(v) for v in queued.values())
    assert total > 80
    hits = receiver.wait_for(total, timeout=60)
    assert len(hits) == total and len({h.id for h in hits}) == total  # each accepted once
    assert len(receiver.hits) > total  # and some were refused first, then retried
    for m in matches:
        got = [h.payload["data"] for h in hits if h.payload["data"]["match_id"] == m]
        versions = [d["version"] for d in got]
        assert versions == sorted(versions), f"match {m} out of order: {versions}"
        assert sorted((d["version"], d["type"], d["seat"]) for d in got) == sorted(queued[m])


# -- failures -------------------------------------------------------------------------------------


def test_a_failed_attempt_is_retried_with_the_same_id_and_a_fresh_signature(
    hooks: Webhooks, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    answers = iter([500, 500])
    receiver = receivers(lambda hit: (next(answers, 200), {}))
    ep = hooks.create("app1", receiver.url(), None, "")
    start_lane()
    hooks.enqueue("app1:ann", "m1", 1000, note("m1", 1))
    receiver.wait_for(1)
    tries = list(receiver.hits)
    assert len(tries) == 3 and len({h.id for h in tries}) == 1 and len({h.body for h in tries}) == 1
    for hit in tries:
        Webhook(ep["secret"]).verify(hit.body, hit.headers)
    gaps = [b.at - a.at for a, b in itertools.pairwise(tries)]
    assert all(g >= 0.9 for g in gaps), gaps  # a pause of at least FIRST_PAUSE between attempts
    receiver.wait(lambda: hooks.delivery("app1", ep["id"], tries[0].id)["status"] == "delivered")
    doc = hooks.delivery("app1", ep["id"], tries[0].id)
    assert doc["status"] == "delivered" and doc["attempts"] == 3 and doc["response_status"] == 200


def test_410_gone_disables_the_endpoint(
    hooks: Webhooks, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    receiver = receivers(lambda hit: (410, {}))
    ep = hooks.create("app1", receiver.url(), None, "")["id"]
    start_lane()
    hooks.enqueue("app1:ann", "m1", 1000, note("m1", 1))
    receiver.wait(lambda: hooks.endpoint("app1", ep)["status"] == "disabled")
    assert hooks.endpoint("app1", ep)["disabled_reason"] == GONE_REASON
    hooks.enqueue("app1:ann", "m2", 1000, note("m2", 1))
    time.sleep(1.0)  # a check that nothing happens: long enough for a lane that would send it
    assert len(receiver.hits) == 1


def test_retry_after_is_honoured(
    hooks: Webhooks, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    answers = iter([(503, {"Retry-After": "3"})])
    receiver = receivers(lambda hit: next(answers, (204, {})))
    hooks.create("app1", receiver.url(), None, "")
    start_lane()
    hooks.enqueue("app1:ann", "m1", 1000, note("m1", 1))
    receiver.wait_for(1)
    first, second = receiver.hits
    assert first.id == second.id
    assert second.at - first.at >= 2.9  # the jittered pause alone would be 1 to 3 s


def test_during_a_rotation_both_secrets_verify(
    hooks: Webhooks, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    receiver = receivers()
    made = hooks.create("app1", receiver.url(), None, "")
    rotated = hooks.rotate_secret("app1", made["id"])
    start_lane()
    hooks.enqueue("app1:ann", "m1", 1000, note("m1", 1))
    (hit,) = receiver.wait_for(1)
    assert len(hit.headers["webhook-signature"].split(" ")) == 2
    assert Webhook(made["secret"]).verify(hit.body, hit.headers) == hit.payload  # a receiver not yet switched
    assert Webhook(rotated["secret"]).verify(hit.body, hit.headers) == hit.payload  # one already switched


def test_a_hanging_receiver_does_not_delay_another_endpoint(
    hooks: Webhooks, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    """Twenty matches' notes queued for an endpoint whose receiver never answers in time (a 3-s
    timeout here), then twenty for a healthy one: the healthy ones arrive at once, far sooner than
    one timeout, while the hanging endpoint holds no more than its four deliveries in flight."""
    release = threading.Event()
    hanging: list[float] = []

    def hang(hit: Hit) -> tuple[int, dict[str, str]]:
        hanging.append(hit.at)
        release.wait(30)
        return 204, {}

    slow = receivers(hang)
    healthy = receivers()
    hooks.create("app1", slow.url("/slow"), None, "")
    hooks.create("app2", healthy.url("/ok"), None, "")
    start_lane(webhook_timeout_seconds=3.0)
    try:
        for n in range(20):
            hooks.enqueue("app1:ann", f"m{n}", 1000, note(f"m{n}", 1))
        slow.wait(lambda: len(slow.hits) >= 4)
        sent = {}
        for n in range(20):
            sent[f"m{n}"] = time.time()
            hooks.enqueue("app2:bob", f"m{n}", 1000, note(f"m{n}", 1))
        hits = healthy.wait_for(20)
        delays = [h.at - sent[h.payload["data"]["match_id"]] for h in hits]
        assert max(delays) < 1.5, delays  # were they behind the hanging ones, 3 s at least
        # Four in flight at the hanging receiver at most: the fifth attempt begins only once one of
        # the first four has given up (its 3-s timeout).
        slow.wait(lambda: len(slow.hits) >= 5, timeout=15)
        firsts = sorted(hanging)
        assert firsts[4] - firsts[0] >= 2.9, firsts
    finally:
        release.set()


# -- issue 42: catch-up, revocation ---------------------------------------------------------------


def test_when_the_receiver_answers_again_the_waiting_messages_follow_its_first_success(
    hooks: Webhooks, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    """Eight matches' notes meet a receiver answering 503 for 8 s (a day's retry window: pauses drawn
    up to an hour); once it answers 204, every waiting note arrives within a second of its first
    success (the catch-up), and the first success comes within a tenth of the outage and a bit (the
    probe), not when the pauses drawn end."""
    down_until = [time.time() + 8.0]

    def outage(hit: Hit) -> tuple[int, dict[str, str]]:
        return (503, {}) if hit.at < down_until[0] else (204, {})

    receiver = receivers(outage)
    hooks.create("app1", receiver.url(), None, "")
    start_lane(webhook_retry_seconds=24 * 3600.0)
    for n in range(8):
        hooks.enqueue("app1:ann", f"m{n}", 1000, note(f"m{n}", 1))
        hooks.enqueue("app1:ann", f"m{n}", 2000, note(f"m{n}", 2))
    hits = receiver.wait_for(16, timeout=8.0 + 20)
    back = down_until[0]
    first = min(h.at for h in hits)
    assert len(receiver.hits) > 16  # there were refusals, then the receiver answered again
    assert first - back < 0.1 * 8 + 2.0, first - back  # the probe: within ~1 s of its return
    assert max(h.at for h in hits) - first < 1.0, [round(h.at - first, 2) for h in hits]
    for n in range(8):
        versions = [h.payload["data"]["version"] for h in hits if h.payload["data"]["match_id"] == f"m{n}"]
        assert versions == [1, 2]


def test_nothing_is_sent_once_the_app_is_revoked_even_before_its_endpoints_are_disabled(
    table: Table, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    """The app's status alone is set to revoked (as if the revocation had not reached the endpoints,
    or an endpoint was created while it ran), moves going on: the lane's check before each send
    stops every delivery within its second of trust, and disables the endpoints itself."""
    receiver = receivers()
    ep = table.endpoint(receiver.url())
    start_lane()
    ids = [table.create() for _ in range(3)]
    for m in ids:
        table.play(m)
    receiver.wait_for(6)
    table.matches.accounts.store.update_app(table.app, status="revoked")
    revoked_at = time.time()
    made = 0
    while time.time() - revoked_at < 4:  # new matches and moves: notes queued after the revocation
        ids.append(table.create())
        made += 1
        for m in ids[-3:]:
            table.play(m)
        time.sleep(0.1)  # the pace of the moves after the revocation
    assert made > 10
    receiver.wait(lambda: table.hooks.endpoint(table.app, ep["id"])["status"] == "disabled")
    assert table.hooks.endpoint(table.app, ep["id"])["disabled_reason"] == APP_REVOKED
    late = [
        round(h.at - revoked_at, 2) for h in receiver.hits if h.at > revoked_at + SEND_CHECK_SECONDS + 0.5
    ]
    assert late == [], late
    pending = table.hooks.deliveries(table.app, ep["id"], status="pending", before=None, limit=100)[0]
    assert pending == []


def test_a_claimed_message_is_not_sent_if_its_app_was_revoked_or_its_endpoint_disabled_meanwhile(
    redis_client: redis.Redis, settings: Config, receivers: Callable[..., Receiver]
) -> None:
    """The check at send time, in the lane's own ``deliver``: a message claimed just before the app's
    revocation (or the endpoint's disabling) reaches no receiver."""
    statuses: dict[str, str] = {}
    hooks = Webhooks(WebhookStore(redis_client), settings, app_status=lambda app: statuses.get(app, "active"))
    one = lane.Lane(settings, webhooks=hooks)
    receiver = receivers()
    ep = hooks.create("app1", receiver.url(), None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note("m1", 1))
    hooks.enqueue("app1:ann", "m2", 1000, note("m2", 1))
    # Only this endpoint's: the Redis is the session's, and earlier tests may have left others due first.
    # A second ahead: queueing rounds its time to the millisecond, up as often as down, so a look at
    # ``time.time()`` just after could find the messages not due yet (claimed 0 of 2, once in CI).
    ahead = time.time() + 1.0
    due = [(member, score) for member, score in hooks.due(ahead, 100_000) if member.endswith(f"|{ep}")]
    claimed = [d for member, score in due for d in hooks.claim(member, score, ahead, 10)]
    assert len(claimed) == 2, due
    hooks.update("app1", ep, enabled=False)
    one.deliver(claimed[0])
    assert receiver.hits == [] and one.counts["held"] == 1
    assert hooks.delivery("app1", ep, claimed[0].id)["status"] == "pending"  # waits for the endpoint
    hooks.update("app1", ep, enabled=True)
    statuses["app1"] = "revoked"
    one.deliver(claimed[1])
    assert receiver.hits == [] and one.counts["held"] == 2
    assert hooks.endpoint("app1", ep)["disabled_reason"] == APP_REVOKED
    assert {d["status"] for d in hooks.deliveries("app1", ep, status=None, before=None, limit=10)[0]} == {
        "failed"
    }


# -- the lane process ------------------------------------------------------------------------------


def test_several_lanes_share_the_work_and_deliver_each_message_once(
    hooks: Webhooks, receivers: Callable[..., Receiver], start_lane: Callable[..., Any]
) -> None:
    receiver = receivers()
    for e in range(5):
        hooks.create("app1", receiver.url(f"/e{e}"), None, "")
    start_lane()
    start_lane()
    for n in range(60):
        hooks.enqueue("app1:ann", f"m{n}", 1000, note(f"m{n}", 1))
    hits = receiver.wait_for(300)
    assert len(hits) == 300 and len({h.id for h in hits}) == 300
    time.sleep(0.5)  # a check that nothing more comes: a duplicate would arrive within this
    assert len(receiver.hits) == 300


def test_the_lane_stops_with_the_worker_that_started_it(settings: Config) -> None:
    """Started by ``tabletop worker`` with ``--parent``: a worker killed outright (SIGKILL: no chance
    to stop its children) leaves no lane behind."""
    code = (
        "import os, sys, time\n"
        "from service.config import Config\n"
        "from workers import webhooks\n"
        "proc = webhooks.spawn(Config.from_env(), parent=os.getpid())\n"
        "print(proc.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    worker = subprocess.Popen(
        [sys.executable, "-c", code], env=lane.environment(settings), stdout=subprocess.PIPE
    )
    try:
        assert worker.stdout is not None
        pid = int(worker.stdout.readline())
        time.sleep(1.0)  # a check that it runs on while its worker lives
        assert running(pid)
        worker.kill()
        worker.wait()
        deadline = time.monotonic() + 10
        while running(pid):
            assert time.monotonic() < deadline, "the lane outlived its worker"
            time.sleep(0.05)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody reaped has stopped)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return False


def test_tabletop_worker_runs_the_lane_beside_its_bot_lanes(
    hooks: Webhooks, settings: Config, receivers: Callable[..., Receiver]
) -> None:
    """What production runs: ``tabletop worker`` starts the delivery lane as a child and stops it."""
    receiver = receivers()
    hooks.create("app1", receiver.url(), None, "")
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=lane.environment(settings))
    try:
        hooks.enqueue("app1:ann", "m1", 1000, note("m1", 1))
        receiver.wait_for(1, timeout=30)
        children = [p for p in _children(worker.pid) if "workers.webhooks" in _cmdline(p)]
        assert len(children) == 1
        worker.terminate()
        worker.wait(timeout=60)
        deadline = time.monotonic() + 10
        while running(children[0]):
            assert time.monotonic() < deadline, "the lane outlived its worker's shutdown"
            time.sleep(0.05)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def test_tabletop_workers_children_stop_with_it_when_it_is_killed(settings: Config) -> None:
    """``tabletop worker`` killed outright (SIGKILL: no chance to stop its children) leaves nothing
    behind: its forked bot lanes, the sweeper, the clock keeper and the delivery lane each see it gone
    and stop (a bot lane within its idle pop, LISTEN_SECONDS; the sweeper before its next sweep, made
    every 2 s here), rather than serve on unsupervised."""
    env = lane.environment(replace(settings, sweep_seconds=2))
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env)
    try:
        deadline = time.monotonic() + 30
        # a process per lane but the one it works itself, the sweeper, the keeper, the delivery lane
        while len(children := _children(worker.pid)) < len(LANES) + 2:
            assert time.monotonic() < deadline, f"tabletop worker started {children}"
            time.sleep(0.1)
        time.sleep(1.0)  # a check that they run on while their worker lives
        assert all(running(pid) for pid in children)
        worker.kill()
        worker.wait()
        deadline = time.monotonic() + 3 * LISTEN_SECONDS
        while alive := [pid for pid in children if running(pid)]:
            assert time.monotonic() < deadline, f"outlived their worker: {[_cmdline(p) for p in alive]}"
            time.sleep(0.1)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(c) for c in f.read().split()]


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return ""


def test_the_lane_waits_for_a_redis_that_is_not_there_yet(
    settings: Config, receivers: Callable[..., Receiver], tmp_path: Any
) -> None:
    """Redis away (restarted, failed over, not up yet): the lane waits with backoff, then delivers
    what Redis holds."""
    port = _free_port()
    url = f"redis://127.0.0.1:{port}"
    proc = lane.spawn(Config(**{**settings.__dict__, "redis_url": url}))
    server = None
    try:
        time.sleep(1.0)  # a check that it survives the refused connections
        assert proc.poll() is None
        server = subprocess.Popen(
            [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        receiver = receivers()
        hooks = Webhooks(WebhookStore(client), settings)
        hooks.create("app1", receiver.url(), None, "")
        hooks.enqueue("app1:ann", "m1", 1000, note("m1", 1))
        receiver.wait_for(1, timeout=20)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        if server is not None:
            server.terminate()
            server.wait(timeout=15)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_environment_carries_every_setting(settings: Config) -> None:
    env = lane.environment(settings)
    assert Config.from_env(env) == settings
