"""The Python client (``tabletop_client``) as an integrator uses it for apps and players (issue 25, point 9),
against a real ``tabletop serve`` and a ``tabletop worker`` over a real Redis: the operator registers an
app, the app's server (:class:`AppClient`) names two players, mints their tokens and creates matches
seating them, and each player's client (:class:`PlayerClient`) plays its seat with its player token alone,
lists its matches and follows its one feed (long-poll and stream)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop_client import ApiError, AppClient, Client, PlayerClient
from tests.e2e.test_bot_matches import Worker
from tests.reliability.processes import ApiServer

pytestmark = pytest.mark.timeout(300)

ADMIN = "admin-token-of-the-client-tests"


@pytest.fixture(scope="module")
def api(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log: Path = tmp_path_factory.mktemp("python-client") / "api.log"
    with ApiServer(redis_url, log, workers=1, admin_token=ADMIN, max_wait_seconds=10) as server:
        worker = Worker(redis_url)  # for the hint a player token asks for
        try:
            yield server.base
        finally:
            worker.kill()


@pytest.fixture
def app(api: str) -> Iterator[AppClient]:
    """A fresh app with two players, ann and bob (each test its own, so nothing is shared)."""
    admin = Client(api)
    created = admin.create_app(ADMIN, "backend")
    admin.close()
    client = AppClient(api, created["key"])
    for pid, name in (("ann", "Ann"), ("bob", "Bob")):
        assert client.put_player(pid, name)["name"] == name
    yield client
    client.close()


def player(app: AppClient, pid: str, **mint: Any) -> PlayerClient:
    """A client of ``pid``'s, holding a token the app minted for it."""
    return PlayerClient(app.api.base_url, app.mint_token(pid, **mint)["token"])


def test_the_operator_registers_rotates_and_revokes_an_app(api: str) -> None:
    admin = Client(api)
    created = admin.create_app(ADMIN, "mobile", rate="600/minute")
    assert created["key"].startswith(f"ta.{created['id']}.") and created["limits"] == {"rate": "600/minute"}
    listed = {a["id"]: a for a in admin.apps(ADMIN)}
    assert created["id"] in listed and "key" not in listed[created["id"]]
    with pytest.raises(ApiError) as refused:
        admin.create_app(created["key"], "not by an app")
    assert refused.value.status == 401
    rotated = admin.rotate_app_key(ADMIN, created["id"])
    assert rotated["key"] != created["key"]
    with pytest.raises(ApiError) as old:
        admin.put_player(created["key"], "ann", "Ann")
    assert old.value.status == 401 and old.value.code == "unauthorized"
    assert admin.put_player(rotated["key"], "ann", "Ann")["id"] == "ann"
    assert admin.revoke_app(ADMIN, created["id"])["status"] == "revoked"
    with pytest.raises(ApiError):
        admin.put_player(rotated["key"], "bob", "Bob")


def test_an_app_names_players_and_mints_lists_and_revokes_their_tokens(app: AppClient) -> None:
    again = app.put_player("ann", "Ann B.", bot=True)
    assert again["name"] == "Ann B." and again["bot"] is True
    page = app.players(limit=1)
    assert [p["id"] for p in page["players"]] == ["ann"] and page["next_cursor"] == "ann"
    assert [p["id"] for p in app.players(after=page["next_cursor"])["players"]] == ["bob"]
    minted = app.mint_token("bob", scopes=["read"], expires_in=3600)
    assert minted["token"].startswith("tp.") and minted["scopes"] == ["read"] and minted["player"] == "bob"
    assert minted["expires_at"] - minted["created_at"] == pytest.approx(3600, abs=2)
    bob = PlayerClient(app.api.base_url, minted["token"])
    assert bob.me()["id"] == "bob"
    second = app.mint_token("bob")
    listed = app.tokens("bob")
    assert {t["id"] for t in listed} == {minted["id"], second["id"]}
    assert all("token" not in t for t in listed)  # a token is shown once, when minted
    app.revoke_token("bob", minted["id"])
    with pytest.raises(ApiError) as revoked:
        bob.me()
    assert revoked.value.status == 401
    assert app.revoke_tokens("bob") == 1
    assert app.tokens("bob") == []


