"""Tournaments over HTTP (issue 31 points 1 and 2): every operation, its refusals, and the export.

Against a real Redis through the app, as an integrator calls it.  No worker runs here, so the entrants
are the app's players (ann, bob, cy), who play their High Card matches with their own tokens; the
outbox of each finishing move carries the result to the tournament in the same process, and the
keeper's sweep (run here by :meth:`League.schedule`) makes the next matches.  The points,
places, Buchholz and seat counts the server shows are recomputed here from each match's own result
(the design's rules: 1 point per opponent below, 1/2 per opponent tied; tie-breaks wins, Buchholz,
entry order), and the CSV export is parsed with the csv module and compared with the JSON rows."""

from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, put_player, token_for

SPEC = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text("utf-8"))
#: The quickest High Card: one card each, no swap (a match is one decision per seat).
QUICK = {"rounds": 1, "swaps": False}
PLAYERS = ("ann", "bob", "cy")
#: The columns issue 31 made, in their order; issue 42 appended the stand-in counts.
CSV_HEADER = [
    "round",
    "match_id",
    "status",
    "seat",
    "entrant",
    "name",
    "place",
    "points",
    "score",
    "stand_in",
    "decisions",
]


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


class League(Backend):
    """An app with three players, ann, bob and cy, and a play token each."""

    def __init__(self, client: FlaskClient, name: str = "league") -> None:
        super().__init__(client, name)
        assert put_player(self.client, self.key, "cy").status_code == 201
        self.tokens["cy"] = token_for(self.client, self.key, "cy")

    def create(self, headers: dict[str, str] | None = None, **body: Any) -> Any:
        request = {
            "name": "Spring ladder",
            "game": "high_card",
            "players": 2,
            "options": QUICK,
            "entrants": [{"player": p} for p in PLAYERS],
            "format": "round_robin",
            **body,
        }
        return self.client.post("/v1/tournaments", json=request, headers=headers or bearer(self.key))

    def schedule(self) -> None:
        """Run the tournaments' sweep once, as the workers' clock keeper does (no worker runs here)."""
        scheduler = self.client.application.extensions["tabletop"].tournament_scheduler
        scheduler.sweep(scheduler.now())

    def created(self, **body: Any) -> dict[str, Any]:
        resp = self.create(**body)
        assert resp.status_code == 201, resp.json
        self.schedule()
        return self.doc(resp.json["id"])  # the whole document, with the matches the scheduler made

    def get(self, tid: str, suffix: str = "", headers: dict[str, str] | None = None) -> Any:
        return self.client.get(f"/v1/tournaments/{tid}{suffix}", headers=headers or bearer(self.key))

    def doc(self, tid: str) -> dict[str, Any]:
        resp = self.get(tid)
        assert resp.status_code == 200, resp.json
        return dict(resp.json)

    def play_out(self, tid: str) -> dict[str, Any]:
        """Play every match of the tournament, each decision by the player to move with its own token
        (its first legal action), until the tournament is over; the final document."""
        for _ in range(200):  # a bound on the rounds of reading, not a timing: each pass plays moves
            doc = self.doc(tid)
            if doc["status"] != "running":
                return doc
            active = [m for m in doc["matches"] if m["status"] == "active"]
            assert active, doc["matches"]  # running with nothing under way would never end
            for match in active:
                self.play_match(doc, match)
            self.schedule()  # the keeper makes what follows (never the mover's request)
        raise AssertionError("the tournament did not end")

    def play_match(self, doc: dict[str, Any], match: dict[str, Any]) -> None:
        names = self.names_of(doc, match)
        while True:
            view = self.client.get(f"/v1/matches/{match['match_id']}", headers=bearer(self.key)).json
            if view["status"] != "active":
                return
            mover = bearer(self.tokens[names[view["to_move"]]])
            legal = self.client.get(f"/v1/matches/{match['match_id']}/legal-actions", headers=mover)
            assert legal.status_code == 200, legal.json
            moved = self.client.post(
                f"/v1/matches/{match['match_id']}/actions",
                json={"action": legal.json["actions"][0]},
                headers={**mover, "If-Match": f'"{legal.json["version"]}"'},
            )
            assert moved.status_code == 200, moved.json

    @staticmethod
    def names_of(doc: dict[str, Any], match: dict[str, Any]) -> list[str]:
        """The player of each seat of ``match``: its entrant's, as the tournament lists them."""
        return [doc["entrants"][e]["player"] for e in match["entrants"]]


