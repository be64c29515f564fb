"""Takebacks racing what else happens to a match (issue 47 point 3), with real processes: Redis, the API
under gunicorn (``tabletop serve``, two processes, so the racing requests really run at once) and a
``tabletop worker`` whose clock keeper plays timeouts.

Each race ends one way or the other, never half: the opponent's move against the acceptance (one lands,
the other is refused: 412 stale, or 409 ``other_player``); a request against the opponent's move; two
requests at once (one is ``open``); the clock running out on an open request (the timeout's decision
voids it) and an acceptance racing the deadline; chat messages while a request is answered (neither
disturbs the other).  Every match is then played to its end, and its log (takebacks replayed by the
engine) must give the stored result, and its record must replay."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from bench.api import Client
from devtools.private_redis import PrivateRedis
from engine.records import replay as replay_record
from engine.registry import GAMES
from engine.takeback import live_decisions
from engine.takeback import replay as replay_decisions
from tests.reliability.processes import ApiServer, WorkerProcess, bearer, call, kill_tree

pytestmark = pytest.mark.timeout(240)

#: The shortest registered game, whose steps nearly all can be taken back (only a round's start draws).
GAME, SEED = "year_of_dragon", 4711
ROUNDS = 5


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    logs = tmp_path_factory.mktemp("takebacks")
    with (
        PrivateRedis() as url,
        WorkerProcess(url, logs / "worker.log") as worker,  # starts while the API does
        ApiServer(url, logs / "api.log", workers=2, takeback_limit=100) as server,
    ):
        try:
            yield server
        finally:  # SIGKILL: nothing here checks how they stop, and a warm stop takes seconds
            for proc in (server.proc, worker.proc):
                if proc is not None:
                    kill_tree(proc)


class Match:
    """A two-player match driven over HTTP by its seats' tokens."""

    def __init__(self, api: ApiServer, **body: Any) -> None:
        self.api = api
        self.client = api.client()
        seats = [{"name": "ann"}, {"name": "bob"}]
        body = {"game": GAME, "seats": seats, "seed": SEED, **body}
        status, doc = call(self.client, "POST", "/v1/matches", body)
        assert status == 201, doc
        self.id: str = doc["id"]
        self.tokens = {t["seat"]: t["token"] for t in doc["tokens"]}

    def get(self, suffix: str = "", seat: int | None = None, client: Client | None = None) -> Any:
        headers = bearer(self.tokens[seat]) if seat is not None else {}
        status, doc = call(client or self.client, "GET", f"/v1/matches/{self.id}{suffix}", **headers)
        assert status == 200, (suffix, status, doc)
        return doc

    def post(
        self, suffix: str, seat: int, body: Any = None, client: Client | None = None, **headers: str
    ) -> tuple[int, Any]:
        url = f"/v1/matches/{self.id}{suffix}"
        return call(client or self.client, "POST", url, body, **bearer(self.tokens[seat]), **headers)

    def move(self, seat: int, version: int, client: Client | None = None) -> tuple[int, Any]:
        """``seat``'s first legal action at ``version`` (as read now)."""
        return self.mover(seat, version, client)()

    def mover(self, seat: int, version: int, client: Client | None = None) -> Callable[[], tuple[int, Any]]:
        """The request of ``seat``'s first legal action (as read now) based on ``version``, to send."""
        action = self.get("/legal-actions", seat, client)["actions"][0]
        headers = {"If-Match": f'"{version}"'}
        return partial(self.post, "/actions", seat, {"action": action}, client, **headers)

    def to_a_takeback(self) -> tuple[int, dict[str, Any]]:
        """Play on until a seat's latest decision can be taken back and the other seat is to decide: that
        seat and the match as it stands."""
        for _ in range(300):
            doc = self.get()
            assert doc["status"] == "active", doc["status"]
            seat = doc["to_move"]
            status, reply = self.move(seat, doc["version"])
            if status != 200:  # a clock's timeout was quicker (409 out_of_time, or 412): read again
                assert status in (409, 412), reply
                continue
            if reply["to_move"] not in (seat, None) and self.get("/takebacks", seat)["undoable"] >= 1:
                return seat, self.get()
        raise AssertionError("no decision could be taken back")

    def play_out(self) -> dict[str, Any]:
        while (doc := self.get())["status"] == "active":
            status, reply = self.move(doc["to_move"], doc["version"])
            assert status in (200, 409, 412), reply  # 409: a clock's timeout may land first
        return doc

    def verify(self) -> None:
        """The log, its takebacks replayed, gives the stored result; the record replays in the engine."""
        doc = self.play_out()
        log = self.get("/log")
        assert log["complete"]
        game = GAMES[GAME]
        live = live_decisions(log["entries"])
        state = replay_decisions(game, 2, log["options"], log["seed"], live)
        result = game.result(state)
        assert result is not None and result["scores"] == doc["result"]["scores"]
        assert sum(s["decisions"] for s in doc["seats"]) == len(live)
        replay_record(self.get("/record"))


