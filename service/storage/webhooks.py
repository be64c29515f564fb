"""Redis persistence of webhooks: an app's endpoints, the messages queued for each, their delivery log,
and the one global index the delivery lanes poll (beside :mod:`service.storage.accounts`; the only code
of the feature that talks to Redis).

Key layout.  Every key of an app's webhooks carries the app's hash tag ``{a:<app>}`` (one cluster slot
per app), so each script below touches one slot and declares every key it touches:

``tt:{a:<app>}:wh:routes``       hash: endpoint id -> ``<1|0>|<types, comma-separated; empty: all>``
                                 (enabled flag and wanted types: what :meth:`WebhookStore.routes`
                                 reads in one round trip for every note of the app's players)
``tt:{a:<app>}:wh:<ep>:ep``      hash: url, types (JSON), description, status, disabled_reason,
                                 failing_since, created_at, updated_at, secret, previous_secret,
                                 previous_secret_expires_at, seq (the log's counter)
``tt:{a:<app>}:wh:<ep>:msgs``    hash: message id -> its state (flat JSON: type, source, status,
                                 attempts, next_attempt_at, ..., ``next``: the message of the same
                                 source queued after it; ``caught_up``: its attempts when a catch-up
                                 last made it due)
``tt:{a:<app>}:wh:<ep>:body``    hash: message id -> the payload, exactly the bytes signed
``tt:{a:<app>}:wh:<ep>:log``     sorted set: message id -> its number on this endpoint (the delivery log)
``tt:{a:<app>}:wh:<ep>:done``    sorted set: finished message id -> when (trimmed: :data:`KEEP_DONE`
                                 newest, none older than :data:`KEEP_SECONDS`; its message and body go too)
``tt:{a:<app>}:wh:<ep>:seen``    sorted set: message id -> when queued, the last :data:`DEDUP_SECONDS`
                                 (a note carried twice is queued once, even once its log entry is gone)
``tt:{a:<app>}:wh:<ep>:ready``   sorted set: message id -> when it is due (only heads of their source)
``tt:{a:<app>}:wh:<ep>:flight``  sorted set: message id -> when its lease ends (being delivered)
``tt:{a:<app>}:wh:<ep>:tails``   hash: source (a match id, ``c:<challenge>``...) -> its newest
                                 unfinished message

**Per-source order.**  The unfinished messages of one source form a chain (``tails`` names its last
link, each message's ``next`` the one after it); only the chain's head is ever ready or in flight, so a
receiver hears a match's notes in the order of its commits, each once the previous one is delivered or
has failed for good.

``tt:webhooks:due``  sorted set (one global key): ``<app>|<endpoint>`` -> when that endpoint may next
have work (a ready head, or a lease that ends).  It is an index, repairable: an enqueue writes it
*before* queueing (a crash in between leaves a harmless stale member, never a message no lane sees); a
lane takes a member by moving its score forward only if unchanged (:meth:`WebhookStore.take`), and
settles it afterwards the same way (:meth:`WebhookStore.settle`), re-reading the endpoint whenever it
moved the score later or dropped it, so a wake-up written meanwhile by another lane is never lost.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import redis

from service.storage.lua import script
from service.storage.replies import decoded

#: The global index of endpoints with work (see the module).
DUE = "tt:webhooks:due"
#: Finished messages an endpoint's log keeps, at most, and for at most this long.
KEEP_DONE = 1000
KEEP_SECONDS = 3 * 24 * 3600
#: Seconds a queued message's id is remembered, so the same note carried again (an outbox drained
#: twice: the committer and the sweep, or a drain that died before its pop) is not queued again.  The
#: outbox sweep carries what a dead committer left within a minute or so; an hour is ample.
DEDUP_SECONDS = 3600

#: Endpoint hash fields holding secrets: read only to sign, never into a document.
SECRET_FIELDS = ("secret", "previous_secret")

# -- Lua ---------------------------------------------------------------------------------------------


def wh_key(app: str, part: str) -> str:
    """A webhook key of the app ``app`` (the app's hash tag, like :mod:`service.storage.accounts`'s)."""
    return f"tt:{{a:{app}}}:wh:{part}"


def endpoint_key(app: str, endpoint: str, part: str) -> str:
    return wh_key(app, f"{endpoint}:{part}")


#: Every per-endpoint key, for deletion.
_ENDPOINT_PARTS = ("ep", "msgs", "body", "log", "done", "seen", "ready", "flight", "tails")


def due_member(app: str, endpoint: str) -> str:
    return f"{app}|{endpoint}"


def split_member(member: str) -> tuple[str, str]:
    app, _, endpoint = member.rpartition("|")
    return app, endpoint


@dataclass(frozen=True)
class Claimed:
    """One message claimed for delivery: its id, state, payload and the lease that makes its outcome
    count."""

    id: str
    state: dict[str, Any]
    body: bytes
    lease: str


@dataclass(frozen=True)
class Claim:
    """What :meth:`WebhookStore.claim` found: the endpoint's delivery settings and the messages."""

    enabled: bool
    next_due: float | None
    url: str = ""
    secret: str = ""
    previous_secret: str = ""
    previous_secret_expires_at: float | None = None
    failing_since: float | None = None
    messages: tuple[Claimed, ...] = ()