@pytest.fixture
def league(client: FlaskClient) -> League:
    return League(client)


def check_against_spec(doc: Any, component: str) -> None:
    """``doc`` is what the committed spec says ``component`` is (required fields, types, enums)."""
    jsonschema.validate(doc, {"$ref": f"#/components/schemas/{component}", "components": SPEC["components"]})


# -- create, read, list ---------------------------------------------------------------------------------


def test_create_answers_the_summary_and_the_document_lists_every_match_known_in_advance(
    league: League,
) -> None:
    resp = league.create(matches_per_pairing=2)
    assert resp.status_code == 201, resp.json
    made = resp.json
    assert resp.headers["Location"].endswith(f"/v1/tournaments/{made['id']}")
    check_against_spec(made, "TournamentSummary")
    # Creation makes no match (issue 42: constant work in the request); the scheduler does, as the
    # workers' sweep runs it.
    assert "matches" not in made and made["progress"]["done"] == 0
    league.schedule()
    doc = league.doc(made["id"])
    check_against_spec(doc, "Tournament")
    assert {k: v for k, v in doc.items() if k not in ("matches", "progress")} == {
        k: v for k, v in made.items() if k != "progress"
    }
    assert (doc["name"], doc["game"], doc["players"], doc["format"]) == (
        "Spring ladder",
        "high_card",
        2,
        "round_robin",
    )
    assert doc["status"] == "running" and doc["finished_at"] is None and doc["rated"] is False
    assert doc["starts_at"] <= doc["created_at"] + 1
    assert doc["entrants"] == [
        {"entrant": 0, "name": "Ann", "player": "ann"},
        {"entrant": 1, "name": "Bob", "player": "bob"},
        {"entrant": 2, "name": "Cy", "player": "cy"},
    ]
    # Round robin of 3 entrants, 2 a match: 3 groups, each meeting twice (round r seats rotation r).
    assert (doc["rounds"], doc["matches_per_pairing"]) == (2, 2)
    assert doc["progress"] == {"done": 0, "total": 6, "round": doc["progress"]["round"], "rounds": 2}
    matches = doc["matches"]
    assert len(matches) == 6 and len({m["match_id"] for m in matches}) == 6
    groups = {frozenset(m["entrants"]) for m in matches}
    assert groups == {frozenset(g) for g in itertools.combinations(range(3), 2)}
    for group in groups:
        meetings = sorted((m for m in matches if frozenset(m["entrants"]) == group), key=lambda m: m["round"])
        assert [m["round"] for m in meetings] == [1, 2]
        assert meetings[0]["entrants"] == meetings[1]["entrants"][::-1]  # seats rotated
    assert all(m["places"] is None and m["points"] is None for m in matches)
    # Before any result: everyone at 0, ranked in entry order.
    assert [(s["rank"], s["entrant"], s["points"], s["played"]) for s in doc["standings"]] == [
        (1, 0, 0.0, 0),
        (2, 1, 0.0, 0),
        (3, 2, 0.0, 0),
    ]
    # The matches exist (private to the app), each seating its entrants' players in order.
    for match in (m for m in matches if m["status"] != "pending"):
        view = league.client.get(f"/v1/matches/{match['match_id']}", headers=bearer(league.key)).json
        assert [s["name"] for s in view["seats"]] == [n.title() for n in league.names_of(doc, match)]
        assert view["visibility"] == "private"
    again = league.doc(doc["id"])
    assert [m["match_id"] for m in again["matches"]] == [m["match_id"] for m in matches]
    assert {k: v for k, v in again.items() if k not in ("matches", "progress")} == {
        k: v for k, v in doc.items() if k not in ("matches", "progress")
    }


