"""What a mobile backend met in the feeds and matches (issue 42 point 8), against a real Redis through
the HTTP API: ``invited`` says whether a join is needed and a rematch offer links back to its
finished match (``rematch_of``; ``rematch``/``rematch_of`` in my matches); a seat names its player to
its own app only; each time control has its own warning time (by default a share of the decision's
time); only anonymous creations get a creator token.  And the docs, the spec and the server agree
that reading never brings an away seat back (point 10)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.feeds import feed
from service.domain.identity import APP, Caller
from service.domain.matches import clocks
from service.domain.webhooks.webhooks import Webhooks
from service.http.app import create_app
from service.storage.matches import Store
from service.storage.webhooks import WebhookStore
from service.wiring import build
from tests.docs.pages import section
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, play_one, token_for
from tests.service.test_webhooks_domain import URL, Clock, drain, resolve_public

FEED = "/v1/me/events"
NDJSON = {"Accept": "application/x-ndjson"}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


@pytest.fixture
def backend(client: FlaskClient) -> Backend:
    return Backend(client)


def entries(client: FlaskClient, headers: dict[str, str], match_id: str, kind: str) -> list[dict[str, Any]]:
    page = client.get(FEED, headers=headers)
    assert page.status_code == 200, page.json
    return [e for e in page.json["events"] if e["match_id"] == match_id and e["type"] == kind]


def finish(client: FlaskClient, backend: Backend, match_id: str) -> None:
    while (doc := client.get(f"/v1/matches/{match_id}", headers=backend.as_("ann")).json)[
        "status"
    ] == "active":
        mover = "ann" if doc["to_move"] == 0 else "bob"
        assert play_one(client, match_id, backend.as_(mover)).status_code == 200


# -- invited, seat_joined ------------------------------------------------------------------------------


def test_invited_says_whether_a_join_is_needed_and_seat_joined_names_the_joiner(
    client: FlaskClient, backend: Backend
) -> None:
    match = backend.match(seats=[{"player": "ann"}, {"kind": "open", "player": "bob"}])
    mid = match["id"]
    [seated] = entries(client, backend.as_("ann"), mid, feed.INVITED)
    [kept] = entries(client, backend.as_("bob"), mid, feed.INVITED)
    assert seated["join_required"] is False and seated["rematch_of"] is None
    assert kept["join_required"] is True and kept["rematch_of"] is None
    # The app key reads the same entries of its player's feed.
    by_key = client.get(FEED, query_string={"player": "bob"}, headers=bearer(backend.key)).json["events"]
    assert [e for e in by_key if e["type"] == feed.INVITED] == [kept]

    assert client.post(f"/v1/matches/{mid}/join", json={}, headers=backend.as_("bob")).status_code == 200
    [joined] = entries(client, backend.as_("ann"), mid, feed.SEAT_JOINED)
    assert (joined["joined_seat"], joined["joined_player"], joined["name"]) == (1, "bob", "Bob")

    # A seat token's holder has no id of the app's: the entry says so with null.
    public = backend.match(seats=[{"player": "ann"}, {"kind": "open"}], visibility="public")
    walk_in = client.post(f"/v1/matches/{public['id']}/join", json={"name": "Walk-in"})
    assert walk_in.status_code == 200, walk_in.json
    [anonymous] = entries(client, backend.as_("ann"), public["id"], feed.SEAT_JOINED)
    assert anonymous["joined_player"] is None and anonymous["name"] == "Walk-in"


def test_the_invited_webhook_payload_is_the_entry_and_says_it_too(
    redis_client: redis.Redis, redis_url: str
) -> None:
    config = make_config(redis_url)
    clock = Clock()
    hooks = Webhooks(WebhookStore(redis_client), config, clock=clock, resolve=resolve_public)
    matches = build(config, store=Store(redis_client), games=TEST_GAMES, webhooks=hooks).matches
    app = matches.accounts.create_app("Backend")
    caller = Caller(APP, app=app["id"], scopes=frozenset({"read", "play"}))
    for player in ("ann", "bob"):
        matches.accounts.put_player(caller, player, player.title(), False)
    hooks.create(app["id"], URL, [feed.INVITED], "invitations")
    seats = [{"kind": "human", "player": "ann"}, {"kind": "open", "player": "bob"}]
    created = matches.create({"game": "high_card", "seats": seats, "options": {}}, caller=caller)
    data = {d["player"]: d for d in (json.loads(m.body)["data"] for m in drain(hooks, clock))}
    assert data["ann"]["join_required"] is False and data["bob"]["join_required"] is True
    assert data["bob"]["match_id"] == created["id"] and data["bob"]["rematch_of"] is None


# -- rematch offers ------------------------------------------------------------------------------------


def offered(client: FlaskClient, backend: Backend) -> tuple[str, str]:
    """A finished match of ann and bob whose rematch bob offered: (old id, new id)."""
    old = backend.match()["id"]
    finish(client, backend, old)
    offer = client.post(f"/v1/matches/{old}/rematch", headers=backend.as_("bob"))
    assert offer.status_code == 200 and offer.json["status"] == "waiting", offer.json
    return old, offer.json["match_id"]


def test_a_rematch_offer_links_back_to_its_match_where_it_is_declined(
    client: FlaskClient, backend: Backend
) -> None:
    old, new = offered(client, backend)
    [offer] = entries(client, backend.as_("ann"), new, feed.INVITED)
    assert offer["rematch_of"] == old and offer["join_required"] is True and offer["status"] == "waiting"
    [own] = entries(client, backend.as_("bob"), new, feed.INVITED)  # the offerer's seat, taken at once
    assert own["rematch_of"] == old

    mine = {m["id"]: m for m in client.get("/v1/me/matches", headers=backend.as_("ann")).json["matches"]}
    assert (mine[old]["rematch"], mine[old]["rematch_of"]) == (new, None)
    assert (mine[new]["rematch"], mine[new]["rematch_of"], mine[new]["invited"]) == (None, old, True)
    doc = client.get(f"/v1/matches/{new}", headers=backend.as_("ann")).json
    assert doc["rematch_of"] == old and doc["rematch"] is None

    # Declining goes where the entry points: the finished match.
    declined = client.post(f"/v1/matches/{offer['rematch_of']}/rematch/decline", headers=backend.as_("ann"))
    assert declined.status_code == 200 and declined.json["status"] == "aborted", declined.json
    assert declined.json["id"] == new


def test_a_player_takes_a_rematch_offer_by_joining_it_as_the_entry_says(
    client: FlaskClient, backend: Backend
) -> None:
    _, new = offered(client, backend)
    [offer] = entries(client, backend.as_("ann"), new, feed.INVITED)
    assert offer["join_required"] is True
    joined = client.post(f"/v1/matches/{offer['match_id']}/join", json={}, headers=backend.as_("ann"))
    assert joined.status_code == 200, joined.json
    assert joined.json["match"]["status"] == "active" and joined.json["token"] is None


# -- seats name their players to their own app ----------------------------------------------------------


def players_shown(doc: dict[str, Any]) -> dict[int, str]:
    return {s["seat"]: s["player"] for s in doc["seats"] if "player" in s}


def test_a_seat_names_its_player_to_its_own_app_only(client: FlaskClient, backend: Backend) -> None:
    c = client
    rival = Backend(c, "rival")
    seats = [{"player": "ann"}, {"name": "Guest"}, {"kind": "open", "player": "bob"}]
    created = backend.match(seats=seats, visibility="public", on_leave={"then": "abort"})
    mid, guest = created["id"], created["tokens"][0]["token"]
    mine = {0: "ann", 2: "bob"}
    assert players_shown(created) == mine
    for own in (bearer(backend.key), backend.as_("ann"), backend.as_("bob")):
        assert players_shown(c.get(f"/v1/matches/{mid}", headers=own).json) == mine
    for other in ({}, bearer(guest), bearer(rival.key), rival.as_("ann")):  # a spectator, a seat token,
        seen = c.get(f"/v1/matches/{mid}", headers=other)  # another app's key and its player
        assert seen.status_code == 200 and players_shown(seen.json) == {}, other

    def listed(headers: dict[str, str]) -> dict[int, str]:
        page = c.get("/v1/matches", query_string={"status": "waiting"}, headers=headers).json["matches"]
        return players_shown(next(m for m in page if m["id"] == mid))

    assert listed(bearer(backend.key)) == listed(backend.as_("ann")) == mine
    assert listed({}) == listed(bearer(rival.key)) == listed(rival.as_("ann")) == {}
    mine_listed = c.get("/v1/me/matches", headers=backend.as_("bob")).json["matches"]
    assert players_shown(next(m for m in mine_listed if m["id"] == mid)) == mine

    joined = c.post(f"/v1/matches/{mid}/join", json={}, headers=backend.as_("bob"))
    assert joined.status_code == 200 and players_shown(joined.json["match"]) == mine
    # Events are for every reader of the match: they never name a player.
    page = c.get(f"/v1/matches/{mid}/events", headers=bearer(backend.key)).json["events"]
    assert page and not any("player" in s for e in page for s in e.get("seats", []))

    # A stream's snapshot is the match document: named to the app, not to a spectator.  (Everyone
    # resigns, so the match ends and the streams with it.)
    resigned = c.post(f"/v1/matches/{mid}/resign", headers=bearer(guest))  # a bot takes the guest's seat
    assert resigned.status_code == 200 and players_shown(resigned.json) == {}
    for who in ("ann", "bob"):
        left = c.post(f"/v1/matches/{mid}/resign", headers=backend.as_(who))
        assert left.status_code == 200 and players_shown(left.json) == mine  # resigned: still named
    assert left.json["status"] == "aborted"
    snapshots = {}
    for name, headers in (("app", bearer(backend.key)), ("spectator", {})):
        lines = c.get(f"/v1/matches/{mid}/events", headers={**headers, **NDJSON}).get_data(as_text=True)
        snapshots[name] = json.loads(lines.splitlines()[0])
    assert snapshots["app"]["type"] == "snapshot" and players_shown(snapshots["app"]["match"]) == mine
    assert players_shown(snapshots["spectator"]["match"]) == {}


# -- warning times ---------------------------------------------------------------------------------------


class Clocked:
    """The match operations of an app with two players, ann and bob, on a clock stopped at ``t``."""

    def __init__(self, redis_client: redis.Redis, redis_url: str, **config: Any) -> None:
        self.t = 1_000_000.0
        settings = make_config(redis_url, **config)
        store = Store(redis_client)
        self.matches = build(settings, store=store, games=TEST_GAMES, clock=lambda: self.t).matches
        app = self.matches.accounts.create_app("Clocks")
        self.caller = Caller(APP, app=app["id"], scopes=frozenset({"read", "play"}))
        for player in ("ann", "bob"):
            self.matches.accounts.put_player(self.caller, player, player.title(), False)

    def create(self, **control: Any) -> dict[str, Any]:
        seats = [{"kind": "human", "player": "ann"}, {"kind": "human", "player": "bob"}]
        body = {"game": "high_card", "seats": seats, "options": {}, "time_control": control}
        return self.matches.create(body, caller=self.caller)

    def warned_at(self, doc: dict[str, Any]) -> float | None:
        """When the warnings index has the first decision's warning due (claiming it to find out)."""
        deadline = doc["clock"]["deadline"]
        store = self.matches.store
        lead = doc["clock"]["warning_seconds"]
        if store.clocks.claim_warnings(deadline - lead - 0.01, 10, 1.0) != []:
            return None  # due earlier than its lead says
        claimed = store.clocks.claim_warnings(deadline - lead + 0.01, 10, 1.0)
        return float(deadline - lead) if claimed == [(doc["id"], 0)] else None


