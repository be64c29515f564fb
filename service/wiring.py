"""The composition root: the one place that builds the stores, the domain objects, the outbox and its
subscribers, and the bot queue, for every process alike (the HTTP app, the workers and their keeper,
the command line, benchmarks and tests).

Domain objects receive what they use (their store, a clock, the settings, and narrow collaborators such
as a ``make_match`` callable or a ``note`` sink) and build nothing themselves, so this module is where to
look to see what talks to what.  :func:`build` wires one process's objects over one Redis; each
process calls it once (the API's app factory, each worker process, the CLI's commands).

Two links close a loop, and are made here last, in the open: a tournament's match ending reaches its
tournament through the outbox (:meth:`service.domain.outbox.entries.Outbox.subscribe`), and an app's
revocation reaches its webhooks, tournaments, seeks and challenges
(:attr:`service.domain.accounts.Accounts.app_revoked`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.core import Game
from engine.registry import GAMES
from service.config import Config
from service.domain.accounts import Accounts
from service.domain.chat.chat import Chat
from service.domain.chat.data import ChatData
from service.domain.chat.moderation import Moderation
from service.domain.feeds.decisions import pending_decision
from service.domain.identity import split_player_key
from service.domain.matches.bots import BotQueue
from service.domain.matches.operations import Matches
from service.domain.matchmaking.challenges import Challenges
from service.domain.matchmaking.making import MatchMaker
from service.domain.matchmaking.seeks import Seeks
from service.domain.outbox.entries import Outbox
from service.domain.outbox.notes import FeedSubscriber, Notes
from service.domain.outbox.ratings import RatingSubscriber
from service.domain.outbox.records import RecordSubscriber
from service.domain.outbox.tournaments import TournamentSubscriber
from service.domain.privacy.erasure import Privacy
from service.domain.privacy.matches import MatchData
from service.domain.privacy.matchmaking import ChallengeData, SeekData
from service.domain.privacy.parts import PlayerData
from service.domain.privacy.players import FeedData, ProfileData
from service.domain.privacy.ratings import RatingData
from service.domain.privacy.tournaments import TournamentData
from service.domain.privacy.webhooks import WebhookData
from service.domain.push.push import Push
from service.domain.ratings import Ratings
from service.domain.records.keeping import Keeper
from service.domain.tournaments.scheduler import TournamentScheduler
from service.domain.tournaments.tournaments import Tournaments
from service.domain.webhooks.webhooks import Webhooks
from service.storage.accounts import AccountStore
from service.storage.challenges import ChallengeStore
from service.storage.chat import ChatStore
from service.storage.client import connect
from service.storage.matches import Store, connect_store, now
from service.storage.privacy import PrivacyStore
from service.storage.push import PushStore
from service.storage.ratings import RatingStore
from service.storage.records import RecordStore
from service.storage.seeks import SeekStore
from service.storage.tournaments import TournamentStore
from service.storage.webhooks import WebhookStore


@dataclass(frozen=True)
class Wiring:
    """One process's objects, built by :func:`build`."""

    config: Config
    games: dict[str, Game]
    #: The matches' store; every other store shares its Redis client.
    store: Store
    accounts: Accounts
    webhooks: Webhooks
    ratings: Ratings
    bots: BotQueue
    #: Feeds a note to a player and hands it to the app's webhooks and the player's push subscriptions
    #: (the ``note`` sink).
    notes: Notes
    #: Players' push subscriptions, the server's VAPID key and push deliveries (service/domain/push/).
    push: Push
    #: The matches' outbox and its subscribers (feeds and webhooks, ratings, tournaments).
    outbox: Outbox
    matches: Matches
    seeks: Seeks
    challenges: Challenges
    #: Tournaments as their organisers see them (create, read, cancel).
    tournaments: Tournaments
    #: What runs tournaments: their matches made, results recorded, the keeper's sweep.
    tournament_scheduler: TournamentScheduler
    #: Every kind of data stored about a player, one part each (issue 48), and the requests over them:
    #: a player's export, deletion and the app's audit log of both.
    player_data: list[PlayerData]
    privacy: Privacy
    #: Matches' chats (service/domain/chat/): messages, and their moderation.
    chat: Chat
    moderation: Moderation