def test_the_list_pages_newest_first_without_matches_and_filters_by_status(league: League) -> None:
    made = [league.created(name=f"Cup {i}")["id"] for i in range(3)]
    listed = league.client.get("/v1/tournaments", headers=bearer(league.key))
    assert listed.status_code == 200, listed.json
    check_against_spec(listed.json, "TournamentList")
    assert [t["id"] for t in listed.json["tournaments"]] == made[::-1] and listed.json["next"] is None
    assert all("matches" not in t for t in listed.json["tournaments"])
    assert listed.json["tournaments"][0]["name"] == "Cup 2"
    # Keyset paging: one at a time, never skipping or repeating.
    seen, after = [], None
    for _ in range(4):
        query = "?limit=1" + (f"&after={after}" if after else "")
        page = league.client.get(f"/v1/tournaments{query}", headers=bearer(league.key)).json
        seen += [t["id"] for t in page["tournaments"]]
        after = page["next"]
        if after is None:
            break
    assert seen == made[::-1]
    cancelled = league.client.post(f"/v1/tournaments/{made[1]}/cancel", headers=bearer(league.key))
    assert cancelled.status_code == 200, cancelled.json
    only = league.client.get("/v1/tournaments?status=cancelled", headers=bearer(league.key)).json
    assert [t["id"] for t in only["tournaments"]] == [made[1]]
    running = league.client.get("/v1/tournaments?status=running", headers=bearer(league.key)).json
    assert [t["id"] for t in running["tournaments"]] == [made[2], made[0]]
    # A player of the app lists the app's tournaments too.
    mine = league.client.get("/v1/tournaments", headers=league.as_("bob")).json
    assert [t["id"] for t in mine["tournaments"]] == made[::-1]


def test_a_later_start_is_scheduled_with_the_terms_it_was_given(league: League) -> None:
    doc = league.created(
        starts_at=4_000_000_000.0,
        time_control={"per_move_seconds": 60},
        rated=True,
        parallel=1,
        format="swiss",
        rounds=2,
    )
    check_against_spec(doc, "Tournament")
    assert doc["status"] == "scheduled" and doc["starts_at"] == 4_000_000_000.0
    assert all(m["status"] == "pending" for m in doc["matches"])
    assert (doc["format"], doc["rounds"], doc["matches_per_pairing"], doc["parallel"]) == ("swiss", 2, 1, 1)
    assert doc["rated"] is True and doc["time_control"]["per_move_seconds"] == 60
    assert doc["options"] == {"rounds": 1, "swaps": False}  # the game's options, resolved
    (listed,) = league.client.get("/v1/tournaments?status=scheduled", headers=bearer(league.key)).json[
        "tournaments"
    ]
    assert listed == {k: v for k, v in doc.items() if k != "matches"}


# -- play, standings, export ------------------------------------------------------------------------------


def expected_points(places: list[int]) -> list[float]:
    """1 per opponent placed below, 1/2 per opponent tied (the design's points by finishing place)."""
    return [
        sum(
            1.0 if other > mine else 0.5 if other == mine else 0.0 for j, other in enumerate(places) if j != i
        )
        for i, mine in enumerate(places)
    ]