@pytest.mark.parametrize(
    ("control", "cap", "lead"),
    [
        ({"per_move_seconds": 30}, None, 6.0),  # 20% of the decision: not "at once"
        ({"per_move_seconds": 600}, None, 120.0),
        ({"per_move_seconds": 86400}, None, 3600.0),  # a day: an hour before, not 30 s
        ({"per_move_seconds": 86400}, 30, 30.0),  # the server's cap
        ({"budget_seconds": 300}, None, 60.0),  # chess style: a share of the budget
        ({"per_move_seconds": 86400, "warning_seconds": 600}, 30, 600.0),  # the control's own
        ({"per_move_seconds": 30, "warning_seconds": 25}, None, 25.0),
    ],
)
def test_each_time_control_warns_at_its_own_time(
    redis_client: redis.Redis, redis_url: str, control: dict[str, Any], cap: float | None, lead: float
) -> None:
    clocked = Clocked(redis_client, redis_url, **({} if cap is None else {"clock_warning_seconds": cap}))
    doc = clocked.create(**control)
    assert doc["clock"]["warning_seconds"] == lead
    assert clocked.warned_at(doc) == doc["clock"]["deadline"] - lead


def test_a_warning_time_of_zero_never_warns(redis_client: redis.Redis, redis_url: str) -> None:
    clocked = Clocked(redis_client, redis_url)
    doc = clocked.create(per_move_seconds=86400, warning_seconds=0)
    assert doc["clock"]["warning_seconds"] == 0
    assert clocked.matches.store.clocks.claim_warnings(doc["clock"]["deadline"], 10, 1.0) == []
    off = Clocked(redis_client, redis_url, clock_warning_seconds=0)  # no default warning on this server
    quiet = off.create(per_move_seconds=86400)
    assert quiet["clock"]["warning_seconds"] == 0
    assert off.matches.store.clocks.claim_warnings(quiet["clock"]["deadline"], 10, 1.0) == []


