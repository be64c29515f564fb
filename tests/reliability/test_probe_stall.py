"""A Redis stall while an orchestrator probes ``/readyz`` every second (issue 23, finding 1).

``/readyz`` reads the bot workers' heartbeats.  It used to build ``rq.Worker`` objects on the API's
connection, and RQ's worker constructor raises that connection pool's socket timeout to minutes: after
one probe, a stalled Redis hung every request instead of answering 503 within about a second.  Here the
production stack runs (``tabletop serve``, a ``tabletop worker``, a real redis-server); the probe runs
as an orchestrator's would, then Redis is stopped with SIGSTOP and every endpoint is asked at once (more
requests than the pool holds connections, so some run on connections made after the probes).
"""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.processes import ROOT, ApiServer, RedisServer, bearer, create_match, kill_tree

CHINA = [{"name": "a"}, {"name": "b"}, {"name": "c"}]
#: What the issue's target allows between a request and its 503 during a stall.
ANSWER_WITHIN = 2.0
#: The client gives up well after that, so a hang shows as a long time, not a test that never ends.
CLIENT_TIMEOUT = 8.0


class Answer:
    """A response as the test needs it: status (0: no answer), headers, JSON body, seconds taken."""

    def __init__(self, status: int, headers: dict[str, str], body: Any, seconds: float) -> None:
        self.status, self.headers, self.body, self.seconds = status, headers, body, seconds

    def __repr__(self) -> str:
        return f"Answer({self.status}, {self.seconds:.2f} s, {self.body!r})"


def ask(port: int, method: str, path: str, body: Any = None, **headers: str) -> Answer:
    """One request on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CLIENT_TIMEOUT)
    started = time.monotonic()
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **headers})
        resp = conn.getresponse()
        raw = resp.read()
        parsed = (
            json.loads(raw)
            if raw and resp.getheader("Content-Type", "").startswith("application/json")
            else raw
        )
        return Answer(resp.status, dict(resp.getheaders()), parsed, time.monotonic() - started)
    except OSError as exc:  # the client's timeout: the server hung
        return Answer(0, {}, repr(exc), time.monotonic() - started)
    finally:
        conn.close()


class Prober:
    """``GET /readyz`` every second, as a Kubernetes readiness probe does, keeping every answer."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.answers: list[tuple[float, Answer]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.done.is_set():
            started = time.monotonic()
            self.answers.append((started, ask(self.port, "GET", "/readyz")))
            self.done.wait(max(0.0, 1.0 - (time.monotonic() - started)))

    def wait_for(self, count: int, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.answers) < count:
            assert time.monotonic() < deadline, f"only {len(self.answers)} probes in {timeout} s"
            time.sleep(0.05)

    def stop(self) -> None:
        self.done.set()
        self.thread.join(timeout=CLIENT_TIMEOUT + 2)


def eventually(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[RedisServer, ApiServer]]:
    """Redis, ``tabletop serve`` whose readiness needs a live bot worker, and one worker (quick lane)."""
    with RedisServer(tmp_path / "redis") as redis_server:
        api = ApiServer(redis_server.url, tmp_path / "api.log", workers=1, ready_needs_workers=True)
        with api, (tmp_path / "worker.log").open("ab") as log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker", "--lanes", "quick"],
                env=api.env, cwd=ROOT, stdout=log, stderr=log,
            )  # fmt: skip
            try:
                eventually(
                    lambda: ask(api.port, "GET", "/readyz").status == 200, 30, "the worker never got live"
                )
                yield redis_server, api
            finally:
                assert redis_server.proc is not None
                redis_server.proc.send_signal(signal.SIGCONT)  # whatever failed, let everything stop
                kill_tree(worker)  # not a warm stop: it takes seconds, and no test here checks it


def test_with_readyz_probed_every_second_a_redis_stall_is_a_503_with_retry_after_within_2_s(stack):
    redis_server, api = stack
    assert redis_server.proc is not None
    match = create_match(api.client(), "china", CHINA)
    mid, seat = match["id"], match["to_move"]
    auth = bearer(next(t["token"] for t in match["tokens"] if t["seat"] == seat))
    action = ask(api.port, "GET", f"/v1/matches/{mid}/legal-actions", **auth).body["actions"][0]
    prober = Prober(api.port)
    prober.thread.start()
    try:
        prober.wait_for(3)  # the probes read the worker's heartbeat several times
        assert all(answer.status == 200 for _, answer in prober.answers), prober.answers
        requests: list[tuple[str, str, Any, dict[str, str]]] = [
            ("POST", f"/v1/matches/{mid}/actions", {"action": action}, {**auth, "If-Match": '"0"'}),
            ("GET", f"/v1/matches/{mid}", None, {}),
            ("GET", f"/v1/matches/{mid}/legal-actions", None, auth),
            ("GET", f"/v1/matches/{mid}/events?after=0-1&wait=5", None, {}),
            ("GET", f"/v1/matches/{mid}/events", None, {"Accept": "application/x-ndjson"}),
            ("GET", "/v1/matches", None, {}),
            ("GET", "/readyz", None, {}),
            ("GET", "/metrics", None, {}),
        ] * 2
        stalled_at = time.monotonic()
        redis_server.proc.send_signal(signal.SIGSTOP)
        with ThreadPoolExecutor(len(requests)) as pool:
            answers = list(pool.map(lambda r: ask(api.port, r[0], r[1], r[2], **r[3]), requests))
            healthz = ask(api.port, "GET", "/healthz")
        prober.wait_for(len(prober.answers) + 2)  # probes during the stall too
        redis_server.proc.send_signal(signal.SIGCONT)
        for (method, path, _, _), answer in zip(requests, answers, strict=True):
            assert answer.status == 503, (method, path, answer)
            assert answer.seconds < ANSWER_WITHIN, (method, path, answer)
            assert answer.headers.get("Retry-After") == "1", (method, path, answer.headers)
            assert answer.body["code"] == "unavailable", (method, path, answer)
        assert healthz.status == 200 and healthz.seconds < 0.5, healthz
        probes_in_stall = [a for t, a in prober.answers if t >= stalled_at]
        assert probes_in_stall and all(
            a.status == 503 and a.seconds < ANSWER_WITHIN and a.headers.get("Retry-After") == "1"
            for a in probes_in_stall
        ), probes_in_stall
    finally:
        prober.stop()
        redis_server.proc.send_signal(signal.SIGCONT)

    eventually(lambda: ask(api.port, "GET", "/readyz").status == 200, 15, "not ready after SIGCONT")
    assert ask(api.port, "GET", f"/v1/matches/{mid}").body["version"] == 0  # the refused move left nothing
    moved = ask(
        api.port, "POST", f"/v1/matches/{mid}/actions", {"action": action}, **auth, **{"If-Match": '"0"'}
    )
    assert moved.status == 200 and moved.body["version"] == 1, moved
    assert ask(api.port, "GET", "/metrics").status == 200
    events = ask(api.port, "GET", f"/v1/matches/{mid}/events?after=0-1&wait=1")
    assert events.status == 200 and [e["id"] for e in events.body["events"]][:1] == ["1-1"], events
