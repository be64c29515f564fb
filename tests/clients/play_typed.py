"""A third-party integrator's script: one full match of every game through the Python client that
openapi-python-client generates from openapi/openapi.json (package ``tabletop_client``).

It reads only typed models (no dict lookups): the created match, legal actions, each move's result,
the view per game (narrowed by ``isinstance``), the event page, the log and the result per game; seats
leave out what the server defaults (a human's ``kind``, a bot's too), statuses are one enum.
Checked with ``mypy --strict`` and run against a live server by tests/clients/test_generated_clients.py.

Usage: python play_typed.py BASE_URL  (prints one line per game: game, moves, scores, winners)
"""

from __future__ import annotations

import random
import sys
from typing import assert_never

from tabletop_client.api.actions import submit_action
from tabletop_client.api.events import get_events, get_log
from tabletop_client.api.games import list_games
from tabletop_client.api.health import get_health
from tabletop_client.api.matches import create_match, get_legal_actions, get_match
from tabletop_client.models import (
    ActionRequest,
    BotSeatRequest,
    BotSeatRequestLevel,
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
    MatchStatus,
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

from tabletop_client import AuthenticatedClient, Client

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


#: A bot seat says only what it is: the generated model fills in ``kind`` (a human seat's is left out).
A_BOT = BotSeatRequest(name="a bot", level=BotSeatRequestLevel.EASY)


def progress(status: MatchStatus) -> str:
    """One status type for matches, move results and event pages: mypy checks every case is handled."""
    match status:
        case MatchStatus.WAITING:
            return "waiting for players"
        case MatchStatus.ACTIVE:
            return "in play"
        case MatchStatus.FINISHED:
            return "over"
        case MatchStatus.ABORTED:
            return "abandoned"
        case _:
            assert_never(status)


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
        assert progress(moved.status) == ("in play" if moved.view.to_move is not None else "over"), moved
        view, moves = moved.view, moves + 1
        seat = view.to_move
    page = get_events.sync(match_id, client=anonymous)
    assert isinstance(page, PAGES) and progress(page.status) == "over", page
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
    assert final.status is page.status is MatchStatus.FINISHED and final.your_seat is None
    return f"{final.game} moves={moves} scores={scores} winners={winners} {detail}"


def main() -> None:
    anonymous = Client(base_url=sys.argv[1], raise_on_unexpected_status=True)
    # Every operation has a name of its own (operationId), the catalogue and health ones too.
    assert get_health.sync(client=anonymous) is not None
    assert list_games.sync(client=anonymous) is not None
    assert A_BOT.to_dict() == {"name": "a bot", "kind": "bot", "level": "easy"}, A_BOT.to_dict()
    rng = random.Random(15)
    for request in REQUESTS:
        print(play(sys.argv[1], request, rng), flush=True)


if __name__ == "__main__":
    main()
