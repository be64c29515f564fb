"""A third-party integrator's script: one full match of every game through the Python client that
openapi-python-client generates from openapi/openapi.json (package ``tabletop_client``).

It plays as an integration does (issue 25): with the operator's admin token it registers an app; with
the app's key it names three players, mints a player token each and creates every match seating them;
each seat is then played by its player's own client, holding its player token alone (no seat token),
which also lists its matches and reads its feed.  A stranger without a token sees none of these private
matches.

It reads only typed models (no dict lookups): the app, players and tokens, the created match, legal
actions, each move's result, the view per game (narrowed by ``isinstance``), the event page, the log and
the result per game, my matches and the feed's entries; seats leave out what the server defaults (a
human's ``kind``, a bot's too), statuses are one enum.  Checked with ``mypy --strict`` and run against a
live server by tests/clients/test_generated_clients.py.

Then matchmaking and ratings (issue 27): two players' rated seeks pair into a match, a challenge
accepted makes another, both are played out; the results export, the leaderboards and a player's
ratings are read as typed models.

Then a tournament (issue 31): the app's rated round robin of two players, each told of its matches on
its feed, played out, its standings and export read typed; and one a player's token makes and cancels.

Usage: python play_typed.py BASE_URL ADMIN_TOKEN  (prints one line per game: game, moves, scores,
winners, then one line per player: its matches and feed entries, then one line of the rated matches
and the leaderboard, then one line of the tournament)
"""

from __future__ import annotations

import random
import sys
import time
from typing import assert_never

from tabletop_client.api.actions import submit_action
from tabletop_client.api.admin import create_app
from tabletop_client.api.challenges import accept_challenge, create_challenge, get_challenge
from tabletop_client.api.events import get_events, get_log
from tabletop_client.api.feed import get_my_events
from tabletop_client.api.games import list_games
from tabletop_client.api.health import get_health
from tabletop_client.api.matches import create_match, get_legal_actions, get_match
from tabletop_client.api.me import get_me, list_my_matches
from tabletop_client.api.players import create_player_token, put_player
from tabletop_client.api.ratings import get_leaderboard, get_player_ratings
from tabletop_client.api.seeks import create_seek, get_seek, list_seeks
from tabletop_client.api.tournaments import (
    cancel_tournament,
    create_tournament,
    get_tournament,
    get_tournament_results,
    list_tournaments,
)
from tabletop_client.models import (
    ActionRequest,
    AppWithKey,
    BotSeatRequest,
    BotSeatRequestLevel,
    Challenge,
    ChallengeStatus,
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
    CreateApp,
    CreateChallenge,
    CreateSeek,
    CreateTournament,
    CreateTournamentFormat,
    Error,
    FeedEntry,
    FeedEntryType,
    FeedPage,
    GetLeaderboardPool,
    HumanSeatRequest,
    Leaderboard,
    LeaderboardPool,
    ListTournamentsStatus,
    MatchStatus,
    MintedToken,
    MintToken,
    MintTokenScopesItem,
    MyMatches,
    OpenSeatRequest,
    Player,
    PlayerRatings,
    PlayerSeatRequest,
    PutPlayer,
    RatingRange,
    Seek,
    SeekList,
    SeekStatus,
    TajMahalCreatedMatch,
    TajMahalCreateMatch,
    TajMahalEventsPage,
    TajMahalLegalActions,
    TajMahalLog,
    TajMahalMatch,
    TajMahalMoveResult,
    TajMahalView,
    Tournament,
    TournamentEntrantRequest,
    TournamentEntrantRequestLevel,
    TournamentFormat,
    TournamentList,
    TournamentMatchStatus,
    TournamentResultRowStatus,
    TournamentResults,
    TournamentResultsStatus,
    TournamentStatus,
    TournamentSummary,
    TournamentSummaryFormat,
    TournamentSummaryStatus,
    YearOfDragonCreatedMatch,
    YearOfDragonCreateMatch,
    YearOfDragonEventsPage,
    YearOfDragonLegalActions,
    YearOfDragonLog,
    YearOfDragonMatch,
    YearOfDragonMoveResult,
    YearOfDragonView,
)
from tabletop_client.types import Unset

from tabletop_client import AuthenticatedClient, Client

CreateRequest = ChinaCreateMatch | ConfuciusCreateMatch | TajMahalCreateMatch | YearOfDragonCreateMatch
AnyView = ChinaView | ConfuciusView | TajMahalView | YearOfDragonView