def test_a_round_robin_played_out_gives_the_standings_its_results_say(league: League) -> None:
    doc = league.created(matches_per_pairing=2)
    final = league.play_out(doc["id"])
    check_against_spec(final, "Tournament")
    assert final["status"] == "finished" and final["finished_at"] is not None
    assert final["progress"]["done"] == final["progress"]["total"] == 6
    points, wins, played = [0.0] * 3, [0] * 3, [0] * 3
    seats = [[0, 0] for _ in range(3)]
    opponents: list[list[int]] = [[] for _ in range(3)]
    for match in final["matches"]:
        assert match["status"] == "finished"
        view = league.client.get(f"/v1/matches/{match['match_id']}", headers=bearer(league.key)).json
        ranking = view["result"]["ranking"]  # High Card ranks every seat apart: no ties
        places = [ranking.index(seat) + 1 for seat in range(2)]
        assert match["places"] == places
        assert match["points"] == expected_points(places)
        for seat, entrant in enumerate(match["entrants"]):
            points[entrant] += match["points"][seat]
            wins[entrant] += places[seat] == 1
            played[entrant] += 1
            seats[entrant][seat] += 1
            opponents[entrant] += [e for e in match["entrants"] if e != entrant]
    buchholz = [sum(points[o] for o in opponents[e]) for e in range(3)]
    order = sorted(range(3), key=lambda e: (-points[e], -wins[e], -buchholz[e], e))
    assert [s["entrant"] for s in final["standings"]] == order
    for rank, row in enumerate(final["standings"], 1):
        e = row["entrant"]
        assert row == {
            "rank": rank,
            "entrant": e,
            "name": PLAYERS[e].title(),
            "points": points[e],
            "played": 4,
            "wins": wins[e],
            "buchholz": buchholz[e],
            "seats": [2, 2],  # every seat position equally often
            "stand_in": 0,  # every decision made by its own player (issue 42 point 6)
            "stand_in_matches": 0,
        }
    assert sum(points) == 6.0  # one point a two-seat match

    # The export, JSON and CSV, in one read each: one row per seat of every match.
    export = league.get(doc["id"], "/results")
    assert export.status_code == 200 and export.mimetype == "application/json", export.data
    check_against_spec(export.json, "TournamentResults")
    assert (export.json["tournament"], export.json["status"]) == (doc["id"], "finished")
    assert export.json["standings"] == final["standings"]
    rows = export.json["results"]
    assert len(rows) == 12
    by_match = {m["match_id"]: m for m in final["matches"]}
    for row in rows:
        match = by_match[row["match_id"]]
        seat = row["seat"]
        assert (row["round"], row["status"], row["entrant"]) == (
            match["round"],
            "finished",
            match["entrants"][seat],
        )
        assert (row["place"], row["points"]) == (match["places"][seat], match["points"][seat])
        assert row["name"] == PLAYERS[row["entrant"]].title() and isinstance(row["score"], (int, float))
    as_csv = league.get(doc["id"], "/results?format=csv")
    assert as_csv.status_code == 200 and as_csv.mimetype == "text/csv", as_csv.data
    assert doc["id"] in as_csv.headers["Content-Disposition"]
    table = list(csv.reader(io.StringIO(as_csv.get_data(as_text=True), newline="")))
    assert table[0] == CSV_HEADER
    assert table[1:] == [[_csv(row[c]) for c in CSV_HEADER] for row in rows]
    assert as_csv.get_data(as_text=True).endswith("\r\n")  # RFC 4180 line ends

    # Over: cancel is refused, and each player heard of its matches and of the end on its feed.
    again = league.client.post(f"/v1/tournaments/{doc['id']}/cancel", headers=bearer(league.key))
    assert again.status_code == 409 and again.json["code"] == "tournament_over", again.json
    for pid in PLAYERS:
        entries = league.client.get("/v1/me/events", headers=league.as_(pid)).json["events"]
        told = [e for e in entries if e["type"] in ("tournament_match", "tournament_over")]
        for entry in told:
            check_against_spec(entry, "FeedEntry")
            assert entry["tournament_id"] == doc["id"]
        entrant = PLAYERS.index(pid)
        mine = {m["match_id"] for m in final["matches"] if entrant in m["entrants"]}
        assert {e["match_id"] for e in told if e["type"] == "tournament_match"} == mine
        assert all(e["tournament_name"] == "Spring ladder" for e in told if e["type"] == "tournament_match")
        (over,) = [e for e in told if e["type"] == "tournament_over"]
        (row,) = [s for s in final["standings"] if s["entrant"] == entrant]
        assert (over["status"], over["rank"], over["points"]) == ("finished", row["rank"], row["points"])