def test_two_players_play_a_match_through_their_tokens_my_matches_and_the_feed(app: AppClient) -> None:
    ann, bob = player(app, "ann"), player(app, "bob")
    created = app.create_match("year_of_dragon", [{"player": "ann"}, {"player": "bob"}], seed=5)
    mid = created["id"]
    assert created["tokens"] == [] and created["visibility"] == "private"
    assert [s["name"] for s in created["seats"]] == ["Ann", "Bob"]
    assert app.match(mid)["id"] == mid  # the app reads its private match
    with pytest.raises(ApiError) as hidden:
        Client(app.api.base_url).match(mid)
    assert hidden.value.status == 404  # a stranger is not told it exists
    seats = {"ann": ann, "bob": bob}
    for pid, seat in (("ann", 0), ("bob", 1)):
        (mine,) = seats[pid].my_matches()["matches"]
        assert mine["id"] == mid and mine["seat"] == seat and mine["my_turn"] == (created["to_move"] == seat)
        assert seats[pid].match(mid)["your_seat"] == seat
        first = [e["type"] for e in seats[pid].feed()["events"]]
        assert first[:2] == ["invited", "match_started"], first
    assert app.my_matches("bob")["matches"][0]["id"] == mid  # the app asks for its player
    # A hint for the player to move, asked with its player token, played by the worker.
    mover = ann if created["to_move"] == 0 else bob
    hint = mover.hint(mid, level="random")
    assert isinstance(hint, dict) and "type" in hint
    # Bob's phone long-polls his feed while the match is played: one connection for all his matches (a
    # client of its own: one client is one connection, used by one thread).
    phone = PlayerClient(app.api.base_url, bob.token)
    cursor = phone.feed()["last_id"]
    heard: list[dict[str, Any]] = []
    poller = threading.Thread(target=lambda: heard.extend(phone.feed(cursor, wait=10)["events"]))
    poller.start()
    time.sleep(0.3)
    moves = 0
    while True:
        turns = {pid: c.my_matches(status="active", my_turn=True)["matches"] for pid, c in seats.items()}
        if not any(turns.values()):
            break
        ((pid, (summary,)),) = [(p, m) for p, m in turns.items() if m]
        legal = seats[pid].legal_actions(mid)
        assert legal["version"] == summary["version"]
        moved = seats[pid].move(mid, legal["actions"][0], legal["version"], idempotency_key=f"{mid}-{moves}")
        assert moved["version"] == legal["version"] + 1
        moves += 1
    poller.join(timeout=15)
    assert not poller.is_alive() and heard and heard[0]["match_id"] == mid
    assert moves > 10
    done = ann.wait_finished(mid, timeout=10)
    assert done["status"] == "finished" and done["your_seat"] == 0
    assert len(ann.log(mid)["entries"]) == moves
    assert bob.events(mid)["events"][-1]["type"] == "match_over"
    (over,) = ann.my_matches(status="finished")["matches"]
    assert over["result"]["scores"] == done["result"]["scores"] and over["my_turn"] is False
    # The feed, read whole, and streamed: entries in order, the last one the match's end.
    whole = bob.feed()["events"]
    assert {"your_turn", "match_over"} <= {e["type"] for e in whole}
    assert whole[-1]["type"] == "match_over" and whole[-1]["result"]["scores"] == over["result"]["scores"]
    streamed = []
    for entry in bob.feed_stream(after=whole[-3]["id"]):
        streamed.append(entry)
        if entry["type"] == "match_over":
            break  # the stream stays open for what comes next; closing the iterator ends it
    assert [e["id"] for e in streamed] == [e["id"] for e in whole[-2:]]
    assert next(bob.stream(mid))["type"] == "snapshot"
    assert bob.match(mid)["your_seat"] == 1  # the client reconnects after a stream
    # Bob offers a rematch, which waits for Ann (no seat token for either); she declines it.
    offer = bob.rematch(mid)
    assert offer["token"] is None and offer["status"] == "waiting"
    declined = ann.decline_rematch(mid)
    assert declined["status"] == "aborted" and declined["id"] == offer["match_id"]


