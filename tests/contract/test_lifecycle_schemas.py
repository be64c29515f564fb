"""The lifecycle's documents and events fit the spec: a match of a real game opened, joined, timed
out, resigned, abandoned, played out by bots and rematched in process over real Redis, every answer
and every event checked against the served spec's schemas (so the typed clients read them)."""

from __future__ import annotations

from typing import Any

from service.domain.matches.operations import Matches
from tests.contract.test_game_schemas import (  # noqa: F401  (client: the module's fixture)
    check,
    client,
    response_validator,
    validator,
)
from tests.service.conftest import bearer
from workers import jobs


def play_out(http: Any, matches: Matches, match_id: str, token: str | None) -> None:
    """Play the match to its end: the human seat (``token``) its first legal action over HTTP, the bots
    in process (no worker runs here)."""
    while True:
        meta = matches.meta(match_id)
        if meta.status != "active":
            return
        if meta.seats[meta.to_move]["kind"] == "bot":
            jobs.take_turns(matches, match_id, meta.version, slice_seconds=0)
            continue
        assert token is not None
        legal = http.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json
        move = {"action": legal["actions"][0], "expected_version": legal["version"]}
        assert (
            http.post(f"/v1/matches/{match_id}/actions", json=move, headers=bearer(token)).status_code == 200
        )


def test_lifecycle_answers_and_events_fit_the_spec(client: Any) -> None:  # noqa: F811
    matches: Matches = client.application.extensions["tabletop"].matches
    match_doc = response_validator("/v1/matches/{match_id}", "get")
    events_page = response_validator("/v1/matches/{match_id}/events", "get")
    body = {
        "game": "year_of_dragon",
        "seats": [{"name": "host"}, {"kind": "open"}],
        "visibility": "private",
        "time_control": {"per_move_seconds": 60, "on_timeout": "random", "max_timeouts": 1},
        "on_leave": {"then": "abort"},
        "seed": 5,
    }
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201, created.json
    check(response_validator("/v1/matches", "post", "201"), "CreatedMatch", created.json, "created")
    mid, host = created.json["id"], created.json["tokens"][0]["token"]
    joined = client.post(
        f"/v1/matches/{mid}/join", json={"name": "guest", "invite": created.json["invites"][0]["code"]}
    )
    assert joined.status_code == 200, joined.json
    check(response_validator("/v1/matches/{match_id}/join", "post"), "Joined", joined.json, "joined")
    guest = joined.json["token"]
    # The seat to move lets its clock run out: a bot decides, and keeps that seat (max_timeouts 1).
    deadline = matches.meta(mid).clock["deadline"]
    assert jobs.time_out(matches, mid, at=deadline + 1) == jobs.MOVED
    # The other human resigns: the away player may still come back, so the match goes on.  The away
    # player comes back (POST .../return); once they resign too no player is left, and the match ends
    # aborted (on_leave: abort).
    meta = matches.meta(mid)
    human = next(i for i, s in enumerate(meta.seats) if s["kind"] == "human")
    resigned = client.post(f"/v1/matches/{mid}/resign", headers=bearer([host, guest][human]))
    assert resigned.status_code == 200 and resigned.json["status"] == "active", resigned.json
    check(response_validator("/v1/matches/{match_id}/resign", "post"), "Match", resigned.json, "resigned")
    back = client.post(f"/v1/matches/{mid}/return", headers=bearer([host, guest][1 - human]))
    assert back.status_code == 200 and back.json["seats"][1 - human]["kind"] == "human", back.json
    check(response_validator("/v1/matches/{match_id}/return", "post"), "Match", back.json, "returned")
    resigned = client.post(f"/v1/matches/{mid}/resign", headers=bearer([host, guest][1 - human]))
    assert resigned.status_code == 200 and resigned.json["status"] == "aborted", resigned.json
    check(response_validator("/v1/matches/{match_id}/resign", "post"), "Match", resigned.json, "resigned")
    page = client.get(f"/v1/matches/{mid}/events", headers=bearer(host)).json  # private: a seat reads
    check(events_page, "EventsPage", page, "lifecycle events")
    kinds = [e["type"] for e in page["events"]]
    for kind in ("seat_joined", "match_started", "timeout", "resigned", "seat_returned", "match_over"):
        assert kind in kinds, kinds
    for event in page["events"]:
        check(validator("YearOfDragonEvent"), "YearOfDragonEvent", event, event["type"])

    # A finished match with a resignation; a finished match played out, then its rematch.
    three = [
        {"name": "h"},
        {"name": "b1", "kind": "bot", "level": "random"},
        {"name": "b2", "kind": "bot", "level": "random"},
    ]
    left = client.post(
        "/v1/matches", json={"game": "china", "seats": three, "seed": 2, "on_leave": {"level": "random"}}
    )
    assert (
        client.post(
            f"/v1/matches/{left.json['id']}/resign", headers=bearer(left.json["tokens"][0]["token"])
        ).status_code
        == 200
    )
    play_out(client, matches, left.json["id"], None)
    finished = client.get(f"/v1/matches/{left.json['id']}").json
    assert finished["status"] == "finished" and finished["result"]["resigned"] == [0]
    check(match_doc, "Match", finished, "finished with a resignation")

    played = client.post("/v1/matches", json={"game": "china", "seats": three, "seed": 3}).json
    token = played["tokens"][0]["token"]
    play_out(client, matches, played["id"], token)
    again = client.post(f"/v1/matches/{played['id']}/rematch", headers=bearer(token))
    assert again.status_code == 200, again.json
    check(response_validator("/v1/matches/{match_id}/rematch", "post"), "Rematch", again.json, "rematch")
    assert again.json["status"] == "active"  # the only human has taken their seat
    linked = client.get(f"/v1/matches/{played['id']}").json
    check(match_doc, "Match", linked, "finished match linked to its rematch")
    for event in client.get(f"/v1/matches/{played['id']}/events").json["events"]:
        check(validator("ChinaEvent"), "ChinaEvent", event, event["type"])

    cancelled = client.post("/v1/matches", json={**body, "visibility": "public"}).json
    gone = client.post(f"/v1/matches/{cancelled['id']}/cancel", headers=bearer(cancelled["creator_token"]))
    check(response_validator("/v1/matches/{match_id}/cancel", "post"), "Match", gone.json, "cancelled")
    for event in client.get(f"/v1/matches/{cancelled['id']}/events").json["events"]:
        check(validator("YearOfDragonEvent"), "YearOfDragonEvent", event, event["type"])