def build(
    config: Config,
    *,
    store: Store | None = None,
    games: dict[str, Game] | None = None,
    bot_queue: BotQueue | None = None,
    webhooks: Webhooks | None = None,
    clock: Callable[[], float] = now,
    seen: Callable[[int | None], None] | None = None,
) -> Wiring:
    """Build one process's objects over ``store`` (default: a client of the configured Redis).

    ``games`` defaults to :data:`engine.registry.GAMES`; ``bot_queue`` to the configured lanes over
    ``store``; ``webhooks`` to the app's endpoints over ``store`` (tests pass their own resolver and
    clock); ``clock`` is the time of commits and clocks (epoch seconds: tests of clocks pass their
    own); ``seen`` is told the seat each match call found its caller to hold (the API's access line).
    """
    if store is None:
        store = connect_store(config)
    if games is None:
        games = GAMES
    if bot_queue is None:
        bot_queue = BotQueue(
            store,
            stall_seconds=config.bot_stall_seconds,
            slice_seconds=config.bot_slice_seconds,
            max_think_ms=config.max_think_ms,
            max_hints_per_address=config.max_hints_per_address,
        )
    redis = store.redis
    account_store = AccountStore(redis)
    accounts = Accounts(account_store, config)
    if webhooks is None:
        webhooks = Webhooks(WebhookStore(redis), config)
    ratings = Ratings(RatingStore(redis), config)
    push = Push(PushStore(redis), store.queue, config)
    notes = Notes(account_store, webhooks, push)
    outbox = Outbox(account_store, [FeedSubscriber(notes), RatingSubscriber(ratings, account_store)])
    matches = Matches(
        store, games, config, accounts=accounts, bot_queue=bot_queue, news=outbox, clock=clock, seen=seen
    )
    make_match = MatchMaker(matches.create, store.exists)
    chat_store = ChatStore(redis)
    privacy_store = PrivacyStore(redis)  # its secret keys spectators' chat handles and placeholders

    def player_name(key: str) -> str | None:  # a spectator's name in a chat: its profile's
        found = account_store.player(*split_player_key(key))
        return found.name if found is not None else None

    chat = Chat(
        chat_store,
        matches.reading,
        player_name,
        notes.note,
        clock,
        privacy_store.secret,
        rate=(config.chat_rate_limit, config.chat_rate_seconds),
        max_text=config.chat_max_length,
        retention=config.retention_seconds,
    )
    moderation = Moderation(chat_store, chat, clock, retention=config.retention_seconds)
    seek_store = SeekStore(redis)
    seeks = Seeks(
        seek_store,
        games=games,
        accounts=accounts,
        account_store=account_store,
        ratings=ratings,
        match_store=store,
        make_match=make_match,
        note=notes.note,
        config=config,
        clock=clock,
    )
    challenges = Challenges(
        ChallengeStore(redis),
        games=games,
        accounts=accounts,
        make_match=make_match,
        note=notes.note,
        config=config,
        clock=clock,
    )
    tournament_store = TournamentStore(redis)
    tournaments = Tournaments(
        tournament_store,
        games=games,
        accounts=accounts,
        bot_budget=bot_queue.budget,
        config=config,
        clock=clock,
    )
    scheduler = TournamentScheduler(
        tournament_store,
        games=games,
        match_store=store,
        make_match=make_match,
        abort_match=matches.abort,
        note=notes.note,
        config=config,
        clock=clock,
    )
    # The loops, closed here: a tournament match's end reaches the scheduler through the outbox, and an
    # app's revocation reaches everything long-lived of the app (issue 42).
    outbox.subscribe(TournamentSubscriber(scheduler))
    outbox.subscribe(RecordSubscriber(Keeper(RecordStore(redis), games)))  # a finished match's record, kept
    accounts.app_revoked += [
        webhooks.disable_app,
        tournaments.cancel_all,
        seeks.close_app,
        challenges.close_app,
    ]
    # Player data (issue 48): each kind of data stored about a player is one part, which the export
    # and the deletion cover; a feature that stores player data appends its part to this list.
    player_data: list[PlayerData] = [
        MatchData(matches, account_store, privacy_store),
        SeekData(seeks),
        ChallengeData(challenges, privacy_store),
        TournamentData(tournament_store, scheduler.forget_spec),
        RatingData(ratings.store, games),
        WebhookData(webhooks.store),
        FeedData(account_store),
        push.data,
        ChatData(chat_store, account_store, store, privacy_store, webhooks.store),
    ]
    privacy = Privacy(accounts, privacy_store, ProfileData(account_store, privacy_store), player_data)
    return Wiring(
        config=config,
        games=games,
        store=store,
        accounts=accounts,
        webhooks=webhooks,
        ratings=ratings,
        bots=bot_queue,
        notes=notes,
        push=push,
        outbox=outbox,
        matches=matches,
        seeks=seeks,
        challenges=challenges,
        tournaments=tournaments,
        tournament_scheduler=scheduler,
        player_data=player_data,
        privacy=privacy,
        chat=chat,
        moderation=moderation,
    )


def delivery_webhooks(config: Config, max_connections: int) -> Webhooks:
    """The webhook delivery lane's objects (:mod:`workers.webhooks`, a gevent process of its own): the
    apps' endpoints over a client whose pool its greenlets share, checking before each send that the
    app is not revoked."""
    client = connect(
        config.redis_url,
        timeout=config.redis_timeout_seconds,
        max_connections=max_connections,
        cluster=config.redis_cluster,
    )
    accounts = AccountStore(client)

    def app_status(app: str) -> str | None:
        found = accounts.app(app)
        return found.status if found is not None else None

    matches = connect_store(config, max_connections=max_connections)

    def decide(key: str, match_id: str, seat: int) -> dict[str, Any] | None:
        return pending_decision(matches, GAMES, key, match_id, seat)

    return Webhooks(WebhookStore(client), config, app_status=app_status, decide=decide)
