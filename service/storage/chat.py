"""Redis persistence of matches' chat (issue 47 point 2): messages, mutes, blocks and reports.

Key layout: every key is in the match's slot (hash tag ``{m:<id>}``), named by
:data:`service.storage.matches.CHAT_PARTS`, so a chat lives exactly as long as its match: a chat
script gives the keys it writes the match's time to live (``lua/chat_lib.lua``), and the commit that
sets or drops the match's gives it to them as well (``lua/match_commit.lua``):

``tt:{m:<id>}:chat``             hash: ``seq`` (the last message id), ``block:<author>`` (who blocked the
                                 author, JSON), ``mute:<muter>:<author>`` (``1``), ``rate:<author>``
                                 (``<window start> <count>``, the author's rate limit)
``tt:{m:<id>}:chat:players``     sorted set: the players' channel's messages (JSON), scored by id
``tt:{m:<id>}:chat:spectators``  sorted set: the spectators' channel's
``tt:{m:<id>}:chat:reports``     list: reports of messages (JSON), the newest :data:`MAX_REPORTS`

A message also joins the match's events stream as a ``chat`` event (``lua/chat_post.lua``; its id
``<version>-<n>``, after the events of the version it follows), so the live readers carry it to
every waiter as they carry moves; a deletion removes that event and appends a ``chat_deleted`` one.

Outside the match's slot, a player's index of the matches it wrote in (``tt:{p:<app>:<player>}:chat``,
a sorted set scored by the last message's time): what a player's data export and erasure walk
(:mod:`service.domain.chat.data`).  It names matches and holds no text; names of matches gone are
dropped when the walk meets them, and each message gives the whole index the retention as its time to
live, so it goes at most that long after the player's last message.

And in the app's slot, its reports of every match of the app (``tt:{a:<app>}:chat:reports``): a Stream
(ids in time order: a page's cursor), each entry a report with a copy of the message as reported, the
newest :data:`APP_REPORTS` kept, none older than the retention shown (older ones are trimmed at each
report, and the whole list expires the retention after the last), so a report does not outlive the
chat it reports by much.  An entry records the reported message's player key
and the reporter's, never shown: what a player's erasure rewrites (:meth:`ChatStore.rewrite_app_reports`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

import redis

from service.encoding import dumps, loads
from service.storage.accounts import app_key, player_slot_key
from service.storage.lua import script
from service.storage.matches import CHAT_PARTS, match_key

#: The channels, in the order of :data:`CHAT_PARTS`' message keys.
PLAYERS, SPECTATORS = "players", "spectators"
CHANNELS = (PLAYERS, SPECTATORS)
#: Reports a match keeps (the oldest go first).
MAX_REPORTS = 200
#: Reports an app keeps of all its matches (the oldest go first).
APP_REPORTS = 1000

_HASH, _MESSAGES, _REPORTS = CHAT_PARTS[0], {PLAYERS: CHAT_PARTS[1], SPECTATORS: CHAT_PARTS[2]}, CHAT_PARTS[3]


def _keys(match_id: str, *parts: str) -> list[str]:
    return [match_key(match_id, p) for p in parts]


@dataclass(frozen=True)
class Posted:
    """Outcome of :meth:`ChatStore.post`: the message's id and event id, or why it was refused."""

    id: int = 0
    event_id: str = ""
    gone: bool = False  #: no such match
    blocked: bool = False  #: the author is blocked from this match's chat
    retry_after: int = 0  #: over the rate limit: seconds until the next message may go