def _number(value: Any) -> float | None:
    text = decoded(value) if value is not None else ""
    return float(text) if text else None


class WebhookStore:
    """The webhooks of every app over the service's Redis client (a cluster client works too: every
    script's keys share one app's slot, or are the one due index)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._create = script(client, "webhook_lib", "webhook_create")
        self._update = script(client, "webhook_lib", "webhook_update")
        self._delete = script(client, "webhook_delete")
        self._rotate = script(client, "webhook_rotate")
        self._enqueue = script(client, "webhook_lib", "webhook_enqueue")
        self._claim = script(client, "webhook_lib", "webhook_claim")
        self._record = script(client, "webhook_lib", "webhook_record")
        self._redeliver = script(client, "webhook_lib", "webhook_redeliver")
        self._next_due = script(client, "webhook_lib", "webhook_next_due")
        self._take = script(client, "webhook_take")
        self._settle = script(client, "webhook_settle")
        self._catch_up = script(client, "webhook_catch_up")
        self._disable = script(client, "webhook_lib", "webhook_disable")
        self._release = script(client, "webhook_release")

    # -- endpoints ----------------------------------------------------------------------------------

    def create_endpoint(self, app: str, endpoint: str, fields: dict[str, str], max_endpoints: int) -> bool:
        """Write a new endpoint unless the app has ``max_endpoints`` already (``False``)."""
        args: list[Any] = [endpoint, max_endpoints]
        for name, value in fields.items():
            args += [name, value]
        keys = [wh_key(app, "routes"), endpoint_key(app, endpoint, "ep")]
        return bool(self._create(keys=keys, args=args))

    def update_endpoint(
        self, app: str, endpoint: str, fields: dict[str, str], *, unless_disabled_for: str = ""
    ) -> int:
        """Set some fields of an endpoint (its route follows): 1; 0 if there is no such endpoint; 2 (and
        nothing set) if it is disabled with the reason ``unless_disabled_for``."""
        args: list[Any] = [endpoint, unless_disabled_for]
        for name, value in fields.items():
            args += [name, value]
        keys = [wh_key(app, "routes"), endpoint_key(app, endpoint, "ep")]
        return int(self._update(keys=keys, args=args))

    def disable(
        self, app: str, endpoint: str, reason: str, error: str, now: float, *, batch: int = 500
    ) -> bool | None:
        """Disable an endpoint with ``reason`` and fail every unfinished message of it with ``error``
        (in batches of ``batch``, so a long backlog never holds Redis for long): nothing of it is sent
        any more.  Whether this call disabled it (``False``: it already was, for that reason; ``None``:
        no such endpoint)."""
        keys = [wh_key(app, "routes")] + [
            endpoint_key(app, endpoint, p)
            for p in ("ep", "msgs", "ready", "flight", "done", "log", "body", "tails")
        ]
        before = repr(now - KEEP_SECONDS)
        args: list[str | int] = [endpoint, reason, repr(now), batch, error, before, KEEP_DONE]
        changed, left = self._disable(keys=keys, args=args)
        first = int(changed)
        while int(left) > 0:
            _, left = self._disable(keys=keys, args=args)
        return None if first < 0 else bool(first)

    def status(self, app: str, endpoint: str) -> str | None:
        """The endpoint's status (``enabled``/``disabled``), ``None`` if there is no such endpoint."""
        raw = self.redis.hget(endpoint_key(app, endpoint, "ep"), "status")
        return decoded(raw) if raw is not None else None

    def rotate_secret(self, app: str, endpoint: str, secret: str, old_expires_at: float, now: float) -> bool:
        """Make ``secret`` the endpoint's; the current one keeps signing until ``old_expires_at``."""
        keys = [endpoint_key(app, endpoint, "ep")]
        return bool(self._rotate(keys=keys, args=[secret, repr(old_expires_at), repr(now)]))

    def delete_endpoint(self, app: str, endpoint: str) -> bool:
        """Delete an endpoint with every message it had (a lane delivering one finds it gone)."""
        keys = [wh_key(app, "routes")] + [endpoint_key(app, endpoint, p) for p in _ENDPOINT_PARTS]
        return bool(self._delete(keys=keys, args=[endpoint]))

    def endpoint(self, app: str, endpoint: str) -> dict[str, str] | None:
        """The endpoint's stored fields (secrets included: callers pick what they show)."""
        raw = self.redis.hgetall(endpoint_key(app, endpoint, "ep"))
        return {decoded(k): decoded(v) for k, v in raw.items()} if raw else None

    def endpoint_ids(self, app: str) -> list[str]:
        return sorted(decoded(e) for e in self.redis.hkeys(wh_key(app, "routes")))

    def routes(self, app: str) -> dict[str, tuple[bool, frozenset[str]]]:
        """Every endpoint of the app: whether enabled, and the types it wants (empty: all)."""
        raw = self.redis.hgetall(wh_key(app, "routes"))
        out: dict[str, tuple[bool, frozenset[str]]] = {}
        for endpoint, value in raw.items():
            flag, _, types = decoded(value).partition("|")
            out[decoded(endpoint)] = (flag == "1", frozenset(t for t in types.split(",") if t))
        return out

    # -- messages -----------------------------------------------------------------------------------

    def enqueue(
        self, app: str, endpoint: str, message_id: str, state: dict[str, Any], body: bytes, now: float
    ) -> bool:
        """Queue a message behind its source's unfinished ones, unless it was queued already (or the
        endpoint is gone or disabled meanwhile).  Wakes the lanes before and after (see the module)."""
        self.wake(app, endpoint, now)
        keys = [
            endpoint_key(app, endpoint, p) for p in ("ep", "msgs", "body", "log", "seen", "ready", "tails")
        ]
        args = [message_id, json.dumps(state), body, repr(now), repr(now - DEDUP_SECONDS), state["source"]]
        queued = bool(self._enqueue(keys=keys, args=args))
        if queued:
            # Again once queued: a lane that looked between the wake-up above and the script found
            # nothing and may have settled the endpoint as idle.  (The wake-up before stays: a process
            # dying between the script and this line is repaired by the next enqueue of the note.)
            self.wake_by(app, endpoint, now)
        return queued

    def message(self, app: str, endpoint: str, message_id: str) -> tuple[dict[str, Any], bytes] | None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(endpoint_key(app, endpoint, "msgs"), message_id)
        pipe.hget(endpoint_key(app, endpoint, "body"), message_id)
        state, body = pipe.execute()
        if state is None:
            return None
        return json.loads(state), body or b""

    def log_page(self, app: str, endpoint: str, before: int | None, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` of the endpoint's message ids, newest first, numbered below ``before``."""
        top = f"({before}" if before is not None else "+inf"
        rows: list[tuple[bytes, float]] = self.redis.zrevrangebyscore(  # type: ignore[assignment]
            endpoint_key(app, endpoint, "log"), top, "-inf", start=0, num=count, withscores=True
        )
        return [(decoded(mid), int(score)) for mid, score in rows]

    def messages(self, app: str, endpoint: str, ids: list[str]) -> list[tuple[dict[str, Any], bytes] | None]:
        """The states and payloads of ``ids`` (``None`` for one trimmed meanwhile)."""
        if not ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(endpoint_key(app, endpoint, "msgs"), ids)
        pipe.hmget(endpoint_key(app, endpoint, "body"), ids)
        states, bodies = pipe.execute()
        return [
            (json.loads(s), b or b"") if s is not None else None for s, b in zip(states, bodies, strict=True)
        ]

    # -- a player's deletion (issue 48) -----------------------------------------------------------------

    def bodies(self, app: str, endpoint: str) -> Iterator[tuple[str, bytes]]:
        """Every (message id, payload) of the endpoint, a few at a time (``HSCAN``: never blocking Redis)."""
        for mid, body in self.redis.hscan_iter(endpoint_key(app, endpoint, "body"), count=500):
            yield decoded(mid), body

    def replace_body(self, app: str, endpoint: str, message_id: str, body: bytes) -> None:
        """Replace a message's payload (a message naming a deleted player names the placeholder; one
        still pending is delivered so)."""
        self.redis.hset(endpoint_key(app, endpoint, "body"), message_id, body)

    def rewrite_bodies(self, app: str, endpoint: str, rewrite: Callable[[bytes], bytes | None]) -> int:
        """Replace each payload of the endpoint that ``rewrite`` changes (it answers the new payload, or
        ``None``: leave it); how many."""
        done = 0
        for mid, body in self.bodies(app, endpoint):
            new = rewrite(body)
            if new is not None:
                self.replace_body(app, endpoint, mid, new)
                done += 1
        return done

    def forget_message(self, app: str, endpoint: str, message_id: str) -> None:
        """Drop a message from the endpoint's log, state and payload at once (one slot: the app's); its
        id stays in the dedup set, a one-way hash."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(endpoint_key(app, endpoint, "msgs"), message_id)
        pipe.hdel(endpoint_key(app, endpoint, "body"), message_id)
        pipe.zrem(endpoint_key(app, endpoint, "log"), message_id)
        pipe.zrem(endpoint_key(app, endpoint, "done"), message_id)
        pipe.execute()

    def redeliver(self, app: str, endpoint: str, message_id: str, now: float) -> dict[str, Any] | None:
        """Queue a finished message again (same id); a pending one waiting for its retry is due now.
        Its state after, or ``None`` for no such message."""
        self.wake(app, endpoint, now)
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "msgs", "ready", "done", "tails")]
        raw = self._redeliver(keys=keys, args=[message_id, repr(now)])
        text = decoded(raw) if raw is not None else ""
        if text:
            self.wake_by(app, endpoint, now)  # as in enqueue: a lane may have looked in between
        return json.loads(text) if text else None

    # -- delivery -----------------------------------------------------------------------------------

    def wake(self, app: str, endpoint: str, at: float) -> None:
        """Tell the lanes the endpoint has work from ``at`` (sooner than any time they hold)."""
        self.redis.zadd(DUE, {due_member(app, endpoint): at})

    def wake_by(self, app: str, endpoint: str, at: float) -> None:
        """Tell the lanes the endpoint has work from ``at`` unless they know of earlier work already."""
        self.redis.zadd(DUE, {due_member(app, endpoint): at}, lt=True)

    def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        """Endpoints (``<app>|<endpoint>``) that may have work by ``now``, most overdue first."""
        rows: list[tuple[bytes, float]] = self.redis.zrangebyscore(  # type: ignore[assignment]
            DUE, "-inf", repr(now), start=0, num=limit, withscores=True
        )
        return [(decoded(member), float(score)) for member, score in rows]

    def take(self, member: str, expected: float, until: float) -> bool:
        """Take an endpoint of the due index for this lane until ``until`` (``False``: another lane did,
        or it was woken meanwhile: it is seen again on the next look)."""
        return bool(self._take(keys=[DUE], args=[member, repr(expected), repr(until)]))

    def settle(self, member: str, taken: float, next_due: float | None, concurrency: int) -> None:
        """After a claim: set the endpoint's due time to ``next_due`` (drop it for none) if nobody woke
        it since the lane took it with ``taken``; if that moved it later, re-read the endpoint and wake it
        by what it holds now (work queued between the claim and this write)."""
        nxt = "" if next_due is None else repr(next_due)
        moved = bool(self._settle(keys=[DUE], args=[member, repr(taken), nxt]))
        if moved and (next_due is None or next_due > taken):
            app, endpoint = split_member(member)
            found = self.next_due(app, endpoint, concurrency)
            if found is not None:
                self.wake_by(app, endpoint, found)

    def next_due(self, app: str, endpoint: str, concurrency: int) -> float | None:
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "ready", "flight")]
        return _number(self._next_due(keys=keys, args=[concurrency]))

    def claim(
        self, app: str, endpoint: str, now: float, lease_seconds: float, concurrency: int, most: int
    ) -> Claim:
        """Claim up to ``most`` due messages of an endpoint (and no more than ``concurrency`` in flight in
        all), each with a lease of ``lease_seconds``; messages whose lease ended go back first."""
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "ready", "flight", "msgs", "body")]
        raw = self._claim(keys=keys, args=[repr(now), repr(lease_seconds), concurrency, most])
        if decoded(raw[0]) != "on":
            return Claim(enabled=False, next_due=None)
        messages = tuple(
            Claimed(decoded(raw[i]), json.loads(raw[i + 1]), bytes(raw[i + 2] or b""), decoded(raw[i + 3]))
            for i in range(7, len(raw), 4)
        )
        return Claim(
            enabled=True,
            next_due=_number(raw[1]),
            url=decoded(raw[2]),
            secret=decoded(raw[3]),
            previous_secret=decoded(raw[4]),
            previous_secret_expires_at=_number(raw[5]),
            failing_since=_number(raw[6]),
            messages=messages,
        )

    def catch_up(self, app: str, endpoint: str, now: float, *, batch: int = 500) -> int:
        """Make the endpoint's heads waiting for a later retry due now, oldest first (see
        ``lua/webhook_catch_up.lua``), in batches of ``batch``; how many became due."""
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "ready", "msgs")]
        offset = total = 0
        while True:
            caught, left, more = self._catch_up(keys=keys, args=[repr(now), offset, batch])
            total += int(caught)
            offset += int(left)
            if not int(more):
                return total

    def release(self, app: str, endpoint: str, message: Claimed, now: float) -> bool:
        """Put a claimed message that was not sent back to wait, its attempt uncounted (``False``: its
        lease was no longer the lane's)."""
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "ready", "flight", "msgs")]
        return bool(self._release(keys=keys, args=[message.id, message.lease, repr(now)]))

    def record(
        self,
        app: str,
        endpoint: str,
        message: Claimed,
        *,
        now: float,
        outcome: str,
        next_attempt_at: float | None,
        response_status: int | None,
        latency_ms: float | None,
        error: str | None,
        backoff: float | None,
        disable_reason: str,
        failing_before: float,
        concurrency: int,
        gone_reason: str,
        probe: tuple[float, float, float, float | None] | None = None,
    ) -> tuple[bool, float | None, bool]:
        """Record one attempt's outcome (``delivered``, ``retry``, ``failed``, ``gone``): whether it
        counted (``False``: the lease was no longer this delivery's), the endpoint's next due time, and
        whether this delivery ended a failing streak (the endpoint answers again: time to catch up).

        ``probe`` (fraction, shortest, longest pause, not before): after a failure with nothing else in
        flight, the endpoint's earliest waiting message is tried again within that fraction of how long
        the endpoint has failed or the message has waited (see ``lua/webhook_record.lua``)."""
        keys = [
            endpoint_key(app, endpoint, p)
            for p in ("ep", "msgs", "ready", "flight", "done", "log", "body", "tails")
        ] + [wh_key(app, "routes")]
        args = [
            message.id,
            message.lease,
            repr(now),
            outcome,
            "" if next_attempt_at is None else repr(next_attempt_at),
            "" if response_status is None else response_status,
            "" if latency_ms is None else repr(round(latency_ms, 1)),
            error or "",
            "" if backoff is None else repr(backoff),
            endpoint,
            disable_reason,
            repr(failing_before),
            repr(now - KEEP_SECONDS),
            concurrency,
            gone_reason,
            KEEP_DONE,
        ]
        if probe is None:
            args += ["", "", "", ""]
        else:
            fraction, shortest, longest, not_before = probe
            args += [
                repr(fraction),
                repr(shortest),
                repr(longest),
                "" if not_before is None else repr(not_before),
            ]
        raw = self._record(keys=keys, args=args)
        if decoded(raw[0]) != "ok":
            return False, None, False
        return True, _number(raw[1]), bool(int(raw[2]))
