"""GET /v1/matches/{id}/events (JSON, long-poll, NDJSON, SSE) and GET .../log."""

import json
import threading
import time

import pytest

from tests.service.conftest import Table, bearer
from tests.service.high_card import GAME as HIGH_CARD


def swap_then_play(table):
    """Seat 0 swaps (R4: a private draw) then plays (R3: a redacted action)."""
    legal = table.legal(0)
    swap = next(a for a in legal if a["type"] == "swap")
    assert table.move(0, swap, 0).status_code == 200
    play = table.legal(0)[0]
    assert table.move(0, play, 1).status_code == 200
    return swap, play


def test_private_events_reach_only_their_seat(table):
    swap, play = swap_then_play(table)
    mine = table.get(0, "/events").json
    theirs = table.get(1, "/events").json
    spectator = table.get(None, "/events").json
    kinds = [(e["id"], e["type"]) for e in mine["events"]]
    assert kinds == [("0-1", "match_created"), ("1-1", "action"), ("1-3", "drew"), ("2-1", "action")]
    assert mine["events"][1]["action"] == swap and mine["events"][3]["action"] == play
    assert [(e["id"], e.get("action")) for e in theirs["events"]][1:] == [
        ("1-2", {"type": "swap"}),
        ("2-2", {"type": "play"}),
    ]
    assert spectator["events"] == theirs["events"]
    assert mine["last_id"] == theirs["last_id"] == "2-2" and mine["version"] == 2
    assert all("visible_to" not in e for e in mine["events"])


def test_after_is_a_cursor_that_also_skips_hidden_events(table):
    swap_then_play(table)
    page = table.get(1, "/events", query_string={"after": "1-2"}).json
    assert [e["id"] for e in page["events"]] == ["2-2"]
    empty = table.get(1, "/events", query_string={"after": page["last_id"]}).json
    assert empty["events"] == [] and empty["last_id"] == "2-2"
    assert table.get(1, "/events", query_string={"after": "x"}).status_code == 422


def test_long_poll_returns_when_a_visible_event_arrives(app, table):
    def later():
        time.sleep(0.3)
        app.test_client().post(
            table.url("/actions"),
            json={"action": table.legal(0)[0]},
            headers={**bearer(table.tokens[0]), "If-Match": '"0"'},
        )

    threading.Thread(target=later).start()
    t0 = time.monotonic()
    page = table.get(1, "/events", query_string={"after": "0-1", "wait": 5}).json
    assert 0.2 < time.monotonic() - t0 < 2.0
    assert [e["id"] for e in page["events"]] == ["1-2"] and page["version"] == 1


def test_long_poll_times_out_empty(table):
    t0 = time.monotonic()
    page = table.get(1, "/events", query_string={"after": "0-1", "wait": 0.3}).json
    assert page["events"] == [] and time.monotonic() - t0 >= 0.3


def finish(table):
    while (doc := table.get().json)["status"] == "active":
        seat = doc["to_move"]
        table.move(seat, table.legal(seat)[0], doc["version"])


def test_ndjson_stream_starts_with_a_snapshot_and_ends_after_match_over(client):
    table = Table(client, seed=5, options={"rounds": 1})
    finish(table)
    resp = table.get(1, "/events", headers={"Accept": "application/x-ndjson"})
    assert resp.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in resp.get_data(as_text=True).splitlines()]
    assert lines[0]["type"] == "snapshot" and lines[0]["match"]["your_seat"] == 1
    assert lines[0]["match"]["status"] == "finished"
    assert [e["type"] for e in lines[1:]] == ["match_created", "action", "action", "reveal", "match_over"]
    assert lines[-1]["result"] == lines[0]["match"]["result"]


def test_sse_stream_heartbeats_and_resumes_from_last_event_id(client):
    table = Table(client, seed=5)
    resp = table.get(
        None, "/events", headers={"Accept": "text/event-stream", "Last-Event-ID": "0-1"}, buffered=False
    )
    chunks = []
    for chunk in resp.response:
        if chunk:  # the stream's empty strings are no bytes on the wire (PEP 3333)
            chunks.append(chunk if isinstance(chunk, str) else chunk.decode())
        if sum(c.startswith(": heartbeat") for c in chunks) >= 2:
            break
    resp.close()
    assert chunks[0].startswith("event: snapshot\ndata: ")
    assert all(not c.startswith("id: 0-1") for c in chunks)  # resumed after the creation event
    assert chunks[1] == ": heartbeat\n\n"


def test_sse_stream_delivers_events_with_ids(client):
    table = Table(client, seed=5, options={"rounds": 1})
    finish(table)
    text = table.get(0, "/events", headers={"Accept": "text/event-stream"}).get_data(as_text=True)
    frames = text.strip().split("\n\n")
    assert frames[1].startswith("id: 0-1\nevent: match_created\ndata: ")
    last = frames[-1].split("\n")
    assert last[0].startswith("id: ") and last[1] == "event: match_over"
    assert json.loads(last[2].removeprefix("data: "))["result"] == table.get().json["result"]


def test_log_during_play_is_what_the_caller_saw_and_complete_at_the_end(client):
    table = Table(client, seed=5, options={"rounds": 2})
    swap, play = swap_then_play(table)
    mine = table.get(0, "/log").json
    theirs = table.get(1, "/log").json
    assert mine["complete"] is False and mine["seed"] is None
    assert [e["action"] for e in mine["entries"]] == [swap, play]
    assert [e["action"] for e in theirs["entries"]] == [{"type": "swap"}, {"type": "play"}]
    finish(table)
    full = table.get(None, "/log").json
    assert full["complete"] is True and full["seed"] == 5
    state = HIGH_CARD.setup(full["players"], full["options"], seed=full["seed"])
    for entry in full["entries"]:
        HIGH_CARD.apply(state, entry["action"], seat=entry["seat"])
    assert HIGH_CARD.result(state).items() <= table.get().json["result"].items()  # and the counts
    assert [e["version"] for e in full["entries"]] == list(range(1, len(full["entries"]) + 1))


def test_a_stream_resumed_after_the_end_holds_only_the_snapshot(client):
    table = Table(client, seed=5, options={"rounds": 1})
    finish(table)
    last = table.get(1, "/events").json["last_id"]
    resp = table.get(1, "/events", query_string={"after": last}, headers={"Accept": "application/x-ndjson"})
    lines = resp.get_data(as_text=True).splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["type"] == "snapshot"


@pytest.mark.parametrize("after", ["1-1\n", "x", "1-"])
def test_a_malformed_after_cursor_is_422(table, after):
    resp = table.client.get(table.url("/events"), query_string={"after": after})
    assert resp.status_code == 422 and resp.json["details"]["field"] == "after"
