"""Reading match records (issue 45): one match's, from the perspective its caller is entitled to, and
the exports of many finished matches (a player's, an app's, a tournament's) as NDJSON streams.

An export is a generator of lines: it reads :data:`BATCH` matches a round trip
(:meth:`service.storage.records.RecordStore.load_many`), writes each record as one line and keeps none, so its
memory does not grow with the export (a batch's lines go out as one piece).  A finished match's full
record is written as kept (:mod:`service.domain.records.keeping`), or built, and then kept for the
next reader.  After ``limit`` records its last line is
``{"type": "cursor", "cursor": ...}``: the next call passes it as ``cursor`` and goes on from there.
Everything a request can get wrong (credentials, filters, cursor) is checked before the first line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from engine.core import Game
from engine.records import FULL, SEAT, SPECTATOR, restrict
from service.config import Config
from service.digits import digits
from service.domain.accounts import Accounts
from service.domain.errors import Forbidden, invalid, not_found
from service.domain.identity import READ, Caller
from service.domain.matches.reading import viewing_app
from service.domain.matchmaking.making import caller_app
from service.domain.records.building import SERVICE_EVENT_TYPES, build
from service.domain.records.keeping import Keeper, restricted
from service.encoding import dumps_bytes, loads
from service.storage.accounts import AccountStore
from service.storage.matches import FINISHED, OVER_STATUSES, MatchMeta, Store, now
from service.storage.records import RecordStore
from service.storage.tournaments import TournamentStore

#: Matches an export reads a round trip.
BATCH = 100


@dataclass(frozen=True)
class Filters:
    """An export's filters: the game, rated or not, finished from ``since`` to ``until`` (epoch s)."""

    game: str | None = None
    rated: bool | None = None
    since: float | None = None
    until: float | None = None

    def keeps(self, meta: MatchMeta) -> bool:
        return (
            meta.status == FINISHED
            and self.game in (None, meta.game)
            and self.rated in (None, bool(meta.life.get("rated")))
            and (self.since is None or meta.updated_at >= self.since)
            and (self.until is None or meta.updated_at <= self.until)
        )


def filters(game: str | None, rated: bool | None, since: str | None, until: str | None) -> Filters:
    """An export's :class:`Filters` from its query; 422 for a time that is none or ``since`` after
    ``until``."""
    found = Filters(game, rated, moment("since", since), moment("until", until))
    if found.since is not None and found.until is not None and found.since > found.until:
        raise invalid("since", "`since` is after `until`")
    return found


def moment(field: str, value: str | None) -> float | None:
    """``since``/``until``: ISO-8601 (a zone-less time is UTC) or epoch seconds; 422 naming the field."""
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise invalid(field, f"{value!r} is neither an ISO-8601 time nor epoch seconds") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


