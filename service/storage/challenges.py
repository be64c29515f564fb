"""Redis persistence of challenges (issue 27): one player invites others to a match, each answers.  The
only code that talks to Redis about them; every script here touches one cluster slot.

**A challenge** is one hash ``tt:{c:<app>:<id>}:challenge`` (``doc``: the challenge as created, JSON;
``status``; ``answer:<player>`` per challenged player; ``declined_by``), expiring
:data:`CHALLENGE_KEEP_SECONDS` after the challenge does.  Two global sorted sets list
``<app>:<id>``: ``tt:challenges:expiry`` (open challenges by expiry) and ``tt:challenges:todo``
(challenges whose last change may still owe its effects: notes, the match; by when it changed).

A player's challenges, sent or received, are listed in the player's slot (as
:mod:`service.storage.accounts` lays it out): ``tt:{p:<key>}:challenges`` (sorted set: id -> creation
time).
"""

from __future__ import annotations

import json
from typing import Any

import redis

from service.storage.accounts import player_slot_key
from service.storage.lua import script
from service.storage.replies import decoded, scored

#: Seconds a challenge can still be read after it expired (or closed earlier).
CHALLENGE_KEEP_SECONDS = 24 * 3600

_CHALLENGE_EXPIRY = "tt:challenges:expiry"
_CHALLENGE_TODO = "tt:challenges:todo"


def challenge_key(app: str, challenge_id: str) -> str:
    return f"tt:{{c:{app}:{challenge_id}}}:challenge"


class ChallengeStore:
    """Challenges, their expiry and to-do indexes, and the players' lists of them, over the service's
    Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._answer = script(client, "challenge_answer")
        self._close_challenge = script(client, "challenge_close")
        self._drop_if = script(client, "drop_if_unchanged")

    def create_challenge(self, app: str, doc: dict[str, Any], keep_seconds: int) -> None:
        """Write a new challenge (its ``id``, ``expires_at`` and ``challenged`` player ids), open, each
        challenged player's answer pending; listed for expiry."""
        key = challenge_key(app, doc["id"])
        fields: dict[Any, Any] = {
            "doc": json.dumps(doc),
            "status": "open",
            "expires_at": repr(doc["expires_at"]),
        }
        fields.update({f"answer:{p}": "pending" for p in doc["challenged"]})
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping=fields)
        pipe.expire(key, keep_seconds)
        pipe.execute()
        self.redis.zadd(_CHALLENGE_EXPIRY, {f"{app}:{doc['id']}": doc["expires_at"]})

    def challenge(self, app: str, challenge_id: str) -> dict[str, Any] | None:
        """The stored challenge: ``doc``, ``status``, ``answers`` (player id -> answer), ``declined_by``."""
        raw = self.redis.hgetall(challenge_key(app, challenge_id))
        if not raw or b"doc" not in raw:
            return None
        h = {decoded(k): decoded(v) for k, v in raw.items()}
        return {
            "doc": json.loads(h["doc"]),
            "status": h["status"],
            "answers": {k.removeprefix("answer:"): v for k, v in h.items() if k.startswith("answer:")},
            "declined_by": h.get("declined_by"),
        }

    def answer(self, app: str, challenge_id: str, player: str, answer: str, now: float) -> list[str]:
        """Record the player's answer (see ``lua/challenge_answer.lua`` for the outcomes)."""
        out = self._answer(keys=[challenge_key(app, challenge_id)], args=[player, answer, repr(now)])
        return [decoded(x) for x in out]

    def close_challenge(self, app: str, challenge_id: str, status: str, now: float) -> str:
        keys = [challenge_key(app, challenge_id)]
        return decoded(self._close_challenge(keys=keys, args=[status, repr(now)]))

    def challenges_due(self, now: float, limit: int) -> list[tuple[str, str]]:
        """Open challenges expired by ``now``: ``(app, id)``."""
        rows = self.redis.zrangebyscore(_CHALLENGE_EXPIRY, "-inf", repr(now), start=0, num=limit)
        out = []
        for row in rows:
            app, _, cid = decoded(row).rpartition(":")
            out.append((app, cid))
        return out

    def app_challenges(self, app: str) -> list[str]:
        """The ids of ``app``'s challenges listed for expiry (the open ones)."""
        prefix = f"{app}:"
        rows = self.redis.zscan_iter(_CHALLENGE_EXPIRY, match=f"{prefix}*", count=1000)
        return [decoded(member).removeprefix(prefix) for member, _ in rows]

    def unlist_challenge(self, app: str, challenge_id: str) -> None:
        self.redis.zrem(_CHALLENGE_EXPIRY, f"{app}:{challenge_id}")

    def mark_todo(self, app: str, challenge_id: str, now: float) -> None:
        """Note that the challenge is about to change, before the change: the sweep settles it if this
        process dies before it did (:meth:`settled`)."""
        self.redis.zadd(_CHALLENGE_TODO, {f"{app}:{challenge_id}": now})

    def todo(self, before: float, limit: int) -> list[tuple[str, str, float]]:
        rows = self.redis.zrangebyscore(
            _CHALLENGE_TODO, "-inf", repr(before), start=0, num=limit, withscores=True
        )
        out = []
        for member, score in scored(rows):
            app, _, cid = member.rpartition(":")
            out.append((app, cid, score))
        return out

    def settled(self, app: str, challenge_id: str, score: float) -> None:
        """Drop the to-do mark unless a later change re-marked it."""
        self._drop_if(keys=[_CHALLENGE_TODO], args=[f"{app}:{challenge_id}", repr(score)])

    def index_challenge(self, key: str, challenge_id: str, created_at: float) -> None:
        self.redis.zadd(player_slot_key(key, "challenges"), {challenge_id: created_at})

    def player_challenges(self, key: str, limit: int) -> list[str]:
        """The player's challenges, newest first."""
        return [decoded(i) for i in self.redis.zrevrange(player_slot_key(key, "challenges"), 0, limit - 1)]

    def unindex_challenges(self, key: str, challenge_ids: list[str]) -> None:
        if challenge_ids:
            self.redis.zrem(player_slot_key(key, "challenges"), *challenge_ids)

    def drop_challenge(self, app: str, challenge_id: str) -> None:
        """Drop a challenge whole, and its expiry and to-do marks (a participant's deletion, issue 48).
        Three slots: one command each (a cluster's pipeline sends each to its own node)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(challenge_key(app, challenge_id))
        pipe.zrem(_CHALLENGE_EXPIRY, f"{app}:{challenge_id}")
        pipe.zrem(_CHALLENGE_TODO, f"{app}:{challenge_id}")
        pipe.execute()