def race(*calls: Callable[[], tuple[int, Any]]) -> list[tuple[int, Any]]:
    """Run ``calls`` at once (a barrier, then each its own connection) and return their answers."""
    start = threading.Barrier(len(calls))
    answers: list[tuple[int, Any]] = [(0, None)] * len(calls)

    def run(i: int) -> None:
        start.wait()
        answers[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def reason(answer: tuple[int, Any]) -> str | None:
    status, body = answer
    return body["details"]["reason"] if status == 409 and body["code"] == "takeback_refused" else None


def test_the_opponents_move_a_second_request_and_chat_race_a_takeback(api: ApiServer) -> None:
    match = Match(api)
    clients = [api.client() for _ in range(3)]
    outcomes: Counter[str] = Counter()
    for _ in range(ROUNDS):  # the opponent's move against its own acceptance (two tabs)
        seat, doc = match.to_a_takeback()
        other = 1 - seat
        status, request = match.post("/takebacks", seat)
        assert status == 201 and request["status"] == "open", request
        version = request["match_version"]
        moved, accepted = race(
            match.mover(other, version, clients[0]),
            partial(match.post, f"/takebacks/{request['id']}/accept", other, client=clients[1]),
        )
        after = match.get()
        if accepted[0] == 200:
            assert moved[0] == 412, moved  # the acceptance moved the version on first
            assert after["to_move"] == seat and after["version"] == version + 1
            outcomes["accepted first"] += 1
        else:
            assert moved[0] == 200 and reason(accepted) == "other_player", (moved, accepted)
            assert match.get("/takebacks")["takebacks"][-1]["status"] == "void"
            outcomes["moved first"] += 1
    for _ in range(ROUNDS):  # a request against the opponent's move, and a second request at once
        seat, doc = match.to_a_takeback()
        asked, again, moved = race(
            partial(match.post, "/takebacks", seat, client=clients[0]),
            partial(match.post, "/takebacks", seat, client=clients[1]),
            match.mover(1 - seat, doc["version"], clients[2]),
        )
        made = [a for a in (asked, again) if a[0] == 201]
        if moved[0] == 200:  # the move first: both requests come after another seat's decision
            assert not made and {reason(asked), reason(again)} <= {"other_player", "open"}, (asked, again)
        else:
            assert moved[0] == 412 and len(made) == 1, (asked, again, moved)
            assert {reason(a) for a in (asked, again) if a[0] != 201} == {"open"}
            match.post(f"/takebacks/{made[0][1]['id']}/decline", 1 - seat)
        outcomes["requested first" if moved[0] != 200 else "moved before the requests"] += 1
    # Chat while a request is answered: messages neither void nor block it.
    seat, doc = match.to_a_takeback()
    status, request = match.post("/takebacks", seat)
    assert status == 201, request
    answers = race(
        partial(match.post, "/chat", seat, {"channel": "players", "text": "sorry, misclick"}, clients[0]),
        partial(match.post, "/chat", 1 - seat, {"channel": "players", "text": "no problem"}, clients[1]),
        partial(match.post, f"/takebacks/{request['id']}/accept", 1 - seat, client=clients[2]),
    )
    assert [a[0] for a in answers[:2]] == [201, 201] and answers[2][0] == 200, answers
    assert match.get()["to_move"] == seat
    print(f"takeback races: {dict(outcomes)}")
    match.verify()


def test_the_clock_runs_out_on_an_open_request(api: ApiServer) -> None:
    match = Match(api, time_control={"per_move_seconds": 2, "on_timeout": "random", "max_timeouts": 5})
    seat, doc = match.to_a_takeback()
    status, request = match.post("/takebacks", seat)
    assert status == 201 and request["expires_at"] == doc["clock"]["deadline"], (request, doc["clock"])
    # Nobody answers: the worker's keeper plays the opponent's timeout, which voids the request.
    deadline, timeouts = time.monotonic() + 30, doc["clock"]["timeouts"][1 - seat]
    while match.get()["clock"]["timeouts"][1 - seat] == timeouts:
        assert time.monotonic() < deadline, "the timeout was never played"
        time.sleep(0.1)
    listed = match.get("/takebacks", seat)
    assert listed["open"] is None and listed["takebacks"][-1]["status"] == "void"
    assert reason(match.post(f"/takebacks/{request['id']}/accept", 1 - seat)) == "other_player"
    # An acceptance racing the deadline: before it the takeback happens, after it the timeout's decision
    # stands and the answer is refused; never both, never neither.
    seat, doc = match.to_a_takeback()
    status, request = match.post("/takebacks", seat)
    assert status == 201, request
    time.sleep(max(0.0, request["expires_at"] - time.time() - 0.02))
    accepted = match.post(f"/takebacks/{request['id']}/accept", 1 - seat)
    after = match.get()
    if accepted[0] == 200:
        assert after["to_move"] == seat
    else:
        assert reason(accepted) in ("closed", "other_player"), accepted
    match.verify()
