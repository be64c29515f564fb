"""A third-party integrator's script: one full match of every game through the Python client that
openapi-python-client generates from openapi/openapi.json (package ``tabletop_client``).

It reads only typed models (no dict lookups): the created match, legal actions, each move's result,
the view per game (narrowed by ``isinstance``), the event page, the log and the result per game.
Checked with ``mypy --strict`` and run against a live server by tests/clients/test_generated_clients.py.

Usage: python play_typed.py BASE_URL  (prints one line per game: game, moves, scores, winners)
"""

from __future__ import annotations

import random
import sys

from tabletop_client import AuthenticatedClient, Client
from tabletop_client.api.actions import submit_action
from tabletop_client.api.events import get_events, get_log
from tabletop_client.api.matches import create_match, get_legal_actions, get_match
from tabletop_client.models import (
    ActionRequest,
    ChinaCreatedMatch,
    ChinaCreateMatch,
    ChinaEventsPage,
    ChinaLegalActions,
    ChinaLog,
    ChinaMatch,
    ChinaMoveResult,
    ChinaOptions,
    ChinaView,
    ConfuciusCreatedMatch,
    ConfuciusCreateMatch,
    ConfuciusEventsPage,
    ConfuciusLegalActions,
    ConfuciusLog,
    ConfuciusMatch,
    ConfuciusMoveResult,
    ConfuciusView,
    HumanSeatRequest,
    TajMahalCreatedMatch,
    TajMahalCreateMatch,
    TajMahalEventsPage,
    TajMahalLegalActions,
    TajMahalLog,
    TajMahalMatch,
    TajMahalMoveResult,
    TajMahalView,
    YearOfDragonCreatedMatch,
    YearOfDragonCreateMatch,
    YearOfDragonEventsPage,
    YearOfDragonLegalActions,
    YearOfDragonLog,
    YearOfDragonMatch,
    YearOfDragonMoveResult,
    YearOfDragonView,
)

CreateRequest = ChinaCreateMatch | ConfuciusCreateMatch | TajMahalCreateMatch | YearOfDragonCreateMatch
AnyView = ChinaView | ConfuciusView | TajMahalView | YearOfDragonView


REQUESTS: list[CreateRequest] = [
    ChinaCreateMatch(
        game="china",
        seats=[HumanSeatRequest(name=f"player {i}") for i in range(3)],
        options=ChinaOptions(fortifications=True),
        seed=7,
    ),
    ConfuciusCreateMatch(
        game="confucius", seats=[HumanSeatRequest(name=f"player {i}") for i in range(3)], seed=7
    ),
    TajMahalCreateMatch(
        game="taj_mahal", seats=[HumanSeatRequest(name=f"player {i}") for i in range(3)], seed=7
    ),
    YearOfDragonCreateMatch(
        game="year_of_dragon", seats=[HumanSeatRequest(name=f"player {i}") for i in range(2)], seed=7
    ),
]


CREATED = (ChinaCreatedMatch, ConfuciusCreatedMatch, TajMahalCreatedMatch, YearOfDragonCreatedMatch)
LOGS = (ChinaLog, ConfuciusLog, TajMahalLog, YearOfDragonLog)
VIEWS = (ChinaView, ConfuciusView, TajMahalView, YearOfDragonView)
LEGAL = (ChinaLegalActions, ConfuciusLegalActions, TajMahalLegalActions, YearOfDragonLegalActions)
MOVED = (ChinaMoveResult, ConfuciusMoveResult, TajMahalMoveResult, YearOfDragonMoveResult)
PAGES = (ChinaEventsPage, ConfuciusEventsPage, TajMahalEventsPage, YearOfDragonEventsPage)


def play(base_url: str, request: CreateRequest, rng: random.Random) -> str:
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    created = create_match.sync(client=anonymous, body=request)
    assert isinstance(created, CREATED), created
    match_id = created.id
    seat_clients = {
        t.seat: AuthenticatedClient(base_url=base_url, token=t.token, raise_on_unexpected_status=True)
        for t in created.tokens
    }
    view: AnyView = created.view
    moves = 0
    seat = view.to_move
    while seat is not None:
        legal = get_legal_actions.sync(match_id, client=seat_clients[seat])
        assert isinstance(legal, LEGAL) and legal.game == created.game, legal
        action = rng.choice(legal.actions)  # the game's own action types, not the union of every game's
        moved = submit_action.sync(
            match_id,
            client=seat_clients[seat],
            body=ActionRequest(action=action),
            if_match=f'"{legal.version}"',
        )
        assert isinstance(moved, MOVED) and moved.game == created.game, moved
        assert moved.version == legal.version + 1 and moved.events, moved
        assert isinstance(moved.view, VIEWS), moved.view
        view, moves = moved.view, moves + 1
        seat = view.to_move
    page = get_events.sync(match_id, client=anonymous)
    assert isinstance(page, PAGES) and page.status == "finished", page
    log = get_log.sync(match_id, client=anonymous)
    assert isinstance(log, LOGS), log
    assert log.complete and len(log.entries) == moves
    final = get_match.sync(match_id, client=anonymous)
    # Narrowing by the match's class types its view, result and options for that game alone.
    if isinstance(final, ChinaMatch):
        assert final.result is not None and final.view.final_scoring is not None
        scores, winners = final.result.scores, final.result.winners
        detail = f"ended by {final.result.ended_by}, fortifications {final.view.fortifications}"
    elif isinstance(final, ConfuciusMatch):
        assert final.result is not None
        scores, winners = final.result.scores, final.result.winners
        detail = f"great wall {final.view.great_wall}, general {final.result.titles.general}"
    elif isinstance(final, TajMahalMatch):
        assert final.result is not None
        scores, winners = final.result.scores, final.result.winners
        detail = f"card bonus {final.result.card_bonus}, visit {final.view.visit}"
    elif isinstance(final, YearOfDragonMatch):
        assert final.result is not None
        scores, winners = final.result.scores, final.result.ranking[:1]
        detail = f"track {final.result.track_order}, round {final.view.round_}"
    else:
        raise AssertionError(f"not a match document: {final!r}")
    assert final.status == "finished" and final.your_seat is None
    return f"{final.game} moves={moves} scores={scores} winners={winners} {detail}"


def main() -> None:
    rng = random.Random(15)
    for request in REQUESTS:
        print(play(sys.argv[1], request, rng), flush=True)


if __name__ == "__main__":
    main()