def test_a_player_joins_a_seat_kept_for_it_resigns_and_the_other_has_a_rematch(app: AppClient) -> None:
    ann, bob = player(app, "ann"), player(app, "bob")
    created = app.create_match("year_of_dragon", [{"player": "ann"}, {"kind": "open", "player": "bob"}])
    mid = created["id"]
    assert created["status"] == "waiting"
    (invite,) = bob.feed()["events"]
    assert invite["type"] == "invited" and invite["match_id"] == mid
    assert bob.my_matches()["matches"][0]["invited"] is True
    joined = bob.join(mid)
    assert joined["token"] is None and joined["seat"] == 1 and joined["match"]["status"] == "active"
    first = (ann, bob)[joined["match"]["to_move"]]
    turn = next(first.wait_turns(wait=5))  # the loop of a player's client: its turns, from its feed
    assert turn["type"] == "your_turn" and turn["match_id"] == mid and turn["my_turn"] is True
    with pytest.raises(ApiError) as not_away:
        ann.return_to_seat(mid)
    assert not_away.value.status == 409 and not_away.value.code == "not_away"
    resigned = bob.resign(mid)
    assert resigned["resigned"] == [1]
    while (doc := ann.match(mid))["status"] == "active":  # a bot plays bob's seat now
        if doc["to_move"] == 0:
            ann.move(mid, ann.legal_actions(mid)["actions"][0], doc["version"])
        else:
            ann.events(mid, after="0-0", wait=1)
    with pytest.raises(ApiError) as left:
        bob.rematch(mid)  # bob left the match: the rematch is not his
    assert left.value.status == 403 and left.value.code == "seat_left"
    rematch = ann.rematch(mid)  # ann is its only human: it starts at once, the bot in bob's old seat
    assert rematch["token"] is None and rematch["status"] == "active"
    assert ann.my_matches()["matches"][0]["id"] == rematch["match_id"]


def test_a_read_token_reads_but_does_not_play_and_another_app_sees_nothing(app: AppClient, api: str) -> None:
    reader = player(app, "ann", scopes=["read"])
    created = app.create_match("year_of_dragon", [{"player": "ann"}, {"player": "bob"}], seed=1)
    assert reader.match(created["id"])["your_seat"] == 0
    with pytest.raises(ApiError) as refused:
        reader.create_match("year_of_dragon", [{"player": "ann"}, {"name": "x"}])
    assert refused.value.status == 403 and refused.value.code == "insufficient_scope"
    other = AppClient(api, Client(api).create_app(ADMIN, "rival")["key"])
    calls: list[Callable[[], object]] = [
        lambda: other.player("ann"),
        lambda: other.my_matches("ann"),
        lambda: other.feed("ann"),
        lambda: other.match(created["id"]),  # a private match of another app's
    ]
    for call in calls:
        with pytest.raises(ApiError) as unknown:
            call()
        assert unknown.value.status == 404 and unknown.value.code == "not_found"


def test_a_stream_whose_token_is_revoked_raises_credential_revoked(app: AppClient) -> None:
    """Issue 42: the lost phone's stream ends at once, as a 401 ``credential_revoked`` the client raises
    (the server's last line says why), the same as a long-poll's answer."""
    bob = player(app, "bob")
    stream = bob.feed_stream()
    got: list[ApiError] = []

    def read() -> None:
        try:
            for _ in stream:
                pass
        except ApiError as exc:
            got.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.5)  # the stream is open
    assert app.revoke_tokens("bob") == 1
    reader.join(10)
    assert not reader.is_alive(), "the revoked token's stream is still open"
    assert got and got[0].status == 401 and got[0].code == "credential_revoked"
    assert got[0].body["details"]["reason"] == "token_revoked"
