"""``Idempotency-Key`` on every request that creates something (issue 42 point 3): matches,
tournaments, seeks, challenges, webhook endpoints, player tokens and apps, through the one mechanism of
:mod:`service.domain.idempotency` and its hook :mod:`service.http.idempotency`.

What a client whose connection dropped mid-request relies on: the same key, caller and body replay the
first answer byte for byte (201 and the same id) and create nothing; another body under the key is 422
naming ``Idempotency-Key``; duplicates racing the first never create twice; a refusal frees the key;
one caller's key is not another's.  And what an operator relies on: the answers (tokens, secrets, keys)
are not in Redis in clear.  Against a real Redis through the app, as an integrator calls it."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.idempotency import Answer, Claim, Idempotency, seal, unseal
from service.http.api.idempotency import EXTENSION, _request_bytes
from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend

HEADER = "Idempotency-Key"
KEEP_S = 600


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    config = make_config(
        redis_url,
        admin_token=ADMIN,
        webhook_allow_http=True,
        webhook_allow_private=True,
        idempotency_seconds=KEEP_S,
    )
    return create_app(config, games=TEST_GAMES)


@pytest.fixture
def backend(client: FlaskClient) -> Backend:
    return Backend(client, "alpha")


@dataclass(frozen=True)
class Creation:
    """One creating request: where, with which body, as whom; the field of its answer naming what it
    made, and the fields holding secrets shown once."""

    path: str
    body: dict[str, Any]
    who: Callable[[Backend], dict[str, str]]
    other_body: dict[str, Any]
    secrets: tuple[str, ...] = ()
    made: str = "id"


CREATIONS = {
    "match": Creation(
        "/v1/matches",
        {"game": "high_card", "seats": [{"player": "ann"}, {"player": "bob"}], "seed": 3},
        lambda b: bearer(b.key),
        {"game": "high_card", "seats": [{"player": "bob"}, {"player": "ann"}], "seed": 3},
    ),
    "anonymous match": Creation(
        "/v1/matches",
        {"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}], "seed": 4},
        lambda b: {},
        {"game": "high_card", "seats": [{"name": "a"}, {"name": "c"}], "seed": 4},
        secrets=("tokens", "creator_token"),
    ),
    "tournament": Creation(
        "/v1/tournaments",
        {"game": "high_card", "players": 2, "entrants": [{"player": "ann"}, {"level": "easy"}]},
        lambda b: bearer(b.key),
        {"game": "high_card", "players": 2, "entrants": [{"player": "bob"}, {"level": "easy"}]},
    ),
    "seek": Creation(
        "/v1/seeks",
        {"game": "high_card", "players": 2},
        lambda b: b.as_("ann"),
        {"game": "high_card", "players": 3},
    ),
    "challenge": Creation(
        "/v1/challenges",
        {"game": "high_card", "players": ["bob"]},
        lambda b: b.as_("ann"),
        {"game": "high_card", "players": ["bob"], "rated": True},
    ),
    "webhook endpoint": Creation(
        "/v1/apps/me/webhooks",
        {"url": "http://127.0.0.1:9/hook"},
        lambda b: bearer(b.key),
        {"url": "http://127.0.0.1:9/other"},
        secrets=("secret",),
    ),
    "player token": Creation(
        "/v1/players/ann/tokens",
        {"scopes": ["read"]},
        lambda b: bearer(b.key),
        {"scopes": ["play"]},
        secrets=("token",),
    ),
    "app": Creation(
        "/v1/admin/apps",
        {"name": "gamma"},
        lambda b: bearer(ADMIN),
        {"name": "delta"},
        secrets=("key",),
    ),
}


def post(client: FlaskClient, what: Creation, backend: Backend, key: str | None, **body: Any) -> Any:
    headers = {**what.who(backend), **({HEADER: key} if key is not None else {})}
    return client.post(what.path, json=body or what.body, headers=headers)


def idempotency_records(connection: redis.Redis) -> dict[str, dict[bytes, bytes]]:
    return {k.decode(): connection.hgetall(k) for k in connection.scan_iter("tt:{i:*", count=1000)}


@pytest.mark.parametrize("name", list(CREATIONS))
def test_a_retry_with_the_same_key_gets_the_first_answer_and_creates_nothing(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis, name: str
) -> None:
    what = CREATIONS[name]
    first = post(client, what, backend, "retry-1")
    assert first.status_code == 201, first.json
    assert "Idempotent-Replayed" not in first.headers
    keys_before = redis_client.dbsize()
    again = post(client, what, backend, "retry-1")
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.data == first.data  # byte for byte: the same id, the same secrets shown once
    assert again.headers.get("Location") == first.headers.get("Location")
    assert redis_client.dbsize() == keys_before  # nothing was made, nothing written
    # The same body with the keys in another order and other spacing is the same request.
    reordered = json.dumps(dict(reversed(list(what.body.items()))), indent=2)
    headers = {**what.who(backend), HEADER: "retry-1", "Content-Type": "application/json"}
    assert client.post(what.path, data=reordered, headers=headers).data == first.data
    # Another key (or none) is another request: another thing, under another id.
    if name not in ("seek",):  # a player has one open seek (409 seek_open): a second is refused
        fresh = post(client, what, backend, "retry-2", **what.other_body)
        assert fresh.status_code == 201, fresh.json
        assert fresh.json[what.made] != first.json[what.made]


@pytest.mark.parametrize("name", list(CREATIONS))
def test_the_same_key_with_another_body_is_422_naming_the_header(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis, name: str
) -> None:
    what = CREATIONS[name]
    assert post(client, what, backend, "body-1").status_code == 201
    keys_before = redis_client.dbsize()
    other = post(client, what, backend, "body-1", **what.other_body)
    assert other.status_code == 422, other.json
    assert other.json["code"] == "invalid_request" and other.json["details"]["field"] == HEADER
    assert redis_client.dbsize() == keys_before  # nothing made
    # The same key on another path is another request too.
    path = "/v1/seeks" if what.path != "/v1/seeks" else "/v1/challenges"
    moved = client.post(path, json=what.body, headers={**what.who(backend), HEADER: "body-1"})
    assert moved.status_code in (401, 403, 422), moved.json
    if moved.status_code == 422:
        assert moved.json["details"]["field"] in (HEADER, "players", "game", "url", "name", "scopes")


def test_a_key_belongs_to_its_caller(client: FlaskClient, backend: Backend) -> None:
    """Two players, one key, the same body: each gets its own seek (a key is scoped by credential,
    never shared); anonymous callers are told apart by address."""
    body = {"game": "high_card", "players": 2}
    mine = client.post("/v1/seeks", json=body, headers={**backend.as_("ann"), HEADER: "shared"})
    theirs = client.post("/v1/seeks", json=body, headers={**backend.as_("bob"), HEADER: "shared"})
    assert mine.status_code == 201 and theirs.status_code in (200, 201), (mine.json, theirs.json)
    assert "Idempotent-Replayed" not in theirs.headers and theirs.data != mine.data
    anonymous = {"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}], "seed": 1}
    here = client.post("/v1/matches", json=anonymous, headers={HEADER: "anon"})
    there = client.post(
        "/v1/matches", json=anonymous, headers={HEADER: "anon"}, environ_base={"REMOTE_ADDR": "10.9.8.7"}
    )
    assert here.status_code == there.status_code == 201 and here.json["id"] != there.json["id"]
    replayed = client.post("/v1/matches", json=anonymous, headers={HEADER: "anon"})
    assert replayed.json["id"] == here.json["id"]


def test_racing_duplicates_make_one_thing(app: Flask, backend: Backend) -> None:
    """Eight copies of one request under one key at once (a client retrying on every timeout): one
    tournament is made; every other answer is that tournament's (a replay) or 409
    ``idempotency_in_progress`` with ``Retry-After``."""
    body = CREATIONS["tournament"].body
    barrier = threading.Barrier(8)
    answers: list[Any] = []

    def send() -> None:
        client = app.test_client()
        barrier.wait()
        answers.append(
            client.post("/v1/tournaments", json=body, headers={**bearer(backend.key), HEADER: "race"})
        )

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    made = {a.json["id"] for a in answers if a.status_code == 201}
    assert len(made) == 1, [(a.status_code, a.json) for a in answers]
    for a in answers:
        if a.status_code != 201:
            assert a.status_code == 409 and a.json["code"] == "idempotency_in_progress", a.json
            assert a.headers["Retry-After"] == "1"
    listed = app.test_client().get("/v1/tournaments", headers=bearer(backend.key)).json["tournaments"]
    assert [t["id"] for t in listed] == list(made)


def test_a_request_in_flight_holds_its_key_until_it_ends(
    app: Flask, client: FlaskClient, backend: Backend
) -> None:
    """A request holding the key (claimed as the hook claims it) makes a duplicate wait: 409 with
    ``Retry-After``; once it gave the key up (a refusal, a failure), the duplicate runs."""
    body = CREATIONS["tournament"].body
    keys: Idempotency = app.extensions[EXTENSION]
    with app.test_request_context("/v1/tournaments", method="POST", json=body):
        request_bytes = _request_bytes()
    claim = keys.begin(f"bearer:{backend.key}", "in-flight", request_bytes)
    assert isinstance(claim, Claim)
    waiting = client.post("/v1/tournaments", json=body, headers={**bearer(backend.key), HEADER: "in-flight"})
    assert waiting.status_code == 409 and waiting.json["code"] == "idempotency_in_progress"
    assert waiting.headers["Retry-After"] == "1"
    assert client.get("/v1/tournaments", headers=bearer(backend.key)).json["tournaments"] == []
    keys.release(claim)
    ran = client.post("/v1/tournaments", json=body, headers={**bearer(backend.key), HEADER: "in-flight"})
    assert ran.status_code == 201, ran.json


def test_a_refusal_frees_the_key_and_a_bad_key_or_credential_is_refused_first(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    headers = {**bearer(backend.key), HEADER: "fix-and-retry"}
    bad = client.post(
        "/v1/tournaments", json={"game": "high_card", "players": 2, "entrants": []}, headers=headers
    )
    assert bad.status_code == 422
    assert idempotency_records(redis_client) == {}  # only a success is kept
    good = client.post("/v1/tournaments", json=CREATIONS["tournament"].body, headers=headers)
    assert good.status_code == 201, good.json
    for key in ("", "x" * 256, "caf\u00e9"):
        refused = client.post(
            "/v1/tournaments", json=CREATIONS["tournament"].body, headers={**bearer(backend.key), HEADER: key}
        )
        assert refused.status_code == 422 and refused.json["details"]["field"] == HEADER, (key, refused.json)
    stranger = client.post(
        "/v1/tournaments",
        json=CREATIONS["tournament"].body,
        headers={**bearer("ta.nobody.x"), HEADER: "fix-and-retry"},
    )
    assert stranger.status_code == 401  # the credential first: nothing of the key is read for it


def test_answers_are_kept_encrypted_for_the_configured_time(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    """Every secret an answer shows (seat and creator tokens, a webhook secret, a player token, an app
    key) is absent from Redis in clear, as is the key itself; each record expires after
    ``TABLETOP_IDEMPOTENCY_SECONDS``."""
    shown: list[str] = []
    for name in ("anonymous match", "webhook endpoint", "player token", "app"):
        what = CREATIONS[name]
        answer = post(client, what, backend, f"secret-key-{name}")
        assert answer.status_code == 201, answer.json
        for field in what.secrets:
            value = answer.json[field]
            shown += [t["token"] for t in value] if isinstance(value, list) else [value]
    assert shown and all(isinstance(s, str) and len(s) >= 16 for s in shown)
    records = idempotency_records(redis_client)
    assert len(records) == 4
    dump = b"".join(k.encode() + b"".join(a + b for a, b in r.items()) for k, r in records.items())
    for secret in [*shown, "secret-key-app", backend.key]:
        assert secret.encode() not in dump
    for key in records:
        assert 0 < redis_client.ttl(key) <= KEEP_S
        assert records[key][b"state"] == b"done"


def test_a_sealed_answer_opens_only_with_its_secret_and_record() -> None:
    secret, other = b"k" * 32, b"j" * 32
    sealed = seal(secret, b"the answer", "r1")
    assert unseal(secret, sealed, "r1") == b"the answer"
    assert unseal(other, sealed, "r1") is None
    assert unseal(secret, sealed, "r2") is None  # moved under another record's id: refused
    raw = base64.b64decode(sealed)
    for at in (0, len(raw) // 2, len(raw) - 1):  # a bit of the nonce, the cipher text, the tag
        # flipped in the bytes: a base64 character can differ in padding bits alone and decode the same
        flipped = raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :]
        assert unseal(secret, base64.b64encode(flipped).decode(), "r1") is None
    assert unseal(secret, "not base64!", "r1") is None
    assert seal(secret, b"the answer", "r1") != sealed  # a fresh nonce each time
    assert Answer(201, {}, b"").status == 201
