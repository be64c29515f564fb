"""Challenges to named players (issue 27 point 4): a player challenges others of its app; each is told
on its feed (``challenge_received``), accepts or declines; the match starts when all accept; unanswered,
the challenge expires.  Also who may see and answer one, races between answers, and the sweep settling
what a dead process left.  Against a real Redis, through the HTTP API; the domain's clock is the test's
and the workers' sweep is called directly (:meth:`service.domain.matchmaking.challenges.Challenges.sweep`)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.domain.feeds import feed
from service.domain.matchmaking.challenges import Challenges
from tests.service.conftest import bearer
from tests.service.test_accounts import put_player, token_for
from tests.service.test_seeks import GAME, T0, Lobby, app  # noqa: F401  (the app fixture)


class Arena(Lobby):
    """A :class:`Lobby` that challenges."""

    def __init__(self, client: FlaskClient, **kw: Any) -> None:
        super().__init__(client, **kw)
        self.challenges: Challenges = self.svc.challenges

    def challenge(self, pid: str, players: list[str], **body: Any) -> Any:
        body = {"game": GAME, "players": players, **body}
        return self.client.post("/v1/challenges", json=body, headers=self.as_(pid))

    def made(self, pid: str, players: list[str], **body: Any) -> dict[str, Any]:
        resp = self.challenge(pid, players, **body)
        assert resp.status_code == 201, resp.json
        return dict(resp.json)

    def answer(self, pid: str, challenge_id: str, answer: str) -> Any:
        return self.client.post(f"/v1/challenges/{challenge_id}/{answer}", headers=self.as_(pid))

    def read(self, challenge_id: str, pid: str = "ann") -> dict[str, Any]:
        resp = self.client.get(f"/v1/challenges/{challenge_id}", headers=self.as_(pid))
        assert resp.status_code == 200, resp.json
        return dict(resp.json)

    def told(self, pid: str, challenge_id: str) -> list[dict[str, Any]]:
        return [e for e in self.feed(pid) if e.get("challenge_id") == challenge_id]

    def expire(self, seconds: float) -> Any:
        self.clock.now += seconds
        return self.challenges.sweep(self.clock.now)


@pytest.fixture
def arena(client: FlaskClient) -> Arena:
    return Arena(client)


def test_a_challenge_is_made_and_each_challenged_player_told(arena: Arena) -> None:
    made = arena.made("ann", ["bob", "cid"], options={"rounds": 1}, time_control={"per_move_seconds": 300})
    assert made["status"] == "open" and made["match_id"] is None
    assert made["players"] == 3 and made["options"] == {"rounds": 1, "swaps": True}
    assert made["challenger"] == {"id": "ann", "name": "Ann"}
    assert made["challenged"] == [
        {"id": "bob", "name": "Bob", "answer": "pending"},
        {"id": "cid", "name": "Cid", "answer": "pending"},
    ]
    assert made["time_control"]["per_move_seconds"] == 300 and made["order"] == "random"
    assert made["expires_at"] == T0 + arena.svc.config.challenge_seconds
    for pid in ("bob", "cid"):
        [entry] = arena.told(pid, made["id"])
        assert entry == {
            "id": entry["id"],
            "type": feed.CHALLENGE_RECEIVED,
            "challenge_id": made["id"],
            "match_id": None,
            "game": GAME,
            "players": 3,
            "challenger": {"id": "ann", "name": "Ann"},
            "expires_at": made["expires_at"],
        }
    assert arena.told("ann", made["id"]) == []  # the challenger knows
    assert arena.read(made["id"], "cid") == made


@pytest.mark.parametrize(
    ("players", "body", "field"),
    [
        (["zed"], {}, "players.0"),
        (["ann"], {}, "players.0"),
        (["bob", "bob"], {}, "players.1"),
        (["bob", "cid", "dan", "eve"], {}, "players"),  # 5 players: High Card takes 2-4
        (["bob"], {"game": "china"}, "players"),  # China takes 3-5
        (["bob"], {"game": "nope"}, "game"),
        (["bob"], {"options": {"rounds": 7}}, "options.rounds"),
        (["bob"], {"expires_in": 0}, "expires_in"),
        (["bob"], {"order": "alphabetical"}, "order"),
        ([], {}, "players"),
    ],
)
def test_bad_challenges_are_422_naming_the_field(
    arena: Arena, players: list[str], body: dict[str, Any], field: str
) -> None:
    resp = arena.challenge("ann", players, **body)
    assert resp.status_code == 422, resp.json
    assert resp.json["details"]["field"] == field


def test_who_may_challenge(arena: Arena, client: FlaskClient) -> None:
    body = {"game": GAME, "players": ["bob"]}
    assert client.post("/v1/challenges", json=body).status_code == 401
    reader = token_for(client, arena.key, "ann", scopes=["read"])
    assert client.post("/v1/challenges", json=body, headers=bearer(reader)).status_code == 403
    as_app = client.post("/v1/challenges", json={**body, "player": "ann"}, headers=bearer(arena.key))
    assert as_app.status_code == 201 and as_app.json["challenger"]["id"] == "ann"
    assert client.post("/v1/challenges", json=body, headers=bearer(arena.key)).status_code == 422


def test_the_last_accept_starts_the_match_and_everyone_is_told(arena: Arena) -> None:
    made = arena.made("ann", ["bob", "cid"], rated=True)
    first = arena.answer("bob", made["id"], "accept")
    assert first.status_code == 200 and first.json["status"] == "open"
    assert first.json["challenged"][0]["answer"] == "accepted"
    assert arena.client.get(f"/v1/matches/{made['id']}", headers=arena.as_("bob")).status_code == 404
    last = arena.answer("cid", made["id"], "accept")
    assert last.status_code == 200 and last.json["status"] == "accepted"
    match_id = last.json["match_id"]
    assert match_id == made["id"]  # the challenge's id: made once however often asked
    match = arena.match(match_id, "ann")
    assert match["status"] == "active" and match["visibility"] == "private"
    assert sorted(s["name"] for s in match["seats"]) == ["Ann", "Bob", "Cid"]
    for pid in ("ann", "bob", "cid"):
        outcome = [e for e in arena.told(pid, made["id"]) if e["type"] == feed.CHALLENGE_ACCEPTED]
        assert outcome == [
            {
                "id": outcome[0]["id"],
                "type": feed.CHALLENGE_ACCEPTED,
                "challenge_id": made["id"],
                "match_id": match_id,
                "game": GAME,
                "players": 3,
            }
        ]
        assert any(e["type"] == feed.INVITED and e["match_id"] == match_id for e in arena.feed(pid))
    again = arena.answer("cid", made["id"], "accept")  # a retry: as it was, no second match
    assert again.status_code == 200 and again.json["status"] == "accepted"
    changed_mind = arena.answer("bob", made["id"], "decline")
    assert changed_mind.status_code == 409 and changed_mind.json["code"] == "challenge_closed"
    assert changed_mind.json["details"]["status"] == "accepted"
    assert [
        m["id"] for m in arena.client.get("/v1/me/matches", headers=arena.as_("cid")).json["matches"]
    ] == [match_id]


def test_seat_order_given_or_random(arena: Arena) -> None:
    given = arena.made("ann", ["cid", "bob"], order="given")
    for pid in ("cid", "bob"):
        arena.answer(pid, given["id"], "accept")
    assert [s["name"] for s in arena.match(given["id"], "ann")["seats"]] == ["Ann", "Cid", "Bob"]
    firsts = set()
    for _ in range(20):
        made = arena.made("ann", ["bob"])
        arena.answer("bob", made["id"], "accept")
        firsts.add(arena.match(made["id"], "ann")["seats"][0]["name"])
    assert firsts == {"Ann", "Bob"}  # 2^-19 to fail by chance


def test_one_decline_ends_it_for_everyone(arena: Arena) -> None:
    made = arena.made("ann", ["bob", "cid"])
    assert arena.answer("bob", made["id"], "accept").status_code == 200
    assert arena.answer("bob", made["id"], "accept").status_code == 200  # a retry
    changed_mind = arena.answer("bob", made["id"], "decline")
    assert changed_mind.status_code == 409 and changed_mind.json["code"] == "already_answered"
    declined = arena.answer("cid", made["id"], "decline")
    assert declined.status_code == 200 and declined.json["status"] == "declined"
    assert declined.json["declined_by"] == "cid" and declined.json["match_id"] is None
    for pid in ("ann", "bob"):
        [entry] = [e for e in arena.told(pid, made["id"]) if e["type"] == feed.CHALLENGE_DECLINED]
        assert entry["declined_by"] == "cid" and entry["reason"] == "declined" and entry["match_id"] is None
    assert [e["type"] for e in arena.told("cid", made["id"])] == [feed.CHALLENGE_RECEIVED]  # cid knows
    late = arena.answer("bob", made["id"], "decline")
    assert late.status_code == 409 and late.json["code"] == "challenge_closed"
    assert late.json["details"]["status"] == "declined"
    assert arena.answer("cid", made["id"], "decline").status_code == 200  # a retry
    assert arena.client.get(f"/v1/matches/{made['id']}", headers=arena.as_("ann")).status_code == 404


def test_the_challenger_cancels_an_open_challenge(arena: Arena) -> None:
    made = arena.made("ann", ["bob"])
    url = f"/v1/challenges/{made['id']}"
    refused = arena.client.delete(url, headers=arena.as_("bob"))
    assert refused.status_code == 403 and refused.json["code"] == "not_your_challenge"
    done = arena.client.delete(url, headers=arena.as_("ann"))
    assert done.status_code == 200 and done.json["status"] == "cancelled"
    [entry] = [e for e in arena.told("bob", made["id"]) if e["type"] == feed.CHALLENGE_DECLINED]
    assert entry["reason"] == "cancelled" and entry["declined_by"] == "ann"
    assert arena.told("ann", made["id"]) == []
    late = arena.answer("bob", made["id"], "accept")
    assert late.status_code == 409 and late.json["details"]["status"] == "cancelled"
    assert arena.client.delete(url, headers=bearer(arena.key)).status_code == 409
    by_app = arena.made("ann", ["bob"])
    assert arena.client.delete(f"/v1/challenges/{by_app['id']}", headers=bearer(arena.key)).status_code == 200


def test_the_challenger_answers_nothing(arena: Arena) -> None:
    made = arena.made("ann", ["bob"])
    resp = arena.answer("ann", made["id"], "accept")
    assert resp.status_code == 403 and resp.json["code"] == "not_challenged"


def test_an_unanswered_challenge_expires_and_everyone_is_told(arena: Arena) -> None:
    made = arena.made("ann", ["bob", "cid"], expires_in=60)
    arena.answer("bob", made["id"], "accept")
    assert arena.expire(59).expired == 0
    arena.clock.now += 1
    late = arena.answer("cid", made["id"], "accept")  # the deadline passed: refused, swept or not
    assert late.status_code == 409 and late.json["details"]["status"] == "expired"
    assert arena.expire(0).expired == 1
    assert arena.read(made["id"])["status"] == "expired"
    for pid in ("ann", "bob", "cid"):
        [entry] = [e for e in arena.told(pid, made["id"]) if e["type"] == feed.CHALLENGE_EXPIRED]
        assert entry["match_id"] is None and entry["players"] == 3
    assert arena.expire(1).expired == 0  # once
    assert arena.client.get(f"/v1/matches/{made['id']}", headers=arena.as_("ann")).status_code == 404


def test_only_its_players_and_its_app_see_a_challenge(arena: Arena, client: FlaskClient) -> None:
    made = arena.made("ann", ["bob"])
    url = f"/v1/challenges/{made['id']}"
    assert client.get(url, headers=bearer(arena.key)).status_code == 200
    assert client.get(url, headers=arena.as_("cid")).status_code == 404  # same app, not in it
    assert arena.answer("cid", made["id"], "accept").status_code == 404
    assert client.delete(url, headers=arena.as_("cid")).status_code == 404
    assert client.get(url).status_code == 401
    other = Arena(client, name="other")
    for headers in (other.as_("ann"), other.as_("bob"), bearer(other.key)):
        assert client.get(url, headers=headers).status_code == 404
        assert client.post(f"{url}/accept", headers=headers).status_code in (404, 422)
        assert client.delete(url, headers=headers).status_code == 404
    assert client.get("/v1/challenges/nope", headers=arena.as_("ann")).status_code == 404


def test_a_players_challenges_sent_and_received(arena: Arena, client: FlaskClient) -> None:
    sent = arena.made("ann", ["bob"])
    arena.clock.now += 1
    received = arena.made("cid", ["ann", "dan"])
    arena.clock.now += 1
    arena.made("bob", ["cid"])  # not ann's
    arena.answer("bob", sent["id"], "decline")
    listed = client.get("/v1/challenges", headers=arena.as_("ann")).json["challenges"]
    assert [c["id"] for c in listed] == [received["id"], sent["id"]]
    open_ = client.get("/v1/challenges?status=open", headers=arena.as_("ann")).json["challenges"]
    assert [c["id"] for c in open_] == [received["id"]]
    as_app = client.get("/v1/challenges?player=dan&limit=1", headers=bearer(arena.key)).json["challenges"]
    assert [c["id"] for c in as_app] == [received["id"]]
    assert client.get("/v1/challenges", headers=bearer(arena.key)).status_code == 422
    assert client.get("/v1/challenges").status_code == 401


def test_two_last_accepts_at_once_make_one_match(arena: Arena) -> None:
    for _ in range(5):
        made = arena.made("ann", ["bob", "cid"])
        answers: dict[str, Any] = {}
        gate = threading.Barrier(2)

        def accept(
            pid: str, challenge_id: str = made["id"], gate: Any = gate, answers: dict[str, Any] = answers
        ) -> None:
            client = arena.client.application.test_client()
            gate.wait()
            answers[pid] = client.post(f"/v1/challenges/{challenge_id}/accept", headers=arena.as_(pid))

        threads = [threading.Thread(target=accept, args=(pid,)) for pid in ("bob", "cid")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert {r.status_code for r in answers.values()} == {200}
        assert arena.read(made["id"])["status"] == "accepted"
        assert arena.match(made["id"], "bob")["status"] == "active"
        for pid in ("ann", "bob", "cid"):
            kinds = [e["type"] for e in arena.told(pid, made["id"])]
            assert kinds.count(feed.CHALLENGE_ACCEPTED) == 1


def test_a_decline_racing_the_last_accept_leaves_one_outcome(arena: Arena) -> None:
    for _ in range(5):
        made = arena.made("ann", ["bob", "cid"])
        arena.answer("bob", made["id"], "accept")
        gate = threading.Barrier(2)
        answers: dict[str, Any] = {}

        def act(
            who: str, how: str, challenge_id: str = made["id"], gate: Any = gate, answers: Any = answers
        ) -> None:
            client = arena.client.application.test_client()
            gate.wait()
            if how == "cancel":
                answers[how] = client.delete(f"/v1/challenges/{challenge_id}", headers=arena.as_(who))
            else:
                answers[how] = client.post(f"/v1/challenges/{challenge_id}/{how}", headers=arena.as_(who))

        threads = [threading.Thread(target=act, args=a) for a in (("cid", "accept"), ("ann", "cancel"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        status = arena.read(made["id"])["status"]
        assert status in ("accepted", "cancelled")
        winner = "accept" if status == "accepted" else "cancel"
        loser = "cancel" if winner == "accept" else "accept"
        assert answers[winner].status_code == 200 and answers[loser].status_code == 409
        exists = arena.client.get(f"/v1/matches/{made['id']}", headers=arena.as_("ann")).status_code
        assert exists == (200 if status == "accepted" else 404)


def _lost_redis(app_id: str, challenge_id: str) -> None:
    raise redis.ConnectionError("redis went away")


def test_the_sweep_settles_what_a_dead_process_left(arena: Arena) -> None:
    """The last accept's process dies after the answer's script and before the match (its steps, run
    here by hand): the sweep makes the match and tells everyone, once, after the grace."""
    made = arena.made("ann", ["bob"])
    store, app_id = arena.challenges.store, arena.app["id"]
    store.mark_todo(app_id, made["id"], arena.clock.now)
    assert store.answer(app_id, made["id"], "bob", "accepted", arena.clock.now) == ["complete"]
    assert arena.read(made["id"])["status"] == "accepted"
    assert arena.client.get(f"/v1/matches/{made['id']}", headers=arena.as_("bob")).status_code == 404
    assert arena.expire(1).settled == 0  # the grace: the answering process's to settle
    assert arena.expire(2).settled == 1
    assert arena.match(made["id"], "bob")["status"] == "active"
    assert arena.expire(2).settled == 0
    arena.challenges.settle(app_id, made["id"])  # a second settle: nothing new
    for pid in ("ann", "bob"):
        assert [e["type"] for e in arena.told(pid, made["id"])].count(feed.CHALLENGE_ACCEPTED) == 1


def test_a_redis_error_after_a_change_leaves_its_effects_to_the_sweep(arena: Arena) -> None:
    settle = arena.challenges.settle
    arena.challenges.settle = _lost_redis  # type: ignore[method-assign]
    try:
        made = arena.made("ann", ["bob"])
    finally:
        arena.challenges.settle = settle  # type: ignore[method-assign]
    assert made["status"] == "open"  # the challenge stands
    assert arena.told("bob", made["id"]) == []
    assert arena.expire(3).settled == 1
    assert [e["type"] for e in arena.told("bob", made["id"])] == [feed.CHALLENGE_RECEIVED]


def test_bot_players_may_be_challenged(client: FlaskClient) -> None:
    arena = Arena(client, people=("ann",), bots=("robo",))
    assert put_player(client, arena.key, "robo", bot=True).status_code == 200
    made = arena.made("ann", ["robo"])
    assert arena.answer("robo", made["id"], "accept").json["status"] == "accepted"
