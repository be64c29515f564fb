"""A match's life has no dead ends (issue 23, findings 4, 5 and 8; issue 28, item 3), against a real
Redis: a rematch offer can be declined, withdrawn (also by resigning its seat) and expires; a private
seat left before the start is joinable again with its code; waiting matches expire and cost a bounded
amount; a seat a bot played after timeouts is its player's again when the player acts; names that
would mislead are refused."""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from typing import Any

import hypothesis.strategies as st
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings

from engine.registry import GAMES
from service import auth
from service.domain import names
from service.domain.errors import Conflict, Forbidden, Unauthorized
from service.domain.identity import SEAT, Caller
from service.domain.matches.operations import Matches, Move
from service.http.app import create_app
from service.storage.matches import Store
from service.wiring import build
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config
from tests.service.test_lifecycle import FakeTime, create, events, join, open_match, play_out
from workers import jobs


def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for ``check()`` to hold (a key's expiry), failing after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.05)


def rematch(table: Table, seat: int) -> Any:
    return table.client.post(table.url("/rematch"), headers=bearer(table.tokens[seat]))


def decline(table: Table, seat: int) -> Any:
    return table.client.post(table.url("/rematch/decline"), headers=bearer(table.tokens[seat]))


def finished(client: FlaskClient) -> Table:
    table = Table(client, seed=9)
    assert play_out(table)["status"] == "finished"
    return table


# -- rematch offers -------------------------------------------------------------------------------


def test_the_offerer_resigning_the_rematch_before_it_starts_withdraws_the_offer(client: FlaskClient) -> None:
    """Issue 23 finding 4: this used to reopen the seat without an invite, stuck `waiting` for ever."""
    table = finished(client)
    offer = rematch(table, 0)
    assert offer.status_code == 200 and offer.json["status"] == "waiting"
    new_id = offer.json["match_id"]
    resigned = client.post(f"/v1/matches/{new_id}/resign", headers=bearer(offer.json["token"]))
    assert resigned.status_code == 200, resigned.json
    assert resigned.json["status"] == "aborted"
    assert events(client, new_id, offer.json["token"])[-1]["reason"] == "withdrawn"  # private: a token
    note = events(client, table.id)[-1]
    assert (note["type"], note["match_id"], note["reason"]) == ("rematch_declined", new_id, "withdrawn")
    # Nothing is left waiting, and the offer stays ended for both players.
    for seat in (0, 1):
        again = rematch(table, seat)
        assert again.status_code == 409 and again.json["code"] == "rematch_declined"
    assert client.get("/v1/matches?status=waiting").json["matches"] == []


def test_a_player_declines_the_rematch_offered_to_them(client: FlaskClient) -> None:
    table = finished(client)
    assert decline(table, 1).json["code"] == "no_rematch"  # nothing offered yet
    offer = rematch(table, 0)
    declined = decline(table, 1)
    assert declined.status_code == 200, declined.json
    assert declined.json["id"] == offer.json["match_id"] and declined.json["status"] == "aborted"
    assert events(client, offer.json["match_id"], offer.json["token"])[-1]["reason"] == "declined"
    assert events(client, table.id)[-1]["reason"] == "declined"
    # The offerer's rematch token can do nothing more in it.
    refused = client.post(f"/v1/matches/{offer.json['match_id']}/resign", headers=bearer(offer.json["token"]))
    assert refused.status_code == 409 and refused.json["code"] == "match_over"
    assert decline(table, 0).json["code"] == "not_waiting"


def test_the_offerer_withdraws_and_a_started_rematch_cannot_be_declined(client: FlaskClient) -> None:
    table = finished(client)
    offered = rematch(table, 1)
    withdrawn = decline(table, 1)
    assert withdrawn.status_code == 200
    assert events(client, withdrawn.json["id"], offered.json["token"])[-1]["reason"] == "withdrawn"

    other = finished(client)
    rematch(other, 0)
    assert rematch(other, 1).json["status"] == "active"
    late = decline(other, 0)
    assert late.status_code == 409 and late.json["code"] == "not_waiting"
    assert decline(Table(client, seed=1), 0).json["code"] == "not_finished"


def test_an_unclaimed_rematch_offer_expires_and_can_be_made_again(
    redis_client: redis.Redis, redis_url: str
) -> None:
    client = create_app(make_config(redis_url, waiting_seconds=1), games=TEST_GAMES).test_client()
    table = finished(client)
    offer = rematch(table, 0)
    new_id = offer.json["match_id"]
    # A private match is 404 to a spectator anyway: its keys tell that it expired.
    until(lambda: not redis_client.exists(f"tt:{{m:{new_id}}}:meta"))
    assert table.get(0).json["status"] == "finished"  # the finished match is kept for its retention
    again = rematch(table, 1)
    assert again.status_code == 200 and again.json["match_id"] == new_id and again.json["status"] == "waiting"


# -- private seats left before the start -------------------------------------------------------------


def test_a_private_seat_left_before_the_start_is_joined_again_with_its_code(client: FlaskClient) -> None:
    """Issue 23 finding 4, second part: the seat used to reopen with no code that could join it."""
    table = open_match(client, visibility="private")
    code = table.created.json["invites"][0]["code"]
    first = join(client, table.id, invite=code, name="bo")
    assert first.status_code == 200
    assert join(client, table.id, invite=code).json["code"] == "invite_required"  # taken meanwhile
    left = client.post(table.url("/resign"), headers=bearer(first.json["token"]))
    assert left.status_code == 200 and left.json["open_seats"] == [1, 2]
    back = join(client, table.id, invite=code, name="cy")
    assert back.status_code == 200, back.json
    assert back.json["seat"] == 1 and back.json["match"]["seats"][1]["name"] == "cy"


def test_leaving_a_private_seat_no_code_can_fill_ends_the_match(client: FlaskClient) -> None:
    table = open_match(client, visibility="private")
    joined = join(client, table.id, invite=table.created.json["invites"][0]["code"])
    assert joined.status_code == 200
    left = client.post(table.url("/resign"), headers=bearer(table.tokens[0]))  # the creator's named seat
    assert left.status_code == 200 and left.json["status"] == "aborted"
    seen = events(client, table.id, joined.json["token"])  # a private match: read with a seat's token
    assert [e["type"] for e in seen][-2:] == ["seat_left", "match_over"]
    assert seen[-1]["reason"] == "abandoned"


# -- waiting matches expire -------------------------------------------------------------------------


def meta_keys(client: redis.Redis, match_id: str) -> list[bytes]:
    return list(client.scan_iter(match=f"tt:{{m:{match_id}}}:*"))


def test_a_waiting_match_expires_and_one_that_started_does_not(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """Issue 23 finding 5: waiting matches used to be kept for ever."""
    client = create_app(make_config(redis_url, waiting_seconds=1), games=TEST_GAMES).test_client()
    lobby = open_match(client)
    started = open_match(client, open_seats=1, players=2)
    assert join(client, started.id).json["match"]["status"] == "active"
    assert all(0 < redis_client.pttl(k) <= 1000 for k in meta_keys(redis_client, lobby.id))
    assert all(redis_client.ttl(k) == -1 for k in meta_keys(redis_client, started.id))
    assert [m["id"] for m in client.get("/v1/matches?status=waiting").json["matches"]] == [lobby.id]

    until(lambda: lobby.get().status_code == 404)
    assert meta_keys(redis_client, lobby.id) == []
    assert client.get("/v1/matches?status=waiting").json["matches"] == []
    assert redis_client.zscore("tt:idx:*:waiting", lobby.id) is None  # the listing pruned it
    assert join(client, lobby.id).status_code == 404
    assert started.get(0).json["status"] == "active"  # well past a second: kept


def test_expired_private_waiting_matches_leave_no_ids_in_the_indexes(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """No listing shows (and prunes) private matches: creating one drops the expired ones' ids."""
    client = create_app(make_config(redis_url, waiting_seconds=1), games=TEST_GAMES).test_client()
    old = [open_match(client, visibility="private").id for _ in range(2)]
    until(lambda: not any(redis_client.exists(f"tt:{{m:{mid}}}:meta") for mid in old))
    new = open_match(client, visibility="private").id
    for index in ("tt:private:waiting", "tt:private:*"):
        assert redis_client.zrange(index, 0, -1) == [new.encode()]


def test_a_waiting_match_costs_a_bounded_amount_of_redis(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    """The largest waiting match (most seats, longest names, a clock) within the 9 KB that
    docs/api/matches.md says."""
    game = max(GAMES.values(), key=lambda g: g.max_players)
    seats = [{"name": "\U0001f409" * names.MAX_LENGTH}] + [{"kind": "open"}] * (game.max_players - 1)
    created = client.post(
        "/v1/matches",
        json={"game": game.id, "seats": seats, "time_control": {"per_move_seconds": 60}},
    )
    assert created.status_code == 201, created.json
    used = sum(redis_client.memory_usage(k, samples=0) for k in meta_keys(redis_client, created.json["id"]))
    assert 0 < used <= 9 * 1024, used


# -- seats come back ----------------------------------------------------------------------------------


@pytest.fixture
def timed(redis_client: redis.Redis, redis_url: str) -> tuple[Matches, FakeTime]:
    clock = FakeTime()
    return build(
        make_config(redis_url), store=Store(redis_client), games=TEST_GAMES, clock=clock
    ).matches, clock


def away_match(matches: Matches, clock: FakeTime) -> tuple[str, int, str]:
    """A clocked two-human match whose first seat to decide timed out once (``max_timeouts`` 1): its
    id, that seat and its token."""
    doc = create(matches, time_control={"per_move_seconds": 5, "on_timeout": "random", "max_timeouts": 1})
    seat = doc["to_move"]
    token = next(t["token"] for t in doc["tokens"] if t["seat"] == seat)
    clock.t += 6
    assert jobs.time_out(matches, doc["id"], at=clock.t) == jobs.MOVED
    return doc["id"], seat, token


def other_seat_moves(matches: Matches, match_id: str) -> None:
    meta, state = matches.meta_and_state(match_id)
    assert meta.to_move is not None
    matches.seat_move(meta, state, meta.to_move, matches.games[meta.game].legal_actions(state)[0])


def others_move_until(matches: Matches, match_id: str, seat: int) -> None:
    """The other (human) seat decides until ``seat`` is to decide (a round's winner leads the next)."""
    while matches.meta(match_id).to_move != seat:
        other_seat_moves(matches, match_id)


def test_a_seat_out_of_time_is_away_and_its_player_takes_it_back_by_returning(
    timed: tuple[Matches, FakeTime],
) -> None:
    """Issue 28 item 3: the bot used to keep the seat for good (403 `seat_left` on return)."""
    matches, clock = timed
    mid, seat, token = away_match(matches, clock)
    meta = matches.meta(mid)
    assert meta.seats[seat]["kind"] == "bot" and meta.seats[seat]["away"] is True
    assert meta.token_hashes[seat] == auth.hash_token(token)  # still the player's
    others_move_until(matches, mid, seat)
    assert matches.meta(mid).to_move == seat and matches.meta(mid).clock["deadline"] is None  # a bot's turn

    clock.t += 100
    doc = matches.return_to_seat(mid, Caller(SEAT, token=token))
    assert doc["your_seat"] == seat and doc["seats"][seat]["kind"] == "human" and doc["view"]
    legal = matches.legal_actions(mid, Caller(SEAT, token=token))
    assert legal["seat"] == seat and legal["actions"]
    meta = matches.meta(mid)
    assert meta.seats[seat] == {"name": meta.seats[seat]["name"], "kind": "human"}
    assert meta.clock is not None and meta.clock["deadline"] == clock.t + 5  # the player's clock runs
    returned = matches.store.events_after(mid, "0-0")[-1].event
    assert returned == {"type": "seat_returned", "visible_to": "all", "seat": seat}
    # The bot turn announced before the return finds the version moved on.
    assert jobs.take_turns(matches, mid, meta.version - 1).outcome == jobs.STALE


def test_reading_the_legal_actions_leaves_an_away_seat_away(timed: tuple[Matches, FakeTime]) -> None:
    """A GET used to take the seat back (a page opened just after a timeout did, with nobody there)."""
    matches, clock = timed
    mid, seat, token = away_match(matches, clock)
    others_move_until(matches, mid, seat)
    before = matches.meta(mid)
    events = matches.store.events_after(mid, "0-0")
    with pytest.raises(Forbidden) as refused:
        matches.legal_actions(mid, Caller(SEAT, token=token))
    assert refused.value.code == "seat_away" and f"POST /v1/matches/{mid}/return" in refused.value.message
    assert matches.meta(mid) == before and matches.store.events_after(mid, "0-0") == events


def test_returning_twice_is_not_away_the_second_time_and_a_resigned_seat_cannot_return(
    timed: tuple[Matches, FakeTime],
) -> None:
    matches, clock = timed
    mid, seat, token = away_match(matches, clock)
    matches.return_to_seat(mid, Caller(SEAT, token=token))
    version = matches.meta(mid).version
    with pytest.raises(Conflict) as again:
        matches.return_to_seat(mid, Caller(SEAT, token=token))
    assert again.value.code == "not_away" and again.value.details == {"seat": seat}
    assert matches.meta(mid).version == version  # nothing written

    mid, _, token = away_match(matches, clock)
    matches.resign(mid, Caller(SEAT, token=token))
    with pytest.raises(Forbidden) as left:
        matches.return_to_seat(mid, Caller(SEAT, token=token))
    assert left.value.code == "seat_left"
    with pytest.raises(Unauthorized):
        matches.return_to_seat(mid, Caller())


def test_an_away_seats_move_brings_its_player_back_and_is_played(timed: tuple[Matches, FakeTime]) -> None:
    matches, clock = timed
    mid, seat, token = away_match(matches, clock)
    others_move_until(matches, mid, seat)
    meta, state = matches.meta_and_state(mid)
    action = matches.games[meta.game].legal_actions(state)[0]
    body = matches.move(mid, Caller(SEAT, token=token), Move(action, None, meta.version, None))
    assert body["version"] == meta.version + 2  # the return, then the move
    assert matches.meta(mid).seats[seat]["kind"] == "human"
    types = [e.event["type"] for e in matches.store.events_after(mid, f"{meta.version + 1}-0")]
    assert types[0] == "seat_returned" and "action" in types


def test_only_resigning_gives_an_away_seat_up_and_an_away_player_may_ask_for_a_rematch(
    timed: tuple[Matches, FakeTime],
) -> None:
    matches, clock = timed
    mid, seat, token = away_match(matches, clock)
    resigned = matches.resign(mid, Caller(SEAT, token=token))
    assert resigned["resigned"] == [seat] and "away" not in resigned["seats"][seat]
    with pytest.raises(Forbidden) as refused:
        matches.legal_actions(mid, Caller(SEAT, token=token))
    assert refused.value.code == "seat_left"

    mid, seat, token = away_match(matches, clock)
    while (meta := matches.meta(mid)).status == "active":  # the bot plays the away seat to the end
        if meta.seats[meta.to_move]["kind"] == "bot":
            jobs.take_turns(matches, mid, meta.version)
        else:
            other_seat_moves(matches, mid)
    offer = matches.rematch(mid, Caller(SEAT, token=token))
    assert offer["status"] == "waiting" and offer["token"]


# -- names --------------------------------------------------------------------------------------------

#: Characters the rule refuses wherever they are (besides the invisible letters listed by the rule).
MISLEADING = ["Cc", "Cf", "Co", "Zl", "Zp"]


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=0, max_size=60))
def test_a_name_kept_is_normalised_and_holds_nothing_that_misleads(raw: str) -> None:
    try:
        name = names.normalise(raw)
    except names.BadName as exc:
        assert str(exc)
        return
    assert 1 <= len(name) <= names.MAX_LENGTH and name == name.strip(" ") and "  " not in name
    assert not any(unicodedata.category(c) in names.REFUSED_CATEGORIES or c in names.INVISIBLE for c in name)
    assert unicodedata.normalize("NFKC", name) == name and names.normalise(name) == name


@settings(max_examples=200, deadline=None)
@given(
    st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=10),
    st.characters(categories=MISLEADING) | st.sampled_from(sorted(names.INVISIBLE)),
    st.integers(0, 10),
)
def test_a_name_with_a_misleading_character_anywhere_is_refused(base: str, bad: str, at: int) -> None:
    with pytest.raises(names.BadName):
        names.normalise(base[:at] + bad + base[at:])


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("admin\u202egnp.exe", "U+202E"),  # right-to-left override: shows as "adminexe.png"
        ("\u200b\u200c\u2060", "U+200B"),  # zero-width only
        ("ann\u2028Game over", "line separator"),
        ("\u3164", "invisible"),  # Hangul filler: a letter that renders as nothing
        ("e\u0301\u0301\u0301\u0301\u0301", "combining marks"),  # one composes with the e
        (" \u00a0 ", "empty"),
    ],
)
def test_misleading_names_are_refused_naming_the_field_and_the_reason(
    client: FlaskClient, raw: str, why: str
) -> None:
    created = client.post("/v1/matches", json={"game": "high_card", "seats": [{"name": raw}, {"name": "b"}]})
    assert created.status_code == 422 and created.json["details"]["field"] == "seats.0.name"
    assert why in created.json["message"], created.json
    table = open_match(client, open_seats=1, players=2)
    joined = join(client, table.id, name=raw)
    assert joined.status_code == 422 and joined.json["details"]["field"] == "name"
    assert table.get().json["open_seats"] == [1]  # nothing written