def test_a_rematch_keeps_the_warning_time_its_control_chose() -> None:
    seats = [{"kind": "human"}, {"kind": "human"}]
    chosen = clocks.new_clock({"per_move_seconds": 30, "warning_seconds": 5}, seats)
    assert clocks.control(chosen)["warning_seconds"] == 5
    default = clocks.new_clock({"per_move_seconds": 30}, seats)
    assert "warning_seconds" not in clocks.control(default)  # the rematch gets the default again


def test_a_bad_warning_time_is_a_422_naming_it(client: FlaskClient) -> None:
    for bad in (-1, 1.5, "soon", 31 * 24 * 3600):
        control = {"per_move_seconds": 30, "warning_seconds": bad}
        body = {"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}], "time_control": control}
        resp = client.post("/v1/matches", json=body)
        assert resp.status_code == 422 and "warning_seconds" in json.dumps(resp.json), (bad, resp.json)


# -- creator tokens ----------------------------------------------------------------------------------------


def test_only_an_anonymous_creation_gets_a_creator_token(client: FlaskClient, backend: Backend) -> None:
    c = client
    anonymous = c.post("/v1/matches", json={"game": "high_card", "seats": [{"name": "a"}, {"kind": "open"}]})
    assert anonymous.status_code == 201 and isinstance(anonymous.json["creator_token"], str)
    cancelled = c.post(
        f"/v1/matches/{anonymous.json['id']}/cancel", headers=bearer(anonymous.json["creator_token"])
    )
    assert cancelled.status_code == 200 and cancelled.json["status"] == "aborted"

    by_key = backend.match(seats=[{"player": "ann"}, {"kind": "open"}])
    assert by_key["creator_token"] is None
    assert (
        c.post(f"/v1/matches/{by_key['id']}/cancel", headers=backend.as_("ann")).json["code"] == "not_creator"
    )
    done = c.post(f"/v1/matches/{by_key['id']}/cancel", headers=bearer(backend.key))
    assert done.status_code == 200 and done.json["status"] == "aborted"


def test_a_player_cancels_the_match_it_created_with_its_own_token(
    client: FlaskClient, backend: Backend
) -> None:
    c = client
    made = c.post(
        "/v1/matches",
        json={"game": "high_card", "seats": [{"player": "ann"}, {"kind": "open"}]},
        headers=backend.as_("ann"),
    )
    assert made.status_code == 201 and made.json["creator_token"] is None
    url = f"/v1/matches/{made.json['id']}/cancel"
    rival = Backend(c, "rival")
    reader = token_for(c, backend.key, "ann", scopes=["read"])
    assert c.post(url).status_code == 401
    assert c.post(url, headers=backend.as_("bob")).status_code == 404  # private, and no seat of bob's
    assert c.post(url, headers=bearer(reader)).json["code"] == "insufficient_scope"
    assert c.post(url, headers=bearer(rival.key)).status_code == 404  # private: another app learns nothing
    assert c.post(url, headers=rival.as_("ann")).status_code == 404
    done = c.post(url, headers=backend.as_("ann"))
    assert done.status_code == 200 and done.json["status"] == "aborted"


# -- away seats: the docs, the spec and the server agree (point 10) -----------------------------------


def test_the_readme_and_the_spec_say_reading_leaves_an_away_seat_away(app: Flask) -> None:
    """The server's side is test_lifecycle_dead_ends.py's (legal actions answer 403 ``seat_away`` and
    change nothing); here every published word about it says the same: acting is a POST."""
    spec = app.test_client().get("/openapi.json").json
    away = spec["components"]["schemas"]["Seat"]["properties"]["away"]["description"]
    assert "POST .../return" in away and "legal actions is not acting" in away
    legal = spec["paths"]["/v1/matches/{match_id}/legal-actions"]["get"]
    assert (
        "changes nothing" in legal["description"] and "seat_away" in legal["responses"]["403"]["description"]
    )
    returning = spec["paths"]["/v1/matches/{match_id}/return"]["post"]["summary"]
    assert "legal actions never does this" in returning
    texts = [json.dumps(spec), (ROOT / "openapi" / "openapi.json").read_text()]  # and the committed copy
    lobbies = section("Lobbies, leaving, clocks and rematches")
    texts.append(lobbies)
    assert "Reading is never acting" in lobbies and "403\n  `seat_away`" in lobbies
    # Nothing anywhere lists reading the legal actions among what brings a player back.
    for text in texts:
        assert not re.search(r"acts again \(legal actions", text)