class Records:
    """Match records as their callers may read them."""

    def __init__(
        self,
        store: Store,
        games: dict[str, Game],
        config: Config,
        accounts: Accounts,
        seat_of: Callable[[MatchMeta, Caller], int | None],
    ) -> None:
        self.store = store
        self.games = games
        self.config = config
        self.accounts = accounts
        self.players = AccountStore(store.redis)
        self.tournaments = TournamentStore(store.redis)
        self.reads = RecordStore(store.redis)
        self.keeper = Keeper(self.reads, games)
        #: The seat the caller holds in a match (``None``: a spectator), with the 401/404 of ``GET match``.
        self.seat_of = seat_of

    # -- one match --------------------------------------------------------------------------------------

    def record(
        self, match_id: str, who: Caller, *, views: bool, perspective: str | None, seat: int | None
    ) -> dict[str, Any] | bytes:
        """The record of one match as ``who`` may read it (see ``docs/records.md``): a match over is
        everyone's (``full`` by default); in play a seat reads its own perspective (or a spectator's),
        anyone else a spectator's.  A finished match's full record comes as its JSON (kept, or built
        and then kept: :mod:`service.domain.records.keeping`)."""
        build_id = None if views else self.keeper.build_id
        stored = self.reads.load_many([match_id], SERVICE_EVENT_TYPES, build_id)[0]
        if stored is None:
            raise not_found(f"match {match_id!r}")
        meta = stored.meta
        mine = self.seat_of(meta, who)
        over = meta.status in OVER_STATUSES
        if perspective is None:
            perspective = FULL if over else SEAT if mine is not None else SPECTATOR
        if perspective == SEAT:
            seat = mine if seat is None else seat
            if seat is None:
                raise invalid("seat", "as=seat needs the seat: &seat=N")
            if not 0 <= seat < meta.players:
                raise invalid("seat", f"this match has seats 0-{meta.players - 1}")
        elif seat is not None:
            raise invalid("seat", "a seat goes with as=seat only")
        if not over and perspective == FULL:
            raise Forbidden("record_in_play", "the full record is shown once the match is over")
        if not over and perspective == SEAT and seat != mine:
            raise Forbidden("record_in_play", "while the match is in play a seat reads its own record only")
        viewer = viewing_app(who)
        looker = seat if perspective == SEAT else None
        game = self.games[meta.game]
        if build_id is not None:
            kept = self.keeper.usable(stored, viewer)
            if kept is not None:
                return kept if perspective == FULL else restricted(kept, looker)
            if stored.kept is not None:  # kept for another viewer: its parts, to build this one's
                stored = self.reads.load_many([match_id], SERVICE_EVENT_TYPES)[0]
                if stored is None:
                    raise not_found(f"match {match_id!r}")
            elif self.keeper.keepable(stored, viewer):
                full = self.keeper.full(game, stored, viewer)
                self.keeper.keep_built([(match_id, str(stored.stamp), full)])
                return full if perspective == FULL else restrict(loads(full), looker)
        return build(game, stored, perspective, seat, viewer=viewer, views=views)

    # -- exports ----------------------------------------------------------------------------------------

    def player_export(
        self, who: Caller, player: str | None, filters: Filters, cursor: str | None, limit: int
    ) -> Iterator[bytes]:
        """The player's finished matches, newest first (by creation), as records."""
        key = self.accounts.me(who, READ, player)
        before = _int_cursor(cursor)
        gone = partial(self.players.forget_matches, key)
        return self._lines(self._player_ids(key, before), filters, limit, viewing_app(who), gone)

    def app_export(self, who: Caller, filters: Filters, cursor: str | None, limit: int) -> Iterator[bytes]:
        """The app's finished matches, oldest first (by the time they finished), as records."""
        app = caller_app(who, READ)
        gone = partial(self.reads.forget, app, None)
        return self._lines(self._index_ids(app, None, filters, _at_cursor(cursor)), filters, limit, app, gone)

    def tournament_export(
        self, who: Caller, tid: str, filters: Filters, cursor: str | None, limit: int
    ) -> Iterator[bytes]:
        """A tournament's finished matches (of the caller's app), oldest first, as records."""
        app = caller_app(who, READ)
        if self.tournaments.status(app, tid) is None:
            raise not_found(f"tournament {tid!r}")
        gone = partial(self.reads.forget, app, tid)
        return self._lines(self._index_ids(app, tid, filters, _at_cursor(cursor)), filters, limit, app, gone)

    def _player_ids(self, key: str, before: int | None) -> Iterator[tuple[list[str], list[str]]]:
        """Batches of (match ids, their cursors) of the player's index, newest first."""
        while True:
            rows = self.players.player_matches(key, before, BATCH)
            if rows:
                yield [mid for mid, _ in rows], [str(seq) for _, seq in rows]
                before = rows[-1][1]
            if len(rows) < BATCH:
                return

    def _index_ids(
        self, app: str, tid: str | None, filters: Filters, after: tuple[float, str] | None
    ) -> Iterator[tuple[list[str], list[str]]]:
        """Batches of (match ids, their cursors) of an app's (or tournament's) finished index, oldest
        first; names of matches past their retention are dropped from it on the way."""
        self.reads.forget(app, tid, [], now() - self.config.retention_seconds)
        while True:
            rows = self.reads.finished_after(app, tid, after, filters.since, filters.until, BATCH)
            if rows:
                yield [mid for mid, _ in rows], [f"{at!r}@{mid}" for mid, at in rows]
                after = (rows[-1][1], rows[-1][0])
            if len(rows) < BATCH:
                return

    def _lines(
        self,
        batches: Iterator[tuple[list[str], list[str]]],
        filters: Filters,
        limit: int,
        viewer: str | None,
        forget: Callable[[list[str]], None],
    ) -> Iterator[bytes]:
        """The records of the matches ``batches`` name that ``filters`` keep, a line each, and the cursor
        line after ``limit`` of them; the names of matches gone (past their retention) are ``forget``-ten."""
        written = 0
        keeper = self.keeper
        for ids, cursors in batches:
            found = self.reads.load_many(ids, SERVICE_EVENT_TYPES, keeper.build_id)
            gone = [mid for mid, stored in zip(ids, found, strict=True) if stored is None]
            if gone:
                forget(gone)
            lines: list[bytes] = []
            built: list[tuple[str, str, bytes]] = []
            for stored, cursor in zip(found, cursors, strict=True):
                if stored is None or not filters.keeps(stored.meta):
                    continue
                game = self.games.get(stored.meta.game)
                if game is None:
                    continue
                line = keeper.usable(stored, viewer)
                if line is None:
                    parts = stored
                    if stored.kept is not None:  # kept for another viewer: its parts, to build this one's
                        again = self.reads.load_many([stored.meta.id], SERVICE_EVENT_TYPES)[0]
                        if again is None:
                            continue
                        parts = again
                    line = keeper.full(game, parts, viewer)
                    if keeper.keepable(parts, viewer):
                        built.append((parts.meta.id, str(parts.stamp), line))
                lines.append(line)
                written += 1
                if written == limit:
                    lines.append(dumps_bytes({"type": "cursor", "cursor": cursor}))
                    break
            keeper.keep_built(built)
            if lines:
                yield b"\n".join(lines) + b"\n"
            if written == limit:
                return


def _int_cursor(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    if not digits(cursor):
        raise invalid("cursor", "not a cursor of this export: pass the one its last line gave")
    return int(cursor)


def _at_cursor(cursor: str | None) -> tuple[float, str] | None:
    if cursor is None:
        return None
    at, sep, mid = cursor.partition("@")
    try:
        if not sep or not mid:
            raise ValueError(cursor)
        return float(at), mid
    except ValueError:
        raise invalid("cursor", "not a cursor of this export: pass the one its last line gave") from None