def test_names_are_stored_normalised(client: FlaskClient) -> None:
    seats = [{"name": "  \uff21nn\u00a0\u00a0Lee "}, {"name": "Zo\u0065\u0308 \U0001f409"}]
    created = client.post("/v1/matches", json={"game": "high_card", "seats": seats})
    assert [s["name"] for s in created.json["seats"]] == ["Ann Lee", "Zo\u00eb \U0001f409"]


# -- the web of calls over HTTP ---------------------------------------------------------------------


def test_the_decline_route_is_in_the_spec(app: Flask) -> None:
    spec = app.test_client().get("/openapi.json").json
    operation = spec["paths"]["/v1/matches/{match_id}/rematch/decline"]["post"]
    assert operation["operationId"] == "declineRematch"
    assert "seat_returned" in spec["components"]["schemas"]["HighCardEvent"]["discriminator"]["mapping"]


def returns(client: FlaskClient, match_id: str) -> list[int]:
    """The seats of the match's ``seat_returned`` events, oldest first."""
    page = client.get(f"/v1/matches/{match_id}/events").json["events"]
    return [e["seat"] for e in page if e["type"] == "seat_returned"]


def test_over_http_legal_actions_leave_an_away_seat_away_and_return_gives_it_back_once(
    timed: tuple[Matches, FakeTime], client: FlaskClient
) -> None:
    """GET legal-actions used to take an away seat back: a GET must change nothing (caches, prefetchers
    and retries send it), and a page that read the match just before a timeout took the seat back with
    nobody at the keyboard."""
    matches, clock = timed  # the away match is made on the app's Redis with a clock we can move
    mid, seat, token = away_match(matches, clock)
    before = client.get(f"/v1/matches/{mid}", headers=bearer(token)).json
    refused = client.get(f"/v1/matches/{mid}/legal-actions", headers=bearer(token))
    assert refused.status_code == 403 and refused.json["code"] == "seat_away", refused.json
    assert f"POST /v1/matches/{mid}/return" in refused.json["message"]
    after = client.get(f"/v1/matches/{mid}", headers=bearer(token)).json
    assert after["version"] == before["version"] and after["seats"][seat]["away"] is True
    assert returns(client, mid) == []

    assert client.post(f"/v1/matches/{mid}/return").status_code == 401
    assert client.post(f"/v1/matches/{mid}/return", headers=bearer("not-a-token")).status_code == 401
    back = client.post(f"/v1/matches/{mid}/return", headers=bearer(token))
    assert back.status_code == 200, back.json
    assert back.json["version"] == before["version"] + 1 and back.json["your_seat"] == seat
    assert back.json["seats"][seat]["kind"] == "human" and "away" not in back.json["seats"][seat]
    again = client.post(f"/v1/matches/{mid}/return", headers=bearer(token))
    assert again.status_code == 409 and again.json["code"] == "not_away", again.json
    assert returns(client, mid) == [seat]


def test_the_return_route_is_in_the_spec(app: Flask) -> None:
    paths = app.test_client().get("/openapi.json").json["paths"]
    operation = paths["/v1/matches/{match_id}/return"]["post"]
    assert operation["operationId"] == "returnToSeat"
    assert set(operation["responses"]) >= {"200", "401", "403", "409"}
