"""Redis persistence of ratings and leaderboards (issue 27 points 1 and 2; the rules of rating are
:mod:`service.domain.ratings`'s).

Key layout.  Everything about one app's ratings in one game shares the hash tag ``{r:<app>:<game>}``,
so one script rates a whole match atomically, on one cluster slot:

``tt:{r:<app>:<game>}:ratings``        hash: rater -> its record, JSON ``{"mu", "sigma", "ordinal",
                                       "matches", "last_played_at", "name", "pool"}``.  A rater is a
                                       player id of the app, or ``builtin:<level>``.
``tt:{r:<app>:<game>}:rated``          sorted set: the matches rated already, scored by when they were rated:
                                       what makes rating a match happen once (pruned once no outbox can
                                       ask for them again, see :meth:`RatingStore.apply`).
``tt:{r:<app>:<game>}:seq``            counter: the number of matches rated here, which numbers them.
``tt:{r:<app>:<game>}:board:<pool>``   sorted set, every score 0, ordered by member: the leaderboard of
                                       ``people`` or ``bots`` (see :func:`board_member`).
``tt:{r:<app>:<game>}:history:<rater>`` list: the rater's recent rated matches, newest first, each JSON
                                       with the number (``seq``) of the match here.

This departs from ARCHITECTURE.md's "ratings in the player slot": a match's players each have their own
slot, so no script could update them together, and a compare-and-set across slots is no
compare-and-set.  In one slot per app and game, one script checks that none of the match's players'
ratings changed since they were read and that the match was not rated yet, then writes every rating,
both boards, the histories and the match's mark, all or nothing.

**Leaderboards by member order.**  A board's members are ``<key>:<rater>``, where ``<key>`` is the
ordinal turned into fixed-width text that sorts best first (:func:`board_member`).  So one
``ZRANGEBYLEX`` from the last member seen pages the board without skipping or repeating anyone whose
rating stays put while others change (a keyset cursor; an offset would shift under them), ties fall
back to the rater's id, and the number of members before a ``<key>:`` prefix is the rank: raters of
equal ordinal share it (1, 1, 3).

The price of one slot per app and game: one app's rating updates in one game are serialised on one
Redis node.  An update is a few hash and sorted-set writes: one client rated 2,800 three-seat matches
a second against one slot on the development machine (the model's computation included), far beyond
what finishes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

import redis

from service.storage.lua import script
from service.storage.replies import decoded

PEOPLE, BOTS = "people", "bots"
POOLS = (PEOPLE, BOTS)
#: Ordinals are kept within this bound on the boards (they are tens in practice).
ORDINAL_BOUND = 999_999.0
_OFFSET = 1_000_000.0

#: What :meth:`RatingStore.apply` did.
APPLIED, ALREADY, STALE = "applied", "already", "stale"


class RatingsBusy(redis.RedisError):
    """A rating update lost its compare-and-set too often in a row (a storm of matches of the same
    players).  A storage error like a Redis timeout: the committer leaves the match's outbox entry to
    the sweep (which catches storage errors), and the entry is rated later."""


def slot_key(app: str, game: str, part: str) -> str:
    """A key of the app's ratings in ``game`` (every one shares the hash tag ``{r:<app>:<game>}``)."""
    return f"tt:{{r:{app}:{game}}}:{part}"


def board_member(ordinal: float, rater: str) -> str:
    """The member of ``rater`` on a board: ``<key>:<rater>``, ``<key>`` the ordinal as fixed-width
    text that sorts the best ordinal first (1,000,000 minus the ordinal, 9 decimals).  Ordinals beyond
    :data:`ORDINAL_BOUND` sort as the bound."""
    bounded = min(max(ordinal, -ORDINAL_BOUND), ORDINAL_BOUND)
    return f"{_OFFSET - bounded:017.9f}:{rater}"


def _board_prefix(member: str) -> str:
    """``<key>:`` of a board member: every member of the same ordinal starts so."""
    return member[: member.index(":") + 1]


@dataclass(frozen=True)
class Snapshot:
    """What :meth:`RatingStore.snapshot` read: whether the match was rated already, and each rater's
    stored record as stored (``None``: never rated here)."""

    rated: bool
    records: dict[str, str | None]


@dataclass(frozen=True)
class Write:
    """One rater's new standing, written by :meth:`RatingStore.apply` only if its stored record is
    still ``expected``: the new ``record`` (a dict with at least ``ordinal`` and ``pool``) and the
    entry its history gets (JSON object, numbered by the script)."""

    rater: str
    expected: str | None
    record: dict[str, Any]
    history: dict[str, Any]


@dataclass(frozen=True)
class Page:
    """A page of a board: the raters in order with their records (``None``: a member whose record is
    gone, which never happens while only :meth:`RatingStore.apply` writes both) and the competition
    rank of each; and their board members (a next page starts after one)."""

    rows: list[tuple[str, dict[str, Any] | None, int]]
    members: list[str]


