"""Redis persistence of apps, players, their tokens, their matches and their feeds (beside
:mod:`service.storage.matches`, which holds the matches; both are the only code that talks to Redis).

Key layout.  An app's keys share the hash tag ``{a:<app>}``, a player's ``{p:<app>:<player>}``, so
every script below touches one cluster slot:

``tt:{a:<app>}:app``        hash: name, key hash, status (``active``/``revoked``), limits, created_at
``tt:{a:<app>}:players``    sorted set: the app's player ids, scored by creation time
``tt:apps``                 sorted set: every app id, scored by creation time (one global key)
``tt:{p:<key>}:profile``    hash: name, bot, created_at, updated_at
``tt:{p:<key>}:tokens``     hash: token id -> ``{"hash", "scopes", "expires_at", "created_at"}``
``tt:{p:<key>}:matches``    sorted set: the player's matches, scored by the match's creation sequence
``tt:{p:<key>}:feed``       a capped Stream (``FEED_LENGTH`` entries): the player's feed
``tt:{p:<key>}:fed``        hash: match id -> the last outbox note of that match fed here (dedup)

A player's feed is derived from the outbox of each match (``tt:{m:<id>}:outbox``, appended by the match's own
commit script, see ``match_commit.lua``): :class:`service.domain.outbox.entries.Outbox` moves its notes into
the players' feeds (and on to webhooks and ratings), each note at most once (``fed``), and pops an outbox
entry only once everything of it is in place.  So a process that dies between a commit and the feed write
loses nothing: the next drain (the next commit's, or the workers' sweep of ``tt:outbox:pending``) delivers it.

``tt:outbox:pending``  sorted set: match id -> when a commit with notes was last about to happen there.
Written before such a commit (a crash after the commit leaves it behind); the sweep drains the
matches it names and drops a name only once it is older than :data:`SETTLED_SECONDS` (any commit
begun before then has ended) and that match's outbox is empty.

Revocations are announced on the pub/sub channel ``tt:revocations`` (:class:`Revocation`,
:meth:`AccountStore.announce`), after they are written: every API process's live reader ends its
waiting clients of the credential at once (:mod:`service.live`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import redis

from service.storage.lua import script
from service.storage.matches import match_key

#: Entries a player's feed keeps (approximately: Redis trims whole nodes).
FEED_LENGTH = 1000
#: A pending-outbox mark this old names no commit still in flight (Redis commands time out far sooner).
SETTLED_SECONDS = 30.0
_APPS = "tt:apps"
_PENDING = "tt:outbox:pending"

#: The pub/sub channel revocations are announced on (:meth:`AccountStore.announce`): every API
#: process's live reader listens to it, and ends the waiting clients of what was revoked.
REVOCATIONS = "tt:revocations"
#: Characters of an app key's stored hash that name the key in a waiter's tag (:func:`fingerprint`).
FINGERPRINT = 16


def app_key(app: str, part: str) -> str:
    return f"tt:{{a:{app}}}:{part}"


def player_slot_key(key: str, part: str) -> str:
    """A key of the player ``key`` (``<app>:<player>``)."""
    return f"tt:{{p:{key}}}:{part}"


def feed_channel(key: str) -> str:
    """The pub/sub channel a feed write publishes on (the feed stream's name)."""
    return player_slot_key(key, "feed")


def fingerprint(key_hash: str) -> str:
    """What names an app key among its app's keys (the start of its stored hash): a waiter opened
    with a key rotated away since is told apart from one opened with the new key."""
    return key_hash[:FINGERPRINT]


@dataclass(frozen=True)
class Revocation:
    """What stopped working, as announced on :data:`REVOCATIONS`: a whole app (its key and every
    token of its players), one app key rotated away (``key``: its :func:`fingerprint`), or some
    tokens of one player (``player``: its key ``<app>:<player>``; ``tokens``: their ids)."""

    app: str
    player: str | None = None
    tokens: tuple[str, ...] = ()
    key: str | None = None

    @property
    def reason(self) -> str:
        """Why a waiter it covers ends: ``app_revoked``, ``key_rotated`` or ``token_revoked``."""
        if self.key is not None:
            return "key_rotated"
        return "app_revoked" if self.player is None else "token_revoked"

    def encode(self) -> bytes:
        doc: dict[str, Any] = {"app": self.app}
        if self.player is not None:
            doc.update(player=self.player, tokens=list(self.tokens))
        if self.key is not None:
            doc["key"] = self.key
        return json.dumps(doc, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, data: bytes) -> Revocation | None:
        """The revocation a message announced; ``None`` for anything else."""
        try:
            doc = json.loads(data)
            return cls(
                str(doc["app"]),
                doc.get("player"),
                tuple(str(t) for t in doc.get("tokens", ())),
                doc.get("key"),
            )
        except (ValueError, KeyError, TypeError):
            return None


def published_entry(data: bytes) -> FeedEntry | None:
    """The feed entry a feed write published (``<id>\n<entry JSON>``), or ``None`` for another message."""
    entry_id, _, body = data.partition(b"\n")
    if not body:
        return None
    return FeedEntry(entry_id.decode(), json.loads(body))


@dataclass(frozen=True)
class StoredApp:
    id: str
    name: str
    key_hash: str
    status: str
    limits: dict[str, Any]
    created_at: float

    @classmethod
    def from_redis(cls, app: str, raw: dict[bytes, bytes]) -> StoredApp:
        h = {k.decode(): v.decode() for k, v in raw.items()}
        return cls(
            id=app,
            name=h["name"],
            key_hash=h["key_hash"],
            status=h["status"],
            limits=json.loads(h.get("limits") or "{}"),
            created_at=float(h["created_at"]),
        )


@dataclass(frozen=True)
class StoredPlayer:
    app: str
    id: str
    name: str
    bot: bool
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class FeedEntry:
    id: str
    entry: dict[str, Any]


class AccountStore:
    """Apps, players, tokens, player match indexes and feeds over the service's Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._feed = script(client, "account_feed")
        self._pop_if = script(client, "account_pop_if")
        self._drop_if = script(client, "drop_if_unchanged")
        self._revoke_all = script(client, "account_revoke_all")

    # -- apps ---------------------------------------------------------------------------------------

    def create_app(self, app: StoredApp) -> bool:
        """Write a new app unless its id is taken (``False``)."""
        fields = {
            "name": app.name,
            "key_hash": app.key_hash,
            "status": app.status,
            "limits": json.dumps(app.limits),
            "created_at": repr(app.created_at),
        }
        if not self.redis.hsetnx(app_key(app.id, "app"), "name", app.name):
            return False
        self.redis.hset(app_key(app.id, "app"), mapping=fields)
        self.redis.zadd(_APPS, {app.id: app.created_at})
        return True

    def app(self, app: str) -> StoredApp | None:
        raw = self.redis.hgetall(app_key(app, "app"))
        return StoredApp.from_redis(app, raw) if raw else None

    def apps(self) -> list[StoredApp]:
        ids = [a.decode() for a in self.redis.zrange(_APPS, 0, -1)]
        pipe = self.redis.pipeline(transaction=False)
        for app in ids:
            pipe.hgetall(app_key(app, "app"))
        return [StoredApp.from_redis(a, raw) for a, raw in zip(ids, pipe.execute(), strict=True) if raw]

    def update_app(self, app: str, **fields: str) -> None:
        self.redis.hset(app_key(app, "app"), mapping=fields)

    # -- players ------------------------------------------------------------------------------------

    def put_player(self, app: str, player: str, name: str, bot: bool, at: float) -> tuple[StoredPlayer, bool]:
        """Create or update a player; the player and whether it was created."""
        key = player_slot_key(f"{app}:{player}", "profile")
        created = bool(self.redis.hsetnx(key, "created_at", repr(at)))
        self.redis.hset(key, mapping={"name": name, "bot": "1" if bot else "0", "updated_at": repr(at)})
        if created:
            self.redis.zadd(app_key(app, "players"), {player: at})
        found = self.player(app, player)
        assert found is not None
        return found, created

    def player(self, app: str, player: str) -> StoredPlayer | None:
        raw = self.redis.hgetall(player_slot_key(f"{app}:{player}", "profile"))
        if not raw or b"name" not in raw:
            return None
        h = {k.decode(): v.decode() for k, v in raw.items()}
        return StoredPlayer(
            app, player, h["name"], h["bot"] == "1", float(h["created_at"]), float(h["updated_at"])
        )

    def players(self, app: str, after: str | None, limit: int) -> tuple[list[StoredPlayer], str | None]:
        """The app's players by id, ``limit`` of them after the id ``after``; and the next cursor."""
        ids = sorted(p.decode() for p in self.redis.zrange(app_key(app, "players"), 0, -1))
        if after:
            ids = [p for p in ids if p > after]
        page = ids[:limit]
        found = [p for p in (self.player(app, pid) for pid in page) if p is not None]
        return found, page[-1] if len(ids) > limit else None

    def player_count(self, app: str) -> int:
        return int(self.redis.zcard(app_key(app, "players")))

    # -- tokens -------------------------------------------------------------------------------------

    def add_token(self, key: str, token_id: str, record: dict[str, Any]) -> None:
        tokens = player_slot_key(key, "tokens")
        self.redis.hset(tokens, token_id, json.dumps(record))
        self._drop_expired_tokens(key)

    def token(self, key: str, token_id: str) -> dict[str, Any] | None:
        raw = self.redis.hget(player_slot_key(key, "tokens"), token_id)
        return json.loads(raw) if raw is not None else None

    def tokens(self, key: str) -> dict[str, dict[str, Any]]:
        raw = self.redis.hgetall(player_slot_key(key, "tokens"))
        return {k.decode(): json.loads(v) for k, v in raw.items()}

    def revoke_token(self, key: str, token_id: str) -> bool:
        return bool(self.redis.hdel(player_slot_key(key, "tokens"), token_id))

    def revoke_tokens(self, key: str) -> list[str]:
        """Revoke every token of the player ``key``; their ids."""
        ids = self._revoke_all(keys=[player_slot_key(key, "tokens")])
        return sorted(i.decode() if isinstance(i, bytes) else str(i) for i in ids)

    # -- revocations --------------------------------------------------------------------------------

    def announce(self, revocation: Revocation) -> None:
        """Tell every API process what was revoked (after the revocation is written): each ends its
        waiting clients of it at once.  A process that misses it (its reader reconnecting) finds out
        at its next look at its waiters' credentials (:meth:`credentials`)."""
        self.redis.publish(REVOCATIONS, revocation.encode())

    def credentials(
        self, apps: list[str], tokens: list[tuple[str, str]]
    ) -> tuple[dict[str, tuple[str, str] | None], dict[tuple[str, str], float | None]]:
        """What the credentials of a process's waiters stand on now, in one round trip: each app's
        status and key :func:`fingerprint` (``None``: no such app), and each player token's
        (``(player key, token id)``) expiry (``None``: revoked)."""
        pipe = self.redis.pipeline(transaction=False)
        for app in apps:
            pipe.hmget(app_key(app, "app"), ["status", "key_hash"])
        for key, token_id in tokens:
            pipe.hget(player_slot_key(key, "tokens"), token_id)
        replies = pipe.execute()
        found_apps: dict[str, tuple[str, str] | None] = {}
        for app, (status, key_hash) in zip(apps, replies[: len(apps)], strict=True):
            if status is None:
                found_apps[app] = None
            else:
                found_apps[app] = (status.decode(), fingerprint((key_hash or b"").decode()))
        found_tokens: dict[tuple[str, str], float | None] = {}
        for token, raw in zip(tokens, replies[len(apps) :], strict=True):
            found_tokens[token] = None if raw is None else float(json.loads(raw)["expires_at"])
        return found_apps, found_tokens

    def _drop_expired_tokens(self, key: str) -> None:
        """Expired tokens are refused when used; dropped here, when the player gets a new one."""
        now = time.time()
        gone = [tid for tid, rec in self.tokens(key).items() if rec["expires_at"] <= now]
        if gone:
            self.redis.hdel(player_slot_key(key, "tokens"), *gone)

    # -- a player's matches -------------------------------------------------------------------------

    def player_matches(self, key: str, before: int | None, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` of the player's match ids, newest first, created before sequence ``before``."""
        top = f"({before}" if before is not None else "+inf"
        rows = self.redis.zrevrangebyscore(
            player_slot_key(key, "matches"), top, "-inf", start=0, num=count, withscores=True
        )
        return [(mid.decode(), int(score)) for mid, score in rows]

    def forget_matches(self, key: str, match_ids: list[str]) -> None:
        """Drop expired matches from a player's index (found when a listing meets them)."""
        if match_ids:
            self.redis.zrem(player_slot_key(key, "matches"), *match_ids)

    def unlist_player(self, app: str, player: str) -> int:
        """Take a deleted player out of the app's list of players (issue 48): 1, or 0 if not there."""
        return int(self.redis.zrem(app_key(app, "players"), player))

    def drop_feed(self, key: str) -> int:
        """Drop the player's feed and its note marks (a deletion, issue 48): the keys there were.  Both
        live in the player's slot; a cluster's client splits a ``DEL`` by slot anyway."""
        return int(self.redis.delete(player_slot_key(key, "feed"), player_slot_key(key, "fed")))

    # -- feeds --------------------------------------------------------------------------------------

    def feed_after(self, key: str, after: str, count: int | None = None) -> list[FeedEntry]:
        """Feed entries with an id greater than ``after`` (``"0-0"``: all kept), oldest first."""
        rows = self.redis.xrange(player_slot_key(key, "feed"), min=f"({after}", max="+", count=count)
        return [FeedEntry(eid.decode(), json.loads(data[b"e"])) for eid, data in rows]

    def feed_last_id(self, key: str) -> str:
        """The id of the player's newest feed entry (``"0-0"`` for none)."""
        rows = self.redis.xrevrange(player_slot_key(key, "feed"), count=1)
        return str(rows[0][0].decode()) if rows else "0-0"

    def feed_after_many(self, cursors: dict[str, str], count: int) -> dict[str, list[FeedEntry]]:
        """:meth:`feed_after` for several players in one round trip: ``{player key: after}`` in."""
        pipe = self.redis.pipeline(transaction=False)
        for key, after in cursors.items():
            pipe.xrange(player_slot_key(key, "feed"), min=f"({after}", max="+", count=count)
        return {
            key: [FeedEntry(eid.decode(), json.loads(data[b"e"])) for eid, data in rows]
            for key, rows in zip(cursors, pipe.execute(), strict=True)
        }

    # -- the outbox ---------------------------------------------------------------------------------

    def mark_pending(self, match_id: str) -> None:
        """Note that a commit with notes is about to happen in ``match_id`` (before the commit)."""
        self.redis.zadd(_PENDING, {match_id: time.time()})

    def pending(
        self, older_than: float, limit: int, *, after: float | None = None
    ) -> list[tuple[str, float]]:
        """Matches marked pending before ``older_than`` (epoch seconds), oldest first; with ``after``,
        only those marked later than that (a sweep's cursor: what it has not looked at yet)."""
        low = "-inf" if after is None else f"({after!r}"
        rows = self.redis.zrangebyscore(_PENDING, low, older_than, start=0, num=limit, withscores=True)
        return [(mid.decode(), float(score)) for mid, score in rows]

    def unmark(self, match_id: str, score: float) -> None:
        """Drop a pending mark unless a commit marked the match again since it was read."""
        self._drop_if(keys=[_PENDING], args=[match_id, repr(score)])

    def outbox_head(self, match_id: str) -> bytes | None:
        """The oldest entry of the match's outbox, as stored (``None``: empty)."""
        head = self.redis.lindex(match_key(match_id, "outbox"), 0)
        return head if isinstance(head, bytes) else None

    def pop_outbox(self, match_id: str, head: bytes) -> bool:
        """Pop the outbox's oldest entry if it is still ``head`` (two drainers at once pop it once)."""
        return bool(self._pop_if(keys=[match_key(match_id, "outbox")], args=[head]))

    def outbox_length(self, match_id: str) -> int:
        return int(self.redis.llen(match_key(match_id, "outbox")))

    def feed_note(self, key: str, source: str, number: int, entry: dict[str, Any], seq: int | None) -> str:
        """Feed one note about ``source`` (a match id, or another source of notes such as a challenge)
        to the player ``key``, numbered within its source (a match's: ``version * 1000 + n``) so it
        reaches the feed once: the new entry's id, or ``""`` if that note (or a later one of the
        source) was fed already.  ``seq`` (a match's creation sequence) lists the match among the
        player's matches; ``None`` for a source that is no match."""
        keys = [player_slot_key(key, p) for p in ("feed", "fed", "matches")]
        args = [source, number, json.dumps(entry), FEED_LENGTH, "" if seq is None else seq]
        fed = self._feed(keys=keys, args=args)
        return fed.decode() if isinstance(fed, bytes) else str(fed or "")
