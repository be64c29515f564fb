"""Matchmaking by seeks (issue 27 points 3 and 5): a player says "find me a 3-player China match", and
compatible seeks are paired into a match, atomically.

**Pools.**  A seek waits in the pool of its app, game and player count (one Redis Cluster slot each,
:class:`service.storage.seeks.Pool`): players meet only their own app's players, and only seeks of one
pool can ever be grouped.  Within a pool, seeks are *compatible* when their terms agree (the same
resolved options, ``rated`` and time control), each one's rating is within the other's rating range
(mutually, for every two of a group), they are not the same player's, and bots agree: a bot player's
seek only meets seeks that allow bots, once their bots may come (``bots.after_seconds``), or other bot
players' seeks.  The rating compared is the player's ordinal in that app and game when it posted.

**Pairing is one script** on the pool (:meth:`service.storage.seeks.SeekStore.add`): it adds the seek
and, if ``players`` compatible seeks now exist (oldest first), takes them all out of the pool and
writes a *pairing* in the same slot, all or nothing.  So no seek is in two groups and nobody is booked
twice, however many processes post at once.  Then :meth:`Seeks.finish` makes the pairing's match: the
seekers' named seats in a random order (seeded by the pairing id), rated if they asked, with the
pairing's id as the match's id, so a retry finds the match made and cannot make another; then each
seeker's ``seek_matched`` note; then the pairing is marked done.  A process dying on the way leaves an
unfinished pairing, which the workers' sweep finishes (:meth:`Seeks.sweep`).

**Bots.**  A person's seek that allows bots waits ``bots.after_seconds`` for people; then the sweep
groups it with what is ready to sit with bots (bot players' seeks, people's seeks whose bots came due)
and fills the seats left with the app's bot players that have room (a bot player plays at most
``bot_max_matches`` matches at once: its active matches, counted from its match index, and its
bookings and open seeks, under one script in its slot), nearest in rating first, or else with built-in
bots of the seek's ``bots.level``.  A seek that asks for a ``level`` gets that level: bot players
(their seeks, and the fill) only come to it if it also says ``bots.players`` (issue 42 point 7), and a
fill groups only seeks asking for one level.  A bot player posts seeks too, several at once up to
that cap; they meet other bot players' seeks at once and, with ``bots``, are filled like a person's.

**One open seek per person.**  A person claims its one open seek in its own slot before the seek
enters its pool (409 ``seek_open`` naming the one it has); a claim is released when the seek is
matched, expires or is cancelled, and one whose seek is no longer open is dropped when met.

**Notes.**  The match's own creation tells its players (``invited``, ``match_started``,
``your_turn``); each seeker also gets ``seek_matched`` (seek and match ids, seat) and, when a seek
expires unpaired, ``seek_expired``, through :meth:`service.domain.outbox.notes.Notes.note` (feeds and
webhooks), numbered 1 within the source ``s:<seek id>`` so each is given once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.ai import LEVELS
from engine.core import Game
from service.config import Config
from service.digits import digits
from service.domain.accounts import Accounts
from service.domain.errors import Conflict, Forbidden, invalid, not_found
from service.domain.feeds import feed
from service.domain.feeds.sources import SEEK_NOTE, NoteSink, seek_source
from service.domain.games import check_count, known_game
from service.domain.identity import PLAY, PLAYER, READ, Caller, player_key, split_player_key
from service.domain.matches import seating
from service.domain.matchmaking.making import Clock, MakeMatch, Terms, caller_app, match_terms
from service.domain.ratings import Ratings
from service.storage.accounts import AccountStore, StoredPlayer
from service.storage.client import STORAGE_ERRORS
from service.storage.matches import ACTIVE, WAITING, Store
from service.storage.seeks import SEEK_KEEP_SECONDS, Pool, SeekState, SeekStore

log = logging.getLogger(__name__)

OPEN, PAIRING, MATCHED, EXPIRED, CANCELLED = "open", "pairing", "matched", "expired", "cancelled"
#: A seek's statuses: ``pairing`` is the moment between its group being taken and its match made.
SEEK_STATUSES = (OPEN, PAIRING, MATCHED, EXPIRED, CANCELLED)
#: Seconds a person's seek that allows bots waits for people unless it says otherwise.
DEFAULT_BOTS_AFTER = 60
#: The level of built-in bots filling a seek's seats unless it says otherwise.
DEFAULT_BOT_LEVEL = "easy"
#: The longest a seek may wait.
MAX_SEEK_SECONDS = 7 * 24 * 3600
#: Seconds a pairing is left to the process that took it before the sweep finishes it too.
GRACE_SECONDS = 2.0
#: Seconds a claimed seek may be missing from its pool (posted this moment) before its claim is
#: taken for a dead poster's.
CLAIM_GRACE_SECONDS = 30.0
#: A bot player's matches read from its match index (newest first) to count its active ones.
BOT_SCAN = 200
#: Seconds the sweep reuses an app's list of bot players.
BOT_LIST_SECONDS = 5.0
#: Items one sweep handles per pool and step (the rest wait for the next second).
SWEEP_LIMIT = 200
#: Seconds a pool with nothing in it stays in the pools' index.
POOL_IDLE_SECONDS = 60.0


def terms(options: dict[str, Any], rated: bool, control: dict[str, Any] | None) -> str:
    """What two seeks must share to be grouped, as a short digest."""
    text = json.dumps([options, rated, control], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Swept:
    """What one :meth:`Seeks.sweep` did."""

    expired: int = 0
    told: int = 0
    finished: int = 0
    filled: int = 0
    forgotten: int = 0
    pools: int = 0
    failed: list[str] = field(default_factory=list)


class Seeks:
    """Open seeks per app, game and player count, paired into matches."""

    def __init__(
        self,
        store: SeekStore,
        *,
        games: Mapping[str, Game],
        accounts: Accounts,
        account_store: AccountStore,
        ratings: Ratings,
        match_store: Store,
        make_match: MakeMatch,
        note: NoteSink,
        config: Config,
        clock: Clock,
    ) -> None:
        self.store = store
        self.games = games
        #: Who posts (a player token's player, or the player an app key names).
        self.accounts = accounts
        #: The players' match indexes (a bot player's matches under way) and the app's bot players.
        self.account_store = account_store
        self.ratings = ratings
        #: The matches' metas: a bot player's matches under way, the seat a seeker got.
        self.match_store = match_store
        self.make_match = make_match
        self.note = note
        self.config = config
        self.now = clock
        self._bot_lists: dict[str, tuple[float, list[StoredPlayer]]] = {}

    # -- posting ------------------------------------------------------------------------------------

    def post(self, caller: Caller, request: dict[str, Any]) -> dict[str, Any]:
        """Post a seek for the caller's player (a player token with ``play``, or the app key naming
        ``player``) and pair it at once if a compatible group is open: the seek, ``matched`` with its
        match then, else ``open``."""
        key = self.accounts.me(caller, PLAY, request.get("player"))
        app, player_id = split_player_key(key)
        player = self.accounts.stored_player(app, player_id)
        agreed = match_terms(self.games, request, request["players"], "players")
        expires_in = request.get("expires_in", self.config.seek_seconds)
        if not 1 <= expires_in <= MAX_SEEK_SECONDS:
            raise invalid("expires_in", f"from 1 to {MAX_SEEK_SECONDS} seconds")
        lo, hi = self._range(request.get("rating_range") or {})
        bots = self._bots(request.get("bots"), expires_in, agreed)
        now = self.now()
        pool = Pool(app, agreed.game.id, agreed.players)
        seek_id = f"{pool.game}.{pool.players}.{secrets.token_hex(8)}"
        rating = self.rating(app, pool.game, player_id)
        record = {
            "id": seek_id,
            "game": pool.game,
            "players": pool.players,
            "options": agreed.options,
            "rated": agreed.rated,
            "time_control": agreed.time_control,
            "rating_range": {"min": lo, "max": hi},
            "bots": bots,
            "player": {"id": player.id, "name": player.name, "bot": player.bot, "rating": rating},
            "created_at": now,
            "expires_at": now + expires_in,
        }
        compat: dict[str, Any] = {
            "p": key,
            "t": terms(agreed.options, agreed.rated, agreed.time_control),
            "r": rating,
            "b": player.bot,
            "ab": bots["allow"],
        }
        if lo is not None:
            compat["lo"] = lo
        if hi is not None:
            compat["hi"] = hi
        bots_at = None
        if compat["ab"]:  # who may fill its seats: the level asked, and whether bot players may
            bots_at = compat["at"] = now + bots["after_seconds"]
            compat["lv"], compat["bp"] = bots["level"], bots["players"]
        # Claimed first, so a person's two posts at once cannot both be open.  A claim whose seek
        # never reached its pool (Redis failed in between: the seek may or may not be in) is dropped
        # when met CLAIM_GRACE_SECONDS later.
        self._claim(key, player.bot, seek_id, now)
        pairing = self.store.add(pool, record, compat, now, secrets.token_hex(8), bots_at)
        if pairing is not None:
            try:
                self.finish(pool, pairing)
            except STORAGE_ERRORS as exc:  # the pairing stands; the sweep makes its match
                log.warning("seeks: pairing %s left to the sweep: %s", pairing["id"], exc)
        return self._document(pool, seek_id)

    @staticmethod
    def _range(given: dict[str, Any]) -> tuple[float | None, float | None]:
        lo, hi = given.get("min"), given.get("max")
        if lo is not None and hi is not None and lo > hi:
            raise invalid("rating_range.min", "is above rating_range.max")
        return lo, hi

    @staticmethod
    def _bots(given: dict[str, Any] | None, expires_in: int, agreed: Terms) -> dict[str, Any]:
        """The seek's bot settings with their defaults, a bot player's as a person's (issue 42 point 7).
        ``players`` (whether the app's bot players may fill seats, or only built-in bots of ``level``)
        defaults to true unless a ``level`` was asked for: a level asked for is the level played.  A
        rated seek lets bots fill only a two-player match: a rated match holds each built-in level in one
        seat (:func:`service.domain.matches.creation.check_rated`), and two empty seats would need two."""
        given = given or {}
        asked = given.get("level")
        settings = {
            "allow": bool(given.get("allow", False)),
            "after_seconds": given.get("after_seconds", DEFAULT_BOTS_AFTER),
            "level": DEFAULT_BOT_LEVEL if asked is None else asked,
            "players": bool(given.get("players", asked is None)),
        }
        if settings["level"] not in LEVELS:
            raise invalid("bots.level", f"one of {list(LEVELS)}")
        if settings["allow"] and not 0 <= settings["after_seconds"] < expires_in:
            raise invalid("bots.after_seconds", "from 0 to less than expires_in: bots come before it expires")
        if settings["allow"] and agreed.rated and agreed.players > 2:
            raise invalid(
                "bots.allow",
                "a rated seek lets bots fill two-player matches only: a rated match has each built-in "
                "level in one seat, and more empty seats would need it twice",
            )
        return settings

    def _claim(self, key: str, bot: bool, seek_id: str, now: float) -> None:
        """Claim the seek for its player: a person's one open seek (409 ``seek_open``), a bot player's
        place under its cap (409 ``bot_busy``)."""
        if bot:
            self._drop_stale_claims(key, now)
            active, over = self._matches_of(key)
            if self.store.claim(key, "seek", seek_id, now, self.config.bot_max_matches, active, over):
                raise Conflict(
                    "bot_busy",
                    f"this bot player has {self.config.bot_max_matches} matches and open seeks at once "
                    "already (TABLETOP_BOT_MAX_MATCHES)",
                    {"max": self.config.bot_max_matches},
                )
            return
        for _ in range(3):
            held = self.store.claim(key, "one", seek_id, now)
            if not held:
                return
            if not self._drop_stale_claims(key, now, only=held):
                raise Conflict(
                    "seek_open", f"this player has an open seek already: {held}", {"seek_id": held}
                )
        raise Conflict("busy", "this player's seeks changed too often while we tried; try again")

    def _drop_stale_claims(self, key: str, now: float, only: str | None = None) -> bool:
        """Release the player's claims whose seek is no longer open (matched, expired, cancelled; or
        never posted, by a poster that died); whether any (``only``: that one) was released, here or
        meanwhile."""
        app, _ = split_player_key(key)
        claims = self.store.claimed(key)
        if only is not None and only not in claims:
            return True  # released meanwhile (its pairing was finished since the claim met it): claim again
        stale = []
        for seek_id, claimed_at in claims.items():
            if only is not None and seek_id != only:
                continue
            pool = self._pool_of(app, seek_id)
            state = self.store.seek(pool, seek_id) if pool is not None else None
            if state is None:
                if now - claimed_at > CLAIM_GRACE_SECONDS:
                    stale.append(seek_id)
            elif state.status != OPEN:
                stale.append(seek_id)
        self.store.release(key, stale)
        return bool(stale)

    def _matches_of(self, key: str) -> tuple[list[str], list[str]]:
        """The player's matches under way (waiting or active) and over, from its match index (the
        newest :data:`BOT_SCAN`)."""
        rows = self.account_store.player_matches(key, None, BOT_SCAN)
        metas = self.match_store.metas([mid for mid, _ in rows])
        active: list[str] = []
        over: list[str] = []
        for (mid, _), meta in zip(rows, metas, strict=True):
            (active if meta is not None and meta.status in (WAITING, ACTIVE) else over).append(mid)
        return active, over

    def rating(self, app: str, game: str, player_id: str) -> float:
        """The player's conservative rating (ordinal) in the app and game, as pairing compares it."""
        return self.ratings.ordinal(app, game, player_key(app, player_id))

    # -- pairing into a match -----------------------------------------------------------------------

    def finish(self, pool: Pool, pairing: dict[str, Any]) -> str:
        """Make the pairing's match (once: its id is the pairing's), tell each seeker, mark the pairing
        done and release the seekers' claims.  Idempotent: the sweep runs it again for a pairing a dead
        process left.  The match id."""
        match_id: str = pairing["id"]
        states = [s for s in self.store.seeks(pool, pairing["seeks"]) if s is not None]
        if not states:  # forgotten long ago; nothing left to do
            self.store.done(pool, match_id, match_id, self.now())
            return match_id
        records = [s.record for s in states]
        first = records[0]
        agreed = Terms(
            self.games[pool.game],
            pool.players,
            first["options"],
            first["rated"],
            first["time_control"],
        )
        if not self.match_store.exists(match_id):
            seats: list[dict[str, Any]] = [
                {"kind": seating.HUMAN, "player": r["player"]["id"]} for r in records
            ]
            seats += self._fill(pool, match_id, records, int(pairing["fill"]))
            random.Random(match_id).shuffle(seats)
            self.make_match(pool.app, match_id, agreed, seats)
        meta = self.match_store.metas([match_id])[0]
        for record in records:
            key = player_key(pool.app, record["player"]["id"])
            seat = seating.seat_of_player(meta.life, key) if meta is not None else None
            entry: dict[str, Any] = {
                "type": feed.SEEK_MATCHED,
                "seek_id": record["id"],
                "match_id": match_id,
                "game": pool.game,
                "players": pool.players,
            }
            if seat is not None:  # (the match is gone only for a pairing finished days late)
                entry["seat"] = seat
            self.note(key, seek_source(record["id"]), SEEK_NOTE, entry, None)
        self.store.done(pool, match_id, match_id, self.now())
        for record in records:
            self.store.release(player_key(pool.app, record["player"]["id"]), [record["id"]])
        return match_id

    def _fill(
        self, pool: Pool, match_id: str, records: list[dict[str, Any]], need: int
    ) -> list[dict[str, Any]]:
        """Seats for ``need`` bots: the app's bot players with room (booked under their cap), nearest
        in rating to the seekers and within every seeker's rating range, unless a seeker allows only
        built-in bots (``bots.players`` false); built-in bots of the seekers' level for the rest (the
        pairing script groups for a fill only seeks that ask for one level)."""
        if need <= 0:
            return []
        asked = [r["bots"] for r in records if (r.get("bots") or {}).get("allow")]
        level = asked[0]["level"] if asked else DEFAULT_BOT_LEVEL
        builtins = [
            {"kind": seating.BOT, "name": f"{level.title()} bot", "level": level} for _ in range(need)
        ]
        if not all(b.get("players", True) for b in asked):  # (absent: a seek posted before it could say)
            return builtins
        now = self.now()
        taken = {r["player"]["id"] for r in records}
        ratings = [r["player"]["rating"] for r in records]
        mean = sum(ratings) / len(ratings)
        candidates = []
        for bot in self._bot_players(pool.app, now):
            if bot.id in taken:
                continue
            rating = self.rating(pool.app, pool.game, bot.id)
            if all(_within(r["rating_range"], rating) for r in records):
                candidates.append((abs(rating - mean), bot.id))
        seats: list[dict[str, Any]] = []
        for _, bot_id in sorted(candidates):
            if len(seats) == need:
                break
            key = player_key(pool.app, bot_id)
            self._drop_stale_claims(key, now)
            active, over = self._matches_of(key)
            if not self.store.claim(key, "book", match_id, now, self.config.bot_max_matches, active, over):
                seats.append({"kind": seating.HUMAN, "player": bot_id})
        return seats + builtins[len(seats) :]

    def _bot_players(self, app: str, now: float) -> list[StoredPlayer]:
        """The app's bot players (read through at most every :data:`BOT_LIST_SECONDS`)."""
        cached = self._bot_lists.get(app)
        if cached is not None and now - cached[0] < BOT_LIST_SECONDS:
            return cached[1]
        found: list[StoredPlayer] = []
        after: str | None = None
        while True:
            page, after = self.account_store.players(app, after, 500)
            found += [p for p in page if p.bot]
            if after is None:
                break
        self._bot_lists[app] = (now, found)
        return found

    # -- reading and cancelling ---------------------------------------------------------------------

    def get(self, caller: Caller, seek_id: str) -> dict[str, Any]:
        """A seek of the caller's app (any of its players may read it, as the listing shows it)."""
        app = caller_app(caller, READ)
        pool = self._pool_of(app, seek_id)
        if pool is None:
            raise not_found(f"seek {seek_id!r}")
        return self._document(pool, seek_id)

    def cancel(self, caller: Caller, seek_id: str) -> dict[str, Any]:
        """Withdraw an open seek: its player (``play``) or its app's key.  409 ``seek_closed`` once it
        is matched (or being matched), expired or cancelled."""
        app = caller_app(caller, PLAY)
        pool = self._pool_of(app, seek_id)
        state = self.store.seek(pool, seek_id) if pool is not None else None
        if pool is None or state is None:
            raise not_found(f"seek {seek_id!r}")
        owner = player_key(app, state.record["player"]["id"])
        if caller.kind == PLAYER and caller.player_key != owner:
            raise Forbidden("not_your_seek", "only the seek's player (or its app's key) cancels it")
        status = self.store.close(pool, seek_id, CANCELLED, self.now(), tell=False)
        if status != "ok":
            current = self.store.seek(pool, seek_id)
            shown = current.status if current is not None else status
            raise Conflict("seek_closed", f"the seek is {shown}, no longer open", {"status": shown})
        self.store.release(owner, [seek_id])
        return self._document(pool, seek_id)

    def close_app(self, app: str, reason: str) -> int:
        """Close every open seek of ``app``, revoked (``reason``, issue 42): each ``cancelled``, its
        player's claim released, nobody told (the app's feeds and webhooks are dead with it).  A
        seek being paired this moment is left to its pairing.  How many were closed."""
        closed = 0
        for pool in self.store.app_pools(app):
            while True:  # a page at a time, until none is open (or none of those left closes)
                page = [sid for sid, _ in self.store.open_seeks(pool, None, SWEEP_LIMIT)]
                now = self.now()
                done = 0
                for seek_id, state in zip(page, self.store.seeks(pool, page), strict=True):
                    if self.store.close(pool, seek_id, CANCELLED, now, tell=False) == "ok":
                        done += 1
                    if state is not None:
                        self.store.release(player_key(app, state.record["player"]["id"]), [seek_id])
                closed += done
                if not done:
                    break
        if closed:
            log.info("seeks: %d open seek(s) of app %s closed (%s)", closed, app, reason)
        return closed

    def list_open(
        self, caller: Caller, game_id: str, players: int | None, after: float | None, limit: int
    ) -> tuple[list[dict[str, Any]], float | None]:
        """The caller's app's open seeks of a game (of one player count, or all), oldest first, after
        the posting time ``after``; and the next cursor (``None``: no more)."""
        app = caller_app(caller, READ)
        game = known_game(self.games, game_id)
        if players is not None:
            check_count(game, players, "players")
        counts = [players] if players is not None else list(range(game.min_players, game.max_players + 1))
        rows: list[tuple[float, str, Pool]] = []
        for n in counts:
            pool = Pool(app, game.id, n)
            rows += [(at, sid, pool) for sid, at in self.store.open_seeks(pool, after, limit + 1)]
        rows.sort(key=lambda row: (row[0], row[1]))
        page, more = rows[:limit], len(rows) > limit
        docs = []
        for _, sid, pool in page:
            state = self.store.seek(pool, sid)
            if state is not None and state.status == OPEN:
                docs.append(document(state))
        return docs, page[-1][0] if more and page else None

    def _pool_of(self, app: str, seek_id: str) -> Pool | None:
        """The pool a seek id names (``<game>.<players>.<random>``), or ``None`` for an id that names
        none of this server's."""
        game, _, rest = seek_id.partition(".")
        count, _, tail = rest.partition(".")
        if game not in self.games or not digits(count) or not tail or len(count) > 2:
            return None
        return Pool(app, game, int(count))

    def _document(self, pool: Pool, seek_id: str) -> dict[str, Any]:
        state = self.store.seek(pool, seek_id)
        if state is None:
            raise not_found(f"seek {seek_id!r}")
        return document(state)

    # -- the sweep ----------------------------------------------------------------------------------

    def sweep(self, now: float) -> Swept:
        """What the workers do once a second for every pool: expire the seeks due (and tell their
        players), finish the pairings a dead process left, fill with bots the seeks whose bots came
        due, drop the records of seeks closed long ago and idle pools from the index."""
        swept = Swept()
        for pool, score in self.store.pools():
            swept.pools += 1
            try:
                self._sweep_pool(pool, score, now, swept)
            except STORAGE_ERRORS:
                raise  # Redis is away: the caller waits for it
            except Exception:  # one pool's failure (a bug) must not stop the others
                log.exception("seeks: the sweep of pool %s failed", pool.tag)
                swept.failed.append(pool.tag)
        return swept

    def _sweep_pool(self, pool: Pool, score: float, now: float, swept: Swept) -> None:
        swept.expired += len(self.store.expire_due(pool, now, SWEEP_LIMIT))
        for seek_id in self.store.to_tell(pool, SWEEP_LIMIT):
            self._tell_expired(pool, seek_id)
            swept.told += 1
        for pairing in self.store.unfinished(pool, now - GRACE_SECONDS, SWEEP_LIMIT):
            self.finish(pool, pairing)
            swept.finished += 1
        for seek_id in self.store.bots_due(pool, now, SWEEP_LIMIT):
            filled = self.store.regroup(pool, seek_id, now, secrets.token_hex(8), fill=True)
            if filled is not None:
                self.finish(pool, filled)
                swept.filled += 1
        swept.forgotten += self.store.forget(pool, now - SEEK_KEEP_SECONDS, SWEEP_LIMIT)
        if score < now - POOL_IDLE_SECONDS:
            self.store.drop_pool(pool, score)

    def _tell_expired(self, pool: Pool, seek_id: str) -> None:
        state = self.store.seek(pool, seek_id)
        if state is not None:
            key = player_key(pool.app, state.record["player"]["id"])
            entry = {
                "type": feed.SEEK_EXPIRED,
                "seek_id": seek_id,
                "match_id": None,
                "game": pool.game,
                "players": pool.players,
            }
            self.note(key, seek_source(seek_id), SEEK_NOTE, entry, None)
            self.store.release(key, [seek_id])
        self.store.told(pool, seek_id)


def _within(given: dict[str, Any], rating: float) -> bool:
    lo, hi = given.get("min"), given.get("max")
    return (lo is None or rating >= lo) and (hi is None or rating <= hi)


def document(state: SeekState) -> dict[str, Any]:
    """A seek as the API shows it (nothing secret: the listing shows it to the app's players)."""
    record = state.record
    return {
        "id": record["id"],
        "status": state.status,
        "match_id": state.match_id if state.status == MATCHED else None,
        "game": record["game"],
        "players": record["players"],
        "options": record["options"],
        "rated": record["rated"],
        "time_control": record["time_control"],
        "rating_range": record["rating_range"],
        "bots": record["bots"],
        "player": record["player"],
        "created_at": record["created_at"],
        "expires_at": record["expires_at"],
    }
