"""A match's chat (issue 47 point 2), through the HTTP API against a real Redis: the two channels and who
reads and writes each, the text rule and its bound, the author's rate limit, pages, the ``chat`` event
on the match's stream, the ``chat_message`` feed entry, mutes, deletions, blocks and reports, scopes,
records with ``include=chat``, the chat's lifetime as the match's, and a player's messages as player
data (export and erasure)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.config import Config
from service.domain.chat.data import ChatData
from service.domain.feeds import feed
from service.http.app import create_app
from service.storage.accounts import AccountStore, app_key, player_slot_key
from service.storage.chat import ChatStore
from service.storage.matches import CHAT_PARTS, match_key
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, play_one, put_player, token_for

RETENTION = 3600


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(
        make_config(redis_url, admin_token=ADMIN, retention_seconds=RETENTION, stream_max_seconds=0.5),
        games=TEST_GAMES,
    )


@pytest.fixture
def backend(client: FlaskClient) -> Backend:
    return Backend(client)


def chat_url(match_id: str, suffix: str = "") -> str:
    return f"/v1/matches/{match_id}/chat{suffix}"


def post(
    client: FlaskClient, match_id: str, headers: dict[str, str], text: str, channel: str = "players"
) -> Any:
    return client.post(chat_url(match_id), json={"channel": channel, "text": text}, headers=headers)


def page(client: FlaskClient, match_id: str, headers: dict[str, str] | None = None, **query: Any) -> Any:
    return client.get(chat_url(match_id), query_string=query, headers=headers or {})


def texts(resp: Any) -> list[str]:
    assert resp.status_code == 200, resp.json
    return [m["text"] for m in resp.json["messages"]]


def public_match(backend: Backend) -> str:
    return str(backend.match(visibility="public")["id"])


def events(client: FlaskClient, match_id: str, headers: dict[str, str] | None = None) -> list[dict[str, Any]]:
    resp = client.get(f"/v1/matches/{match_id}/events", headers=headers or {})
    assert resp.status_code == 200, resp.json
    return [e for e in resp.json["events"] if e["type"] in ("chat", "chat_deleted")]


def chat_entries(client: FlaskClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    resp = client.get("/v1/me/events", headers=headers)
    assert resp.status_code == 200, resp.json
    return [e for e in resp.json["events"] if e["type"] == feed.CHAT_MESSAGE]


# -- channels, the stream, the feed ------------------------------------------------------------------


def test_the_players_channel_is_the_seats_and_the_spectators_everyones(
    client: FlaskClient, backend: Backend
) -> None:
    mid = public_match(backend)
    said = post(client, mid, backend.as_("ann"), "good luck")
    assert said.status_code == 201, said.json
    assert {k: said.json[k] for k in ("id", "channel", "author", "seat", "name", "text")} == {
        "id": 1,
        "channel": "players",
        "author": "seat:0",
        "seat": 0,
        "name": "Ann",
        "text": "good luck",
    }
    assert "player" not in said.json and "event_id" not in said.json
    assert texts(page(client, mid, backend.as_("bob"))) == ["good luck"]
    # A spectator never reads the players' channel, and never writes without an identity.
    assert page(client, mid).status_code == 403 and page(client, mid).json["code"] == "players_only"
    assert post(client, mid, {}, "hi", "spectators").status_code == 401
    assert post(client, mid, backend.as_("bob"), "watching?", "spectators").status_code == 201
    assert texts(page(client, mid, channel="spectators")) == ["watching?"]

    # The event stream: the players' message reaches the seats only, the spectators' everyone.
    seen_by_bob = [e["message"]["text"] for e in events(client, mid, backend.as_("bob"))]
    seen_by_all = [e["message"]["text"] for e in events(client, mid)]
    assert seen_by_bob == ["good luck", "watching?"] and seen_by_all == ["watching?"]
    stream = client.get(
        f"/v1/matches/{mid}/events", headers={**backend.as_("bob"), "Accept": "application/x-ndjson"}
    )
    assert b'"type":"chat"' in stream.data and b"good luck" in stream.data

    # The feed: the other seat's player has the players' message; the author has none of its own.
    [entry] = chat_entries(client, backend.as_("bob"))
    assert entry["match_id"] == mid and entry["seat"] == 1 and entry["chat"]["text"] == "good luck"
    assert chat_entries(client, backend.as_("ann")) == []


def test_a_private_match_has_no_spectators_channel(client: FlaskClient, backend: Backend) -> None:
    mid = str(backend.match()["id"])  # an app's match is private unless it says otherwise
    assert post(client, mid, backend.as_("ann"), "hi", "spectators").status_code == 404
    assert page(client, mid, backend.as_("ann"), channel="spectators").status_code == 404
    assert post(client, mid, backend.as_("ann"), "hi").status_code == 201
    assert page(client, mid).status_code == 404  # nor does a stranger learn the match exists


def test_a_player_without_a_seat_writes_as_a_spectator_under_a_match_only_handle(
    client: FlaskClient, backend: Backend
) -> None:
    assert put_player(client, backend.key, "cy", "Cy").status_code == 201
    cy = bearer(token_for(client, backend.key, "cy"))
    first, second = public_match(backend), public_match(backend)
    assert post(client, first, cy, "hello", "players").json["code"] == "players_only"
    here = post(client, first, cy, "hello", "spectators").json
    there = post(client, second, cy, "hello", "spectators").json
    assert here["seat"] is None and here["name"] == "Cy" and here["author"].startswith("spectator:")
    assert here["author"] != there["author"]  # a handle does not link a player's matches


def test_text_is_held_to_the_name_rule_and_bounded(client: FlaskClient, backend: Backend) -> None:
    mid = public_match(backend)
    ann = backend.as_("ann")
    for bad, why in (
        ("x" * 501, "500"),
        ("abc\u202egnp.exe", "U+202E"),
        ("two\nlines", "U+000A"),
        ("   ", "empty"),
        ("\u0301accent", "combining"),
    ):
        resp = post(client, mid, ann, bad)
        assert resp.status_code == 422, (bad, resp.json)
        assert why.lower() in resp.json["message"].lower() and "text" in resp.json["message"], resp.json
    assert post(client, mid, ann, "  ＧＧ   wp  ").json["text"] == "GG wp"  # NFKC, spaces collapsed
    assert post(client, mid, ann, "x" * 500).status_code == 201
    assert post(client, mid, ann, "hi", "lobby").status_code == 422


def test_an_author_is_rate_limited_per_match(client: FlaskClient, backend: Backend) -> None:
    mid = public_match(backend)
    for n in range(5):
        assert post(client, mid, backend.as_("ann"), f"m{n}").status_code == 201
    refused = post(client, mid, backend.as_("ann"), "one more")
    assert refused.status_code == 429 and refused.json["code"] == "chat_rate_limited", refused.json
    assert 1 <= int(refused.headers["Retry-After"]) <= 10
    assert post(client, mid, backend.as_("bob"), "me too").status_code == 201  # bob's own budget
    assert len(texts(page(client, mid, backend.as_("bob"), limit=50))) == 6


def test_pages_go_on_after_their_last_id(app: Flask, client: FlaskClient, backend: Backend) -> None:
    app.extensions["tabletop"].chat.rate = (100, 10.0)
    mid = public_match(backend)
    for n in range(7):
        assert post(client, mid, backend.as_("ann" if n % 2 else "bob"), f"m{n}").status_code == 201
    first = page(client, mid, backend.as_("ann"), limit=3)
    assert texts(first) == ["m0", "m1", "m2"] and first.json["last_id"] == 3
    rest = page(client, mid, backend.as_("ann"), after=3, limit=10)
    assert texts(rest) == ["m3", "m4", "m5", "m6"] and rest.json["last_id"] == 7
    assert texts(page(client, mid, backend.as_("ann"), after=7)) == []
    assert page(client, mid, backend.as_("ann"), limit=0).status_code == 422


def test_a_read_only_token_reads_and_cannot_write(client: FlaskClient, backend: Backend) -> None:
    mid = public_match(backend)
    reader = bearer(token_for(client, backend.key, "ann", scopes=["read"]))
    assert post(client, mid, backend.as_("bob"), "hello").status_code == 201
    assert texts(page(client, mid, reader)) == ["hello"]
    refused = post(client, mid, reader, "hi")
    assert refused.status_code == 403 and refused.json["code"] == "insufficient_scope", refused.json
    assert client.put(chat_url(mid, "/mutes/seat:1"), headers=reader).status_code == 403


def test_seat_tokens_chat_as_their_seats(client: FlaskClient) -> None:
    created = client.post(
        "/v1/matches", json={"game": "high_card", "seats": [{"name": "Zoë"}, {"name": "Yan"}]}
    )
    mid, tokens = created.json["id"], {t["seat"]: t["token"] for t in created.json["tokens"]}
    said = post(client, mid, bearer(tokens[1]), "hej")
    assert (said.status_code, said.json["author"], said.json["name"]) == (201, "seat:1", "Yan")
    assert texts(page(client, mid, bearer(tokens[0]))) == ["hej"]


# -- moderation --------------------------------------------------------------------------------------


def test_a_mute_is_the_muters_own(client: FlaskClient, backend: Backend) -> None:
    mid = public_match(backend)
    bob = backend.as_("bob")
    assert client.put(chat_url(mid, "/mutes/seat:0"), headers=bob).json == {"authors": ["seat:0"]}
    assert client.put(chat_url(mid, "/mutes/seat:1"), headers=bob).status_code == 422  # not oneself
    assert client.put(chat_url(mid, "/mutes/nobody"), headers=bob).status_code == 422
    assert post(client, mid, backend.as_("ann"), "psst").status_code == 201
    assert texts(page(client, mid, bob)) == [] and page(client, mid, bob).json["last_id"] == 1
    assert chat_entries(client, bob) == []  # no feed entry from a muted author
    assert texts(page(client, mid, backend.as_("ann"))) == ["psst"]  # the author's own page is whole
    assert client.get(chat_url(mid, "/mutes"), headers=bob).json == {"authors": ["seat:0"]}
    assert client.delete(chat_url(mid, "/mutes/seat:0"), headers=bob).json == {"authors": []}
    assert texts(page(client, mid, bob)) == ["psst"]


def test_moderators_delete_block_and_read_reports(client: FlaskClient, backend: Backend) -> None:
    mid = public_match(backend)
    ann, bob, key, admin = backend.as_("ann"), backend.as_("bob"), bearer(backend.key), bearer(ADMIN)
    rude = post(client, mid, ann, "rude words").json
    kept = post(client, mid, ann, "sorry").json

    report = client.post(
        chat_url(mid, "/reports"), json={"message_id": rude["id"], "reason": "rude"}, headers=bob
    )
    assert report.status_code == 201, report.json
    assert (report.json["author"], report.json["reporter"], report.json["reason"]) == (
        "seat:0",
        "seat:1",
        "rude",
    )
    assert client.post(chat_url(mid, "/reports"), json={"message_id": 99}, headers=bob).status_code == 404
    assert client.get(chat_url(mid, "/reports"), headers=bob).json["code"] == "not_moderator"
    assert client.get(chat_url(mid, "/reports"), headers=key).json["reports"] == [report.json]

    # Only the match's app (or the admin) deletes; another app's key is no moderator here.
    other = Backend(client, "other")
    assert client.delete(chat_url(mid, f"/{rude['id']}"), headers=bob).status_code == 403
    assert client.delete(chat_url(mid, f"/{rude['id']}"), headers=bearer(other.key)).status_code == 403
    deleted = client.delete(chat_url(mid, f"/{rude['id']}"), headers=key)
    assert deleted.status_code == 200 and deleted.json["text"] == "rude words"
    assert client.delete(chat_url(mid, f"/{rude['id']}"), headers=key).status_code == 404
    assert texts(page(client, mid, bob)) == ["sorry"]
    assert texts(page(client, mid, key)) == ["sorry"]  # moderators read the players' channel
    stream = events(client, mid, bob)
    assert [e["type"] for e in stream] == ["chat", "chat_deleted"]
    assert stream[0]["message"]["id"] == kept["id"] and stream[1]["message_id"] == rude["id"]

    assert client.put(chat_url(mid, "/blocks/seat:0"), headers=bob).status_code == 403
    blocked = client.put(chat_url(mid, "/blocks/seat:0"), headers=key)
    assert [b["author"] for b in blocked.json["blocks"]] == ["seat:0"] and blocked.json["blocks"][0][
        "by"
    ] == "app"
    refused = post(client, mid, ann, "let me speak")
    assert refused.status_code == 403 and refused.json["code"] == "chat_blocked"
    assert post(client, mid, bob, "fine").status_code == 201
    assert client.delete(chat_url(mid, "/blocks/seat:0"), headers=admin).json == {"blocks": []}
    assert post(client, mid, ann, "thanks").status_code == 201
    assert post(client, mid, key, "I am the app").json["code"] == "moderator"


def report(client: FlaskClient, match_id: str, headers: dict[str, str], message_id: int, reason: str) -> Any:
    resp = client.post(
        chat_url(match_id, "/reports"), json={"message_id": message_id, "reason": reason}, headers=headers
    )
    assert resp.status_code == 201, resp.json
    return resp.json


def app_reports(client: FlaskClient, headers: dict[str, str], **query: Any) -> Any:
    return client.get("/v1/apps/me/chat-reports", query_string=query, headers=headers)


def test_an_app_lists_the_reports_of_all_its_matches_newest_first(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = public_match(backend), str(backend.match()["id"])
    ann, bob, key = backend.as_("ann"), backend.as_("bob"), bearer(backend.key)
    rude = post(client, first, ann, "rude words").json
    worse = post(client, second, ann, "worse words").json
    report(client, first, bob, rude["id"], "rude")
    report(client, second, bob, worse["id"], "worse")
    # A deletion leaves the copy the report keeps.
    assert client.delete(chat_url(first, f"/{rude['id']}"), headers=key).status_code == 200

    listed = app_reports(client, key)
    assert listed.status_code == 200, listed.json
    [newest, oldest] = listed.json["reports"]
    assert listed.json["next"] is None
    assert (newest["match_id"], newest["message"]["text"], newest["reason"]) == (
        second,
        "worse words",
        "worse",
    )
    assert (oldest["match_id"], oldest["message"]["text"]) == (first, "rude words")
    assert (oldest["message"]["id"], oldest["message"]["author"], oldest["reporter"]) == (
        rude["id"],
        "seat:0",
        "seat:1",
    )
    assert oldest["at"] <= newest["at"] and oldest["id"] < newest["id"]
    for private in ("author_player", "reporter_player", "player", "event_id"):
        assert f'"{private}"' not in listed.data.decode()
    assert f"{backend.app['id']}:ann" not in listed.data.decode()  # no player key
    # Pages go on from `next`, older each time.
    one = app_reports(client, key, limit=1).json
    assert [r["id"] for r in one["reports"]] == [newest["id"]] and one["next"] == newest["id"]
    rest = app_reports(client, key, after=one["next"], limit=1).json
    assert [r["id"] for r in rest["reports"]] == [oldest["id"]] and rest["next"] is None
    assert app_reports(client, key, after="nonsense").status_code == 422
    assert app_reports(client, key, after=f"{2**64}-0").status_code == 422  # no stream id is that big
    for first_ids in ("0-0", "00-000"):  # nothing is older than the first id (Redis refuses "(0-0")
        assert app_reports(client, key, after=first_ids).json == {"reports": [], "next": None}
    assert app_reports(client, key, limit=0).status_code == 422
    # The app's key only: its players do not read it, another app reads its own (none).
    assert app_reports(client, bob).status_code == 401
    assert app_reports(client, bearer(Backend(client, "other").key)).json == {"reports": [], "next": None}
    # The admin reads any app's.
    app_id = backend.app["id"]
    admin = client.get(f"/v1/admin/apps/{app_id}/chat-reports", headers=bearer(ADMIN))
    assert admin.status_code == 200 and admin.json == listed.json
    assert client.get(f"/v1/admin/apps/{app_id}/chat-reports", headers=key).status_code == 401
    assert client.get("/v1/admin/apps/nope/chat-reports", headers=bearer(ADMIN)).status_code == 404

    # Bounded: the newest are kept; and the list expires the retention after its last report.
    monkeypatch.setattr("service.storage.chat.APP_REPORTS", 2)
    report(client, second, bob, worse["id"], "again")
    assert [r["reason"] for r in app_reports(client, key).json["reports"]] == ["again", "worse"]
    assert 0 < redis_client.ttl(app_key(app_id, "chat:reports")) <= RETENTION


def test_an_erased_player_leaves_no_words_in_the_apps_reports(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    mid = public_match(backend)
    said = post(client, mid, backend.as_("ann"), "my words").json
    report(client, mid, backend.as_("bob"), said["id"], "bob's reason")
    data = ChatData(ChatStore(redis_client))
    app_id = backend.app["id"]
    data.erase(app_id, "ann", "Deleted player")
    data.erase(app_id, "bob", "Deleted player")
    [kept] = app_reports(client, bearer(backend.key)).json["reports"]
    assert (kept["message"]["text"], kept["message"]["name"], kept["message"]["erased"]) == (
        "",
        "Deleted player",
        True,
    )
    assert kept["reason"] is None and kept["reporter"] == "seat:1"
    assert b"my words" not in b"".join(v for _, v in ChatStore(redis_client).all_app_reports(app_id))


# -- settings ----------------------------------------------------------------------------------------


def test_the_rate_limit_and_the_length_are_settings(redis_client: redis.Redis, redis_url: str) -> None:
    config = make_config(
        redis_url, admin_token=ADMIN, chat_rate_limit=2, chat_rate_seconds=60.0, chat_max_length=20
    )
    client = create_app(config, games=TEST_GAMES).test_client()
    backend = Backend(client)
    mid = public_match(backend)
    ann = backend.as_("ann")
    long = post(client, mid, ann, "x" * 21)
    assert long.status_code == 422 and "20" in long.json["message"], long.json
    assert post(client, mid, ann, "x" * 20).status_code == 201
    assert post(client, mid, ann, "second").status_code == 201
    refused = post(client, mid, ann, "third")
    assert refused.status_code == 429, refused.json
    assert refused.json["details"]["limit"] == 2 and refused.json["details"]["window"] == 60
    assert 10 < int(refused.headers["Retry-After"]) <= 60  # the window's, not the default 10 s
    env = Config.from_env(
        {
            "TABLETOP_CHAT_RATE_LIMIT": "7",
            "TABLETOP_CHAT_RATE_SECONDS": "2.5",
            "TABLETOP_CHAT_MAX_LENGTH": "80",
        }
    )
    assert (env.chat_rate_limit, env.chat_rate_seconds, env.chat_max_length) == (7, 2.5, 80)
    with pytest.raises(ValueError, match="TABLETOP_CHAT_MAX_LENGTH"):
        Config(chat_max_length=0)


# -- records, lifetime, player data ------------------------------------------------------------------


def finish(client: FlaskClient, backend: Backend, match_id: str) -> None:
    while (doc := client.get(f"/v1/matches/{match_id}", headers=backend.as_("ann")).json)[
        "status"
    ] == "active":
        assert (
            play_one(client, match_id, backend.as_("ann" if doc["to_move"] == 0 else "bob")).status_code
            == 200
        )


def test_records_carry_the_chat_when_asked_and_it_lives_as_long_as_the_match(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    mid = public_match(backend)
    assert post(client, mid, backend.as_("ann"), "gl").status_code == 201
    assert post(client, mid, backend.as_("bob"), "hf", "spectators").status_code == 201
    keys = [match_key(mid, part) for part in CHAT_PARTS[:3]]
    assert all(redis_client.ttl(k) == -1 for k in keys)  # in play: kept, as the match is
    in_play = client.get(f"/v1/matches/{mid}/record", query_string={"include": "chat"})
    assert [m["text"] for m in in_play.json["chat"]] == ["hf"]  # a spectator's record
    finish(client, backend, mid)
    assert post(client, mid, backend.as_("bob"), "gg").status_code == 201
    assert all(0 < redis_client.ttl(k) <= RETENTION for k in keys)  # over: they go with the match

    plain = client.get(f"/v1/matches/{mid}/record")
    assert plain.status_code == 200 and "chat" not in plain.json
    full = client.get(f"/v1/matches/{mid}/record", query_string={"include": "views,chat"})
    assert [m["text"] for m in full.json["chat"]] == ["gl", "hf", "gg"] and "initial_view" in full.json
    assert "player" not in full.json["chat"][0]
    exported = client.get(
        "/v1/apps/me/records", query_string={"include": "chat"}, headers=bearer(backend.key)
    )
    assert exported.status_code == 200 and b'"text":"gg"' in exported.data
    plain_export = client.get("/v1/apps/me/records", headers=bearer(backend.key))
    assert b'"chat"' not in plain_export.data


def test_a_players_index_of_its_chats_expires_with_the_retention(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    index = player_slot_key(f"{backend.app['id']}:ann", "chat")
    assert post(client, public_match(backend), backend.as_("ann"), "hi").status_code == 201
    redis_client.expire(index, 5)  # as if written long ago: the next message gives it the retention again
    assert post(client, public_match(backend), backend.as_("ann"), "again").status_code == 201
    assert RETENTION - 5 < redis_client.ttl(index) <= RETENTION
    assert redis_client.zcard(index) == 2
    # Gone (a match in play long after the last message): a seat's messages are still found.
    redis_client.delete(index)
    data = ChatData(ChatStore(redis_client), AccountStore(redis_client))
    assert sorted(m["text"] for m in data.export(backend.app["id"], "ann")) == ["again", "hi"]


def test_a_players_messages_export_and_erase(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    mid = public_match(backend)
    assert post(client, mid, backend.as_("ann"), "mine").status_code == 201
    assert post(client, mid, backend.as_("bob"), "his").status_code == 201
    data = ChatData(ChatStore(redis_client))
    app_id = backend.app["id"]
    assert [(m["match_id"], m["text"]) for m in data.export(app_id, "ann")] == [(mid, "mine")]
    assert data.erase(app_id, "ann", "Deleted player") == 1
    assert data.erase(app_id, "ann", "Deleted player") == 0  # idempotent
    assert list(data.export(app_id, "ann")) == []
    [erased, kept] = page(client, mid, backend.as_("bob")).json["messages"]
    assert (erased["text"], erased["name"], erased["erased"]) == ("", "Deleted player", True)
    assert kept["text"] == "his"
    assert [e["message"]["text"] for e in events(client, mid, backend.as_("bob"))] == ["his"]


def test_a_waiting_long_poll_gets_a_message_as_it_is_written(client: FlaskClient, backend: Backend) -> None:
    """The live reader hands a message to a long-poll that waits (the chat script publishes on the
    match's channel), in the same cursor as the moves."""
    mid = public_match(backend)
    last = client.get(f"/v1/matches/{mid}/events", headers=backend.as_("bob")).json["last_id"]
    answer: dict[str, Any] = {}

    def wait() -> None:
        resp = client.get(
            f"/v1/matches/{mid}/events", query_string={"after": last, "wait": 2}, headers=backend.as_("bob")
        )
        answer.update(resp.json)

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    assert post(client, mid, backend.as_("ann"), "now").status_code == 201
    waiter.join(5)
    assert [e["message"]["text"] for e in answer["events"] if e["type"] == "chat"] == ["now"]
    assert answer["last_id"].split("-")[0] == last.split("-")[0]  # after the events of the same version