def _csv(value: Any) -> str:
    """A JSON cell as the csv module writes it: nulls empty, numbers as Python prints them."""
    return "" if value is None else str(value)


def test_the_csv_export_defuses_a_name_a_spreadsheet_would_run(league: League) -> None:
    """A CSV of names other people chose is opened in spreadsheets: a name starting with ``=`` (or
    ``+ - @``) would be a formula there, so the CSV cell starts with ``'``; the JSON keeps the name."""
    doc = league.created(entrants=[{"player": "ann"}, {"player": "bob", "name": "=HYPERLINK(1)"}])
    league.play_out(doc["id"])
    rows = league.get(doc["id"], "/results").json["results"]
    assert {r["name"] for r in rows} == {"Ann", "=HYPERLINK(1)"}
    table = list(
        csv.DictReader(io.StringIO(league.get(doc["id"], "/results?format=csv").get_data(as_text=True)))
    )
    assert {r["name"] for r in table} == {"Ann", "'=HYPERLINK(1)"}


# -- refusals: each a 422 naming its field ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"entrants": [{"player": "ann"}]}, "entrants"),  # fewer entrants than players
        ({"entrants": [{"player": "ann"}, {"player": "zed"}]}, "entrants"),  # not a player of the app
        ({"entrants": [{"player": "ann"}, {"player": "ann"}]}, "entrants"),  # the same player twice
        ({"entrants": [{"level": "easy"}, {"level": "easy", "name": "E2"}], "rated": True}, "entrants"),
        ({"entrants": [{"level": "easy"}, {"level": "easy"}]}, "entrants"),  # names not distinct
        ({"entrants": [{"player": "ann", "level": "easy"}, {"player": "bob"}]}, "entrants.0.player"),
        ({"entrants": [{}, {"player": "bob"}]}, "entrants.0.player"),
        ({"entrants": [{"level": "grandmaster"}, {"player": "bob"}]}, "entrants.0.level"),
        ({"players": 5}, "players"),  # High Card seats 2 to 4
        ({"players": 1}, "players"),
        ({"game": "no_such_game"}, "game"),
        ({"options": {"rounds": 9}}, "options.rounds"),  # the game's options, checked as at creation
        ({"players": "2"}, "players"),
        ({"format": "swiss"}, "rounds"),  # a Swiss needs its rounds
        ({"format": "knockout"}, "format"),
        ({"rounds": 0, "format": "swiss"}, "rounds"),
        ({"matches_per_pairing": 0}, "matches_per_pairing"),
        ({"parallel": 0}, "parallel"),
        ({"name": "x" * 81}, "name"),
        ({"time_control": {"per_move_seconds": 0}}, "time_control.per_move_seconds"),
        ({"rated": "yes"}, "rated"),
        ({"starts_at": "tomorrow"}, "starts_at"),
        # a level entrant's think_ms: checked as a bot seat's (the schema's bound, the server's cap)
        ({"entrants": [{"player": "ann"}, {"level": "hard", "think_ms": -1}]}, "entrants.1.think_ms"),
        ({"entrants": [{"player": "ann"}, {"level": "hard", "think_ms": 10_001}]}, "entrants.1.think_ms"),
        ({"entrants": [{"player": "ann", "think_ms": 5}, {"level": "hard"}]}, "entrants.0.think_ms"),
        # a round robin's rounds are its matches_per_pairing: other rounds are not silently dropped
        ({"rounds": 3}, "rounds"),
    ],
)
def test_a_bad_request_is_a_422_naming_the_field(league: League, body: dict[str, Any], field: str) -> None:
    resp = league.create(**body)
    assert resp.status_code == 422, resp.json
    assert resp.json["code"] == "invalid_request" and resp.json["details"]["field"] == field, resp.json
    assert league.client.get("/v1/tournaments", headers=bearer(league.key)).json["tournaments"] == []