class RatingStore:
    """Ratings, boards and rating histories per app and game, over the service's Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._apply = script(client, "rating_apply")
        self._seed = script(client, "rating_seed")
        self._page = script(client, "rating_page")

    def snapshot(self, app: str, game: str, match_id: str, raters: list[str]) -> Snapshot:
        """Whether ``match_id`` is rated already, and the records of ``raters`` (one round trip, one
        slot)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zscore(slot_key(app, game, "rated"), match_id)
        pipe.hmget(slot_key(app, game, "ratings"), raters)
        rated, raw = pipe.execute()
        values = cast(list[bytes | None], raw)
        return Snapshot(
            rated is not None,
            {r: None if v is None else decoded(v) for r, v in zip(raters, values, strict=True)},
        )

    def apply(
        self,
        app: str,
        game: str,
        match_id: str,
        rated_at: float,
        checks: dict[str, str | None],
        writes: list[Write],
        keep_since: float,
        history_length: int,
    ) -> tuple[str, int | None]:
        """Rate ``match_id`` by ``writes`` (at ``rated_at``, the time its mark keeps), if it was not rated
        yet and every rater in ``checks`` (the writes' raters and any other the computation read)
        still has the record read then.  Drops the marks of matches rated before ``keep_since``.  Returns
        (:data:`APPLIED`, the match's number here), (:data:`ALREADY`, None) or (:data:`STALE`, None)."""
        keys = [slot_key(app, game, p) for p in ("ratings", "rated", "seq", "board:people", "board:bots")]
        args: list[Any] = [match_id, repr(rated_at), repr(keep_since), history_length, len(checks)]
        for rater, expected in checks.items():
            args += [rater, expected or ""]
        for write in writes:
            old = ""
            if write.expected is not None:
                before = json.loads(write.expected)
                old = board_member(float(before["ordinal"]), write.rater)
            keys.append(slot_key(app, game, f"history:{write.rater}"))
            args += [
                write.rater,
                json.dumps(write.record),
                old,
                board_member(float(write.record["ordinal"]), write.rater),
                4 if write.record["pool"] == PEOPLE else 5,
                json.dumps(write.history),
            ]
        reply = cast(list[Any], self._apply(keys=keys, args=args))
        if reply[0] == 1:
            return APPLIED, int(reply[1])
        if reply[0] == 0:
            return ALREADY, None
        return STALE, None

    def seed(self, app: str, game: str, records: dict[str, dict[str, Any]]) -> int:
        """Put each rater of ``records`` (rater -> record) on its board unless it is rated here already;
        how many were new."""
        keys = [slot_key(app, game, p) for p in ("ratings", "board:people", "board:bots")]
        args: list[Any] = []
        for rater, record in records.items():
            member = board_member(float(record["ordinal"]), rater)
            args += [rater, json.dumps(record), member, 2 if record["pool"] == PEOPLE else 3]
        return int(cast(int, self._seed(keys=keys, args=args)))

    def page(self, app: str, game: str, pool: str, after: str | None, count: int) -> Page:
        """Up to ``count`` raters of the ``pool`` board, best first, after the member ``after`` (``None``:
        from the top), with their records and competition ranks."""
        keys = [slot_key(app, game, f"board:{pool}"), slot_key(app, game, "ratings")]
        start = "-" if after is None else f"({after}"
        before, better, members, records = cast(list[Any], self._page(keys=keys, args=[start, count]))
        rows: list[tuple[str, dict[str, Any] | None, int]] = []
        texts = [decoded(m) for m in members]
        rank, previous = int(better) + 1, ""
        for i, (member, raw) in enumerate(zip(texts, records, strict=True)):
            prefix = _board_prefix(member)
            if i > 0 and prefix != previous:
                rank = int(before) + i + 1
            previous = prefix
            text = decoded(raw)
            rows.append((member[len(prefix) :], json.loads(text) if text else None, rank))
        return Page(rows, texts)

    def records(self, app: str, game: str, raters: list[str]) -> dict[str, dict[str, Any] | None]:
        """The records of ``raters`` (``None``: never rated here)."""
        raw = cast(list[bytes | None], self.redis.hmget(slot_key(app, game, "ratings"), raters))
        return {r: None if v is None else json.loads(v) for r, v in zip(raters, raw, strict=True)}

    def standing(
        self, app: str, rater: str, games: list[str], history: int
    ) -> dict[str, tuple[dict[str, Any], int, list[dict[str, Any]]]]:
        """Per game of ``games`` where ``rater`` is rated: its record, its competition rank on its board
        and its ``history`` most recent history entries (newest first)."""
        pipe = self.redis.pipeline(transaction=False)
        for game in games:
            pipe.hget(slot_key(app, game, "ratings"), rater)
        found = {g: json.loads(raw) for g, raw in zip(games, pipe.execute(), strict=True) if raw is not None}
        pipe = self.redis.pipeline(transaction=False)
        for game, record in found.items():
            prefix = _board_prefix(board_member(float(record["ordinal"]), rater))
            pipe.zlexcount(slot_key(app, game, f"board:{record['pool']}"), "-", f"({prefix}")
            pipe.lrange(slot_key(app, game, f"history:{rater}"), 0, history - 1)
        replies = pipe.execute()
        out: dict[str, tuple[dict[str, Any], int, list[dict[str, Any]]]] = {}
        for i, (game, record) in enumerate(found.items()):
            better, entries = replies[2 * i], replies[2 * i + 1]
            out[game] = (record, int(better) + 1, [json.loads(e) for e in entries])
        return out

    def drop_rater(self, app: str, game: str, rater: str) -> bool:
        """Drop ``rater``'s rating, board place and history in ``game`` at once (one slot: the app's
        ratings in the game; a deleted player, issue 48); whether it was rated there."""
        raw = self.redis.hget(slot_key(app, game, "ratings"), rater)
        if raw is None:
            return False
        record = json.loads(raw)
        member = board_member(float(record["ordinal"]), rater)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(slot_key(app, game, "ratings"), rater)
        pipe.zrem(slot_key(app, game, f"board:{record['pool']}"), member)
        pipe.delete(slot_key(app, game, f"history:{rater}"))
        pipe.execute()
        return True

    def history(self, app: str, game: str, rater: str, count: int) -> list[dict[str, Any]]:
        """The ``count`` most recent history entries of ``rater`` in ``game``, newest first."""
        raw = cast(list[bytes], self.redis.lrange(slot_key(app, game, f"history:{rater}"), 0, count - 1))
        return [json.loads(e) for e in raw]