class ChatStore:
    """Chat keys of matches over one Redis client (a match's, in one script call each)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._post = script(client, "chat_lib", "chat_post")
        self._delete = script(client, "chat_lib", "chat_delete")
        self._note = script(client, "chat_lib", "chat_note")
        self._rewrite = script(client, "chat_rewrite")
        self._rewrite_stream = script(client, "privacy_rewrite_stream")
        self._rewrite_reports = script(client, "chat_rewrite_reports")

    def post(
        self,
        match_id: str,
        channel: str,
        author: str,
        stored: dict[str, Any],
        shown: dict[str, Any],
        audience: str | list[int],
        now: float,
        rate: tuple[int, float],
    ) -> Posted:
        """Store a message (``stored``: as kept, ``shown``: as clients get it; the script adds the id)
        and its ``chat`` event for ``audience``, within the author's ``rate`` (messages, seconds)."""
        keys = _keys(match_id, "meta", "events", _HASH, _MESSAGES[channel])
        args: list[str | int] = [
            author,
            repr(now),
            rate[0],
            repr(rate[1]),
            dumps(stored),
            dumps(shown),
            dumps(audience),
        ]
        reply = self._post(keys=keys, args=args)
        if reply[0] == 1:
            return Posted(id=int(reply[1]), event_id=reply[2].decode())
        if reply[0] == -3:
            return Posted(retry_after=int(reply[1]))
        return Posted(gone=reply[0] == -1, blocked=reply[0] == -2)

    def page(self, match_id: str, channel: str, after: int, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` messages of ``channel`` with an id above ``after``, oldest first."""
        rows = self.redis.zrangebyscore(
            match_key(match_id, _MESSAGES[channel]), f"({after}", "+inf", 0, limit
        )
        return [loads(row) for row in cast("list[bytes]", rows)]

    def message(self, match_id: str, message_id: int) -> tuple[str, dict[str, Any]] | None:
        """The channel and stored form of the message ``message_id``, or ``None``."""
        pipe = self.redis.pipeline(transaction=False)
        for channel in CHANNELS:
            pipe.zrangebyscore(match_key(match_id, _MESSAGES[channel]), message_id, message_id)
        for channel, rows in zip(CHANNELS, pipe.execute(), strict=True):
            if rows:
                return channel, loads(rows[0])
        return None

    def all_messages(self, match_id: str) -> dict[str, list[dict[str, Any]]]:
        """Every message of both channels, oldest first (a record's chat)."""
        pipe = self.redis.pipeline(transaction=False)
        for channel in CHANNELS:
            pipe.zrange(match_key(match_id, _MESSAGES[channel]), 0, -1)
        replies = pipe.execute()
        return {channel: [loads(r) for r in rows] for channel, rows in zip(CHANNELS, replies, strict=True)}

    def delete(
        self, match_id: str, message_id: int, audiences: tuple[str | list[int], str | list[int]]
    ) -> dict[str, Any] | None:
        """Delete a message (its ``chat`` event too; a ``chat_deleted`` event follows, for each channel's
        ``audiences``): the message as it was, or ``None`` if there was none (or no match)."""
        keys = _keys(match_id, "meta", "events", _MESSAGES[PLAYERS], _MESSAGES[SPECTATORS])
        reply = self._delete(keys=keys, args=[message_id, dumps(audiences[0]), dumps(audiences[1])])
        return cast("dict[str, Any]", loads(reply[1])) if reply[0] == 1 else None

    # -- moderation records -------------------------------------------------------------------------

    def state(self, match_id: str) -> dict[str, str]:
        """The chat hash of a match, decoded (blocks, mutes, rates, the last id): small."""
        raw = cast("dict[bytes, bytes]", self.redis.hgetall(match_key(match_id, _HASH)))
        return {k.decode(): v.decode() for k, v in raw.items()}

    def set_field(self, match_id: str, field: str, value: str) -> bool:
        """Set a field of the chat hash; ``False`` if the match is gone."""
        keys = _keys(match_id, "meta", _HASH)
        return int(self._note(keys=keys, args=["hset", field, value])) == 1

    def drop_field(self, match_id: str, field: str) -> bool:
        """Remove a field of the chat hash; whether it was there."""
        keys = _keys(match_id, "meta", _HASH)
        return int(self._note(keys=keys, args=["hdel", field])) == 1

    def add_report(self, match_id: str, report: dict[str, Any]) -> bool:
        """Keep a report (the newest :data:`MAX_REPORTS`); ``False`` if the match is gone."""
        keys = _keys(match_id, "meta", _REPORTS)
        return int(self._note(keys=keys, args=["rpush", dumps(report), MAX_REPORTS])) == 1

    def reports(self, match_id: str) -> list[dict[str, Any]]:
        return [
            loads(r) for r in cast("list[bytes]", self.redis.lrange(match_key(match_id, _REPORTS), 0, -1))
        ]

    def raw_reports(self, match_id: str) -> list[bytes]:
        """The match's reports as stored (JSON text), for :meth:`rewrite_reports`."""
        return cast("list[bytes]", self.redis.lrange(match_key(match_id, _REPORTS), 0, -1))

    def rewrite_reports(self, match_id: str, changes: list[tuple[int, str, str]]) -> int:
        """Replace reports (index, stored JSON as read, new JSON) still as read: how many were."""
        if not changes:
            return 0
        args = [x for change in changes for x in change]
        return int(self._rewrite_reports(keys=[match_key(match_id, _REPORTS)], args=args))

    def add_app_report(self, app: str, report: dict[str, Any], retention: float) -> str:
        """Keep a report in the app's list (the newest :data:`APP_REPORTS`, none older than
        ``retention`` seconds): its id there."""
        key = app_key(app, "chat:reports")
        oldest = int((time.time() - retention) * 1000)
        pipe = self.redis.pipeline(transaction=True)
        pipe.xadd(key, {"e": dumps(report)}, maxlen=APP_REPORTS, approximate=False)
        pipe.xtrim(key, minid=f"{oldest}-0", approximate=False)
        pipe.expire(key, max(1, int(retention)))
        entry_id, *_ = pipe.execute()
        return cast("bytes", entry_id).decode()

    def app_reports(
        self, app: str, before: str, count: int, retention: float
    ) -> list[tuple[str, dict[str, Any]]]:
        """Up to ``count`` of the app's reports older than the id ``before`` (``"+"``: from the
        newest) and younger than ``retention`` seconds, newest first."""
        if before != "+" and all(int(part) == 0 for part in before.split("-")):
            return []  # nothing is older than the first id (and Redis refuses the bound "(0-0")
        top = f"({before}" if before != "+" else "+"
        oldest = f"{int((time.time() - retention) * 1000)}-0"
        rows = cast("list[Any]", self.redis.xrevrange(app_key(app, "chat:reports"), top, oldest, count))
        return [(eid.decode(), loads(data[b"e"])) for eid, data in rows]

    def all_app_reports(self, app: str) -> list[tuple[str, bytes]]:
        """Every report of the app as stored, oldest first (a player's erasure reads them)."""
        rows = cast("list[Any]", self.redis.xrange(app_key(app, "chat:reports"), "-", "+"))
        return [(eid.decode(), data[b"e"]) for eid, data in rows]

    def rewrite_app_reports(self, app: str, last: str, values: dict[str, str]) -> int:
        """Replace the reports ``values`` names (id -> new JSON) if the newest is still ``last``:
        1 done, 0 written since (read again), -1 no reports."""
        args: list[str] = [last]
        for entry_id, value in values.items():
            args += [entry_id, value]
        return int(self._rewrite_stream(keys=[app_key(app, "chat:reports")], args=args))

    # -- a player's messages (export and erasure) ---------------------------------------------------

    def index(self, player_key: str, match_id: str, at: float, retention: float) -> None:
        """Note that the player ``player_key`` wrote in ``match_id`` (its own slot: a second write),
        and keep the index ``retention`` seconds from now."""
        key = player_slot_key(player_key, "chat")
        pipe = self.redis.pipeline(transaction=True)
        pipe.zadd(key, {match_id: at})
        pipe.expire(key, max(1, int(retention)))
        pipe.execute()

    def indexed(self, player_key: str) -> list[str]:
        """The matches the player wrote in, oldest first."""
        rows = cast("list[bytes]", self.redis.zrange(player_slot_key(player_key, "chat"), 0, -1))
        return [r.decode() for r in rows]

    def unindex(self, player_key: str, match_ids: list[str] | None = None) -> None:
        """Forget matches of the player's index (``None``: the whole index)."""
        key = player_slot_key(player_key, "chat")
        if match_ids is None:
            self.redis.delete(key)
        elif match_ids:
            self.redis.zrem(key, *match_ids)

    def exists(self, match_id: str) -> bool:
        return bool(self.redis.exists(match_key(match_id, "meta")))

    def rewrite(self, match_id: str, channel: str, changes: list[tuple[int, str, str, str]]) -> int:
        """Replace messages (id, stored JSON as read, new JSON, event id to delete): how many were."""
        if not changes:
            return 0
        keys = _keys(match_id, "events", _MESSAGES[channel])
        args = [x for change in changes for x in change]
        return int(self._rewrite(keys=keys, args=args))

    def raw_messages(self, match_id: str, channel: str) -> list[bytes]:
        """The channel's messages as stored (JSON text), for :meth:`rewrite`."""
        return cast("list[bytes]", self.redis.zrange(match_key(match_id, _MESSAGES[channel]), 0, -1))