def test_too_many_matches_is_refused_before_any_is_made(client: FlaskClient, redis_url: str) -> None:
    small = create_app(make_config(redis_url, admin_token=ADMIN, tournament_max_matches=5), games=TEST_GAMES)
    league = League(small.test_client())
    resp = league.create(matches_per_pairing=2)  # 6 matches
    assert resp.status_code == 422 and resp.json["code"] == "invalid_request", resp.json
    assert "field" in resp.json["details"] and "5" in resp.json["message"], resp.json
    assert league.create(matches_per_pairing=1).status_code == 201  # 3 matches


def test_bad_queries_are_422_naming_the_parameter(league: League) -> None:
    doc = league.created()
    for url, field in (
        ("/v1/tournaments?status=paused", "status"),
        ("/v1/tournaments?limit=0", "limit"),
        ("/v1/tournaments?after=%20", "after"),
        (f"/v1/tournaments/{doc['id']}/results?format=xml", "format"),
    ):
        resp = league.client.get(url, headers=bearer(league.key))
        assert resp.status_code == 422 and resp.json["details"]["field"] == field, (url, resp.json)


# -- who may: credentials, scopes, other apps ------------------------------------------------------------


def test_credentials_player_tokens_and_scopes(league: League) -> None:
    request = {
        "game": "high_card",
        "players": 2,
        "options": QUICK,
        "entrants": [{"player": "ann"}, {"level": "random"}],
    }
    # No credential: 401 on every operation.
    assert league.client.post("/v1/tournaments", json=request).status_code == 401
    assert league.client.get("/v1/tournaments").status_code == 401
    # A player token with `play` creates one in its app, entering itself (and bots); not other players.
    by_ann = league.create(headers=league.as_("ann"), entrants=request["entrants"])
    assert by_ann.status_code == 201, by_ann.json
    tid = by_ann.json["id"]
    assert by_ann.json["entrants"][0] == {"entrant": 0, "name": "Ann", "player": "ann"}
    assert by_ann.json["entrants"][1]["level"] == "random"
    for_bob = league.create(headers=league.as_("ann"), entrants=[{"player": "ann"}, {"player": "bob"}])
    assert for_bob.status_code == 422 and for_bob.json["details"]["field"] == "entrants", for_bob.json
    # A `read` token reads the app's tournaments but creates and cancels none.
    reader = bearer(token_for(league.client, league.key, "bob", scopes=["read"]))
    refused = league.create(headers=reader, entrants=[{"player": "bob"}, {"level": "easy"}])
    assert refused.status_code == 403 and refused.json["code"] == "insufficient_scope", refused.json
    assert league.get(tid, headers=reader).status_code == 200
    assert league.get(tid, "/results", headers=reader).status_code == 200
    assert [t["id"] for t in league.client.get("/v1/tournaments", headers=reader).json["tournaments"]] == [
        tid
    ]
    by_reader = league.client.post(f"/v1/tournaments/{tid}/cancel", headers=reader)
    assert by_reader.status_code == 403 and by_reader.json["code"] == "insufficient_scope", by_reader.json
    # Every player of the app reads it, entered or not.
    for pid in PLAYERS:
        assert league.get(tid, headers=league.as_(pid)).status_code == 200
        assert league.get(tid, "/results?format=csv", headers=league.as_(pid)).status_code == 200
    # Only its creator (ann) or the app key cancels it: bob is 403.
    by_bob = league.client.post(f"/v1/tournaments/{tid}/cancel", headers=league.as_("bob"))
    assert by_bob.status_code == 403, by_bob.json
    assert league.doc(tid)["status"] == "running"
    by_creator = league.client.post(f"/v1/tournaments/{tid}/cancel", headers=league.as_("ann"))
    assert by_creator.status_code == 200 and by_creator.json["status"] == "cancelled", by_creator.json
    # The app key cancels any of its app's; a player cannot cancel one the app key made.
    other = league.created()
    assert (
        league.client.post(f"/v1/tournaments/{other['id']}/cancel", headers=league.as_("ann")).status_code
        == 403
    )
    by_key = league.client.post(f"/v1/tournaments/{other['id']}/cancel", headers=bearer(league.key))
    assert by_key.status_code == 200 and by_key.json["status"] == "cancelled"