#: The app's own ids for its players; seat ``i`` of every match is ``PLAYERS[i]``'s.
PLAYERS = ("ann", "bob", "cy")


#: What a seat of a match request may be: the generated ``seats`` lists take any of them.
SeatRequest = HumanSeatRequest | PlayerSeatRequest | BotSeatRequest | OpenSeatRequest


def seats(n: int) -> list[SeatRequest]:
    """Seats naming the app's players: their display names are shown, their tokens act for them."""
    return [PlayerSeatRequest(player=pid) for pid in PLAYERS[:n]]


REQUESTS: list[CreateRequest] = [
    ChinaCreateMatch(game="china", seats=seats(3), options=ChinaOptions(fortifications=True), seed=7),
    ConfuciusCreateMatch(game="confucius", seats=seats(3), seed=7),
    TajMahalCreateMatch(game="taj_mahal", seats=seats(3), seed=7),
    YearOfDragonCreateMatch(game="year_of_dragon", seats=seats(2), seed=7),
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


class Integration:
    """The app (its key's client) and its players' clients, each holding its player token."""

    def __init__(self, base_url: str, admin_token: str) -> None:
        admin = AuthenticatedClient(base_url=base_url, token=admin_token, raise_on_unexpected_status=True)
        registered = create_app.sync(client=admin, body=CreateApp(name="typed integration"))
        assert isinstance(registered, AppWithKey) and registered.key.startswith("ta."), registered
        self.app = AuthenticatedClient(
            base_url=base_url, token=registered.key, raise_on_unexpected_status=True
        )
        self.players: dict[str, AuthenticatedClient] = {}
        for pid in PLAYERS:
            named = put_player.sync(pid, client=self.app, body=PutPlayer(name=pid.title()))
            assert isinstance(named, Player) and named.name == pid.title(), named
            scopes = [MintTokenScopesItem.READ, MintTokenScopesItem.PLAY]
            minted = create_player_token.sync(pid, client=self.app, body=MintToken(scopes=scopes))
            assert isinstance(minted, MintedToken) and minted.token.startswith("tp."), minted
            token = minted.token
            self.players[pid] = AuthenticatedClient(
                base_url=base_url, token=token, raise_on_unexpected_status=True
            )
            me = get_me.sync(client=self.players[pid])
            assert isinstance(me, Player) and me.id == pid, me

    def feed(self, pid: str, after: str = "0-0") -> list[FeedEntry]:
        """Every entry of ``pid``'s feed after ``after`` (read page by page until one is empty)."""
        entries: list[FeedEntry] = []
        while True:
            page = get_my_events.sync(client=self.players[pid], after=after)
            assert isinstance(page, FeedPage), page
            if not page.events:
                return entries
            entries.extend(page.events)
            after = page.last_id


def play(base_url: str, team: Integration, request: CreateRequest, rng: random.Random) -> str:
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    created = create_match.sync(client=team.app, body=request)
    assert isinstance(created, CREATED), created
    assert created.tokens == [], created.tokens  # the players' tokens act for their seats
    match_id = created.id
    seated = PLAYERS[: len(created.seats)]
    assert [s.name for s in created.seats] == [pid.title() for pid in seated]
    seat_clients = {seat: team.players[pid] for seat, pid in enumerate(seated)}
    hidden = get_match.sync(match_id, client=anonymous)  # private: a stranger is told nothing
    assert isinstance(hidden, Error) and hidden.code == "not_found", hidden
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
    page = get_events.sync(match_id, client=seat_clients[1])
    assert isinstance(page, PAGES) and progress(page.status) == "over", page
    log = get_log.sync(match_id, client=team.app)
    assert isinstance(log, LOGS), log
    assert log.complete and len(log.entries) == moves
    final = get_match.sync(match_id, client=seat_clients[0])
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
    assert final.status is page.status is MatchStatus.FINISHED and final.your_seat == 0
    for seat, pid in enumerate(seated):  # each player's own view of it: my matches
        mine = list_my_matches.sync(client=team.players[pid], status=MatchStatus.FINISHED)
        assert isinstance(mine, MyMatches), mine
        (summary,) = [m for m in mine.matches if m.id == match_id]
        assert summary.seat == seat and not summary.my_turn and summary.version == final.version, summary
        assert summary.result is not None and summary.result.additional_properties["scores"] == scores
    return f"{final.game} moves={moves} scores={scores} winners={winners} {detail}"


def follow(team: Integration, pid: str, games: int) -> str:
    """``pid``'s feed after every game: for each match it sat in, ``invited`` first and ``match_over``
    last, a ``your_turn`` per decision of its in between, each entry saying where its match stood."""
    entries = team.feed(pid)
    by_match: dict[str, list[FeedEntry]] = {}
    for entry in entries:
        assert entry.match_id is not None, entry  # no matchmaking yet: every entry is a match's
        by_match.setdefault(entry.match_id, []).append(entry)
    assert len(by_match) == games, sorted(by_match)
    turns = 0
    for match_entries in by_match.values():
        kinds = [e.type_ for e in match_entries]
        assert kinds[0] is FeedEntryType.INVITED and kinds[-1] is FeedEntryType.MATCH_OVER, kinds
        assert match_entries[-1].status is MatchStatus.FINISHED and match_entries[-1].result is not None
        versions = [e.version for e in match_entries if not isinstance(e.version, Unset)]
        assert len(versions) == len(match_entries) and versions == sorted(versions), versions
        for entry in match_entries:
            if entry.type_ is FeedEntryType.YOUR_TURN:
                assert entry.my_turn and entry.to_move == entry.seat, entry
                turns += 1
    assert turns > 0 and team.feed(pid, entries[-1].id) == []
    mine = list_my_matches.sync(client=team.players[pid], my_turn=True)
    assert isinstance(mine, MyMatches) and mine.matches == [], mine  # every match is over
    return f"{pid} matches={len(by_match)} entries={len(entries)} your_turn={turns}"


#: Matchmaking's game: two seats, so two seeks make a pair.
RATED_GAME = "year_of_dragon"
BUILTIN_LEVELS = ["builtin:easy", "builtin:hard", "builtin:normal", "builtin:random"]


def play_out(team: Integration, match_id: str, pids: tuple[str, ...], rng: random.Random) -> int:
    """Play a match that matchmaking made (its seats the players', in an order it chose) to its end
    through the players' tokens; its moves."""
    seat_clients: dict[int, AuthenticatedClient] = {}
    for pid in pids:
        mine = get_match.sync(match_id, client=team.players[pid])
        assert isinstance(mine, YearOfDragonMatch) and mine.rated and mine.your_seat is not None, mine
        seat_clients[mine.your_seat] = team.players[pid]
    moves = 0
    while True:
        doc = get_match.sync(match_id, client=team.players[pids[0]])
        assert isinstance(doc, YearOfDragonMatch), doc
        if doc.to_move is None:
            assert doc.status is MatchStatus.FINISHED and doc.result is not None, doc
            return moves
        mover = seat_clients[doc.to_move]
        legal = get_legal_actions.sync(match_id, client=mover)
        assert isinstance(legal, YearOfDragonLegalActions), legal
        moved = submit_action.sync(
            match_id,
            client=mover,
            body=ActionRequest(action=rng.choice(legal.actions)),
            if_match=f'"{legal.version}"',
        )
        assert isinstance(moved, YearOfDragonMoveResult), moved
        moves += 1


def matchmaking(team: Integration, rng: random.Random) -> str:
    """Issue 27 through the generated client: ann's and bob's rated seeks pair into a match, cy
    challenges ann to another, both are played out; then the results export (my matches filtered by
    game and status), the leaderboards and ann's ratings, all typed."""
    ann, bob, cy = (team.players[pid] for pid in PLAYERS)
    anyone = RatingRange(min_=None, max_=None)  # no bounds on the opponent's rating
    wanted = CreateSeek(game=RATED_GAME, players=2, rated=True, rating_range=anyone)
    waiting = create_seek.sync(client=ann, body=wanted)
    assert isinstance(waiting, Seek) and waiting.status is SeekStatus.OPEN and waiting.match_id is None
    listed = list_seeks.sync(client=bob, game=RATED_GAME)
    assert isinstance(listed, SeekList) and [s.player.id for s in listed.seeks] == ["ann"], listed
    paired = create_seek.sync(client=bob, body=wanted)
    assert isinstance(paired, Seek) and paired.status is SeekStatus.MATCHED, paired
    assert isinstance(paired.match_id, str)
    again = get_seek.sync(waiting.id, client=ann)
    assert isinstance(again, Seek) and again.status is SeekStatus.MATCHED, again
    assert again.match_id == paired.match_id
    seek_moves = play_out(team, paired.match_id, ("ann", "bob"), rng)

    offer = CreateChallenge(game=RATED_GAME, players=["ann"], rated=True)
    sent = create_challenge.sync(client=cy, body=offer)
    assert isinstance(sent, Challenge) and sent.status is ChallengeStatus.OPEN and sent.rated, sent
    told = [e for e in team.feed("ann") if e.type_ is FeedEntryType.CHALLENGE_RECEIVED]
    assert [e.challenge_id for e in told] == [sent.id], told
    accepted = accept_challenge.sync(sent.id, client=ann)
    assert isinstance(accepted, Challenge) and accepted.status is ChallengeStatus.ACCEPTED, accepted
    assert isinstance(accepted.match_id, str)
    seen = get_challenge.sync(sent.id, client=cy)
    assert isinstance(seen, Challenge) and seen.match_id == accepted.match_id
    challenge_moves = play_out(team, accepted.match_id, ("cy", "ann"), rng)

    # The results export: ann's finished matches of the game, the unrated one of the first part too.
    mine = list_my_matches.sync(client=ann, game=RATED_GAME, status=MatchStatus.FINISHED)
    assert isinstance(mine, MyMatches) and all(m.game == RATED_GAME for m in mine.matches), mine
    rated = {m.id for m in mine.matches if m.rated}
    assert rated == {paired.match_id, accepted.match_id} and len(mine.matches) == 3, mine
    assert all(m.result is not None for m in mine.matches)
    board = get_leaderboard.sync(RATED_GAME, client=team.app)
    assert isinstance(board, Leaderboard) and board.pool is LeaderboardPool.PEOPLE, board
    assert sorted(r.player for r in board.players) == ["ann", "bob", "cy"] and board.next_cursor is None
    ordinals = [r.ordinal for r in board.players]
    assert ordinals == sorted(ordinals, reverse=True) and board.players[0].rank == 1, board
    bots = get_leaderboard.sync(RATED_GAME, client=cy, pool=GetLeaderboardPool.BOTS)
    assert isinstance(bots, Leaderboard) and sorted(r.player for r in bots.players) == BUILTIN_LEVELS
    ratings = get_player_ratings.sync("ann", client=bob)
    assert isinstance(ratings, PlayerRatings) and ratings.player == "ann", ratings
    (standing,) = [r for r in ratings.ratings if r.game == RATED_GAME]
    assert standing.matches == 2 and {h.match_id for h in standing.history} == rated, standing
    rows = ",".join(f"{r.rank}:{r.player}:{r.matches}" for r in board.players)
    return f"rated matches=2 moves={seek_moves + challenge_moves} leaderboard={rows} bots={len(bots.players)}"


def started(team: Integration, tournament_id: str) -> Tournament:
    """The tournament once every match is made and its players told: creating one makes none (its
    cost is the same whatever its size), the workers' scheduler does, moments later."""
    for _ in range(300):
        doc = get_tournament.sync(tournament_id, client=team.app)
        assert isinstance(doc, Tournament), doc
        told = [
            e
            for e in team.feed("ann")
            if e.type_ is FeedEntryType.TOURNAMENT_MATCH and e.tournament_id == tournament_id
        ]
        if all(m.status is not TournamentMatchStatus.PENDING for m in doc.matches) and len(told) == len(
            doc.matches
        ):
            return doc
        time.sleep(0.1)
    raise AssertionError(f"tournament {tournament_id}'s matches were not made")


def tournament(team: Integration, rng: random.Random) -> str:
    """Issue 31 through the generated client: the app runs a rated round robin of ann and bob (one
    match from each seat); each hears of its matches on its feed (``tournament_match``), both are
    played out through the players' tokens, and the tournament, finished, shows its standings, its
    export (one typed row per seat) and each player's ``tournament_over``.  Then ann's own token enters
    her and an easy bot in another one, which she cancels: its match is aborted."""
    entrants = [TournamentEntrantRequest(player="ann"), TournamentEntrantRequest(player="bob")]
    request = CreateTournament(
        name="Typed cup",
        game=RATED_GAME,
        players=2,
        entrants=entrants,
        format_=CreateTournamentFormat.ROUND_ROBIN,
        rated=True,
    )
    created = create_tournament.sync(client=team.app, body=request)
    assert isinstance(created, TournamentSummary) and created.status is TournamentSummaryStatus.RUNNING
    assert (
        created.progress.total == 2
        and created.matches_per_pairing == 2
        and created.format_ is TournamentSummaryFormat.ROUND_ROBIN
    )
    made = started(team, created.id)  # the workers' scheduler makes its matches (issue 42)
    assert made.format_ is TournamentFormat.ROUND_ROBIN
    assert [(e.entrant, e.player) for e in made.entrants] == [(0, "ann"), (1, "bob")], made.entrants
    told = [e for e in team.feed("ann") if e.type_ is FeedEntryType.TOURNAMENT_MATCH]
    assert {e.match_id for e in told} == {m.match_id for m in made.matches}, told
    assert all(e.tournament_id == made.id and e.tournament_name == "Typed cup" for e in told), told
    moves = sum(play_out(team, m.match_id, ("ann", "bob"), rng) for m in made.matches)
    done = get_tournament.sync(made.id, client=team.players["bob"])
    assert isinstance(done, Tournament) and done.status is TournamentStatus.FINISHED, done
    assert all(m.status is TournamentMatchStatus.FINISHED and m.places is not None for m in done.matches)
    assert [s.seats for s in done.standings] == [[1, 1], [1, 1]]  # each seat position once
    assert sum(s.points for s in done.standings) == 2.0, done.standings
    export = get_tournament_results.sync(made.id, client=team.app)
    assert isinstance(export, TournamentResults) and export.status is TournamentResultsStatus.FINISHED
    assert len(export.results) == 4 and all(
        r.status is TournamentResultRowStatus.FINISHED for r in export.results
    )
    assert export.standings == done.standings
    listed = list_tournaments.sync(client=team.players["ann"], status=ListTournamentsStatus.FINISHED)
    assert isinstance(listed, TournamentList) and [t.id for t in listed.tournaments] == [made.id], listed
    for pid in ("ann", "bob"):  # told by the workers' scheduler, moments after the last move
        deadline = time.monotonic() + 10
        while not (ends := [e for e in team.feed(pid) if e.type_ is FeedEntryType.TOURNAMENT_OVER]):
            assert time.monotonic() < deadline, f"{pid} was not told the tournament is over"
            time.sleep(0.1)
        (over,) = ends
        (line,) = [s for s in done.standings if done.entrants[s.entrant].player == pid]
        assert (over.tournament_id, over.rank, over.points) == (made.id, line.rank, line.points), over

    mine = CreateTournament(
        game=RATED_GAME,
        players=2,
        entrants=[
            TournamentEntrantRequest(player="ann"),
            TournamentEntrantRequest(level=TournamentEntrantRequestLevel.EASY),
        ],
        matches_per_pairing=1,
    )
    own = create_tournament.sync(client=team.players["ann"], body=mine)
    assert isinstance(own, TournamentSummary) and own.entrants[1].name == "Easy bot", own
    stopped = cancel_tournament.sync(own.id, client=team.players["ann"])
    assert isinstance(stopped, TournamentSummary) and stopped.status is TournamentSummaryStatus.CANCELLED
    called_off = get_tournament.sync(own.id, client=team.players["ann"])  # the answer has no matches
    assert isinstance(called_off, Tournament) and called_off.status is TournamentStatus.CANCELLED
    assert [m.status for m in called_off.matches] == [TournamentMatchStatus.ABORTED], called_off.matches
    again = cancel_tournament.sync(own.id, client=team.app)
    assert isinstance(again, Error) and again.code == "tournament_over", again
    rows = ",".join(f"{s.rank}:{done.entrants[s.entrant].player}:{s.points:g}" for s in done.standings)
    return f"tournament matches={len(done.matches)} moves={moves} standings={rows} cancelled={stopped.id}"


def main() -> None:
    base_url, admin_token = sys.argv[1], sys.argv[2]
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    # Every operation has a name of its own (operationId), the catalogue and health ones too.
    assert get_health.sync(client=anonymous) is not None
    assert list_games.sync(client=anonymous) is not None
    assert A_BOT.to_dict() == {"name": "a bot", "kind": "bot", "level": "easy"}, A_BOT.to_dict()
    assert PlayerSeatRequest(player="ann").to_dict() == {"player": "ann"}
    team = Integration(base_url, admin_token)
    rng = random.Random(15)
    for request in REQUESTS:
        print(play(base_url, team, request, rng), flush=True)
    for pid in PLAYERS:
        print(follow(team, pid, sum(len(r.seats) > PLAYERS.index(pid) for r in REQUESTS)), flush=True)
    print(matchmaking(team, rng), flush=True)
    print(tournament(team, rng), flush=True)


if __name__ == "__main__":
    main()