def test_another_apps_tournament_is_not_found_everywhere(client: FlaskClient, league: League) -> None:
    doc = league.created()
    other = League(client, "other")  # its own ann, bob and cy
    for headers in (bearer(other.key), other.as_("ann")):
        for method, suffix in (
            ("GET", ""),
            ("GET", "/results"),
            ("GET", "/results?format=csv"),
            ("POST", "/cancel"),
        ):
            resp = client.open(f"/v1/tournaments/{doc['id']}{suffix}", method=method, headers=headers)
            assert resp.status_code == 404 and resp.json["code"] == "tournament_not_found", (
                suffix,
                resp.json,
            )
            assert "Spring ladder" not in resp.get_data(as_text=True)
        assert client.get("/v1/tournaments", headers=headers).json["tournaments"] == []
    assert league.doc(doc["id"])["status"] == "running"  # untouched
    missing = league.get("nope")
    assert missing.status_code == 404 and missing.json["code"] == "tournament_not_found"


# -- cancel ---------------------------------------------------------------------------------------------


def test_cancel_aborts_the_matches_under_way_and_makes_no_more(league: League) -> None:
    doc = league.created(matches_per_pairing=2, parallel=2)
    first = next(m for m in doc["matches"] if m["status"] == "active")
    league.play_match(doc, first)  # one result in: it stays in the standings
    before = league.doc(doc["id"])
    assert before["progress"]["done"] == 1
    cancelled = league.client.post(f"/v1/tournaments/{doc['id']}/cancel", headers=bearer(league.key))
    assert cancelled.status_code == 200, cancelled.json
    check_against_spec(cancelled.json, "TournamentSummary")
    assert "matches" not in cancelled.json  # its summary: the answer costs the same whatever the size
    after = league.doc(doc["id"])
    assert after["status"] == "cancelled" and after["finished_at"] is not None
    assert {k: v for k, v in after.items() if k != "matches"} == cancelled.json
    statuses = {m["match_id"]: m["status"] for m in after["matches"]}
    assert statuses[first["match_id"]] == "finished"
    created = [m for m in before["matches"] if m["status"] == "active"]
    assert created and all(statuses[m["match_id"]] == "aborted" for m in created)
    league.schedule()  # the sweep aborts them, moments after the cancel (not within it: issue 42)
    for match in created:  # the matches themselves are over (the lifecycle's cancel)
        view = league.client.get(f"/v1/matches/{match['match_id']}", headers=bearer(league.key)).json
        assert view["status"] == "aborted"
    never = [m for m in before["matches"] if m["status"] == "pending"]
    assert never and all(statuses[m["match_id"]] in ("pending", "aborted") for m in never)
    for match in never:  # never created
        assert (
            league.client.get(f"/v1/matches/{match['match_id']}", headers=bearer(league.key)).status_code
            == 404
        )
    assert after["standings"] == before["standings"]  # aborted matches give nobody points
    again = league.client.post(f"/v1/tournaments/{doc['id']}/cancel", headers=bearer(league.key))
    assert again.status_code == 409 and again.json["code"] == "tournament_over"
    assert again.json["details"]["status"] == "cancelled"
    # The aborted matches' seats are in the export, with no places or points.
    rows = league.get(doc["id"], "/results").json["results"]
    aborted = [r for r in rows if r["status"] == "aborted"]
    assert aborted and all(r["place"] is None and r["points"] is None for r in aborted)
    # Players hear that it ended.
    entries = league.client.get("/v1/me/events", headers=league.as_("ann")).json["events"]
    (over,) = [e for e in entries if e["type"] == "tournament_over"]
    check_against_spec(over, "FeedEntry")
    assert (over["tournament_id"], over["status"]) == (doc["id"], "cancelled")
