"""Push deliveries: what queues a message when a note comes (:meth:`PushDelivery.enqueue`, beside the
webhooks in :class:`service.domain.outbox.notes.Notes`), and what the push lane does with it
(:meth:`PushDelivery.deliver`, the job ``workers.push.deliver`` on the RQ lane ``push``).

**The lane.**  A message is an RQ job on the ``push`` kind's queue of the player's app
(``push:<app>``, :class:`PushQueue`): the ``push`` lane's workers (``tabletop worker``,
:mod:`workers.worker`) take the apps' queues by start-time fair queueing like every lane's, so one app's
flood of notifications takes turns with every other app's, and nothing of push shares a worker with bot
turns, timeouts or hints.  Each job sends one message once, with the webhook settings' timeout.

**Once per note.**  A note is queued at most once per subscription, however often it is carried (two
drains of one outbox): the job id is derived from the note and the subscription, and the player's marks
(:meth:`service.storage.push.PushStore.mark`) remember the newest note of each source queued after the
job is gone.  The mark is taken first, atomically, so of two drains carrying the note at once only one
queues it (queued first, a job that ran and was gone before the second drain's put was sent again); a
put that fails gives the mark back, and a process dying between the two loses that one notification.

**Each attempt** (:meth:`PushDelivery.deliver`), in order: the subscription must still exist and want
the type; a ``your_turn`` whose match had a newer note queued for the subscription since is dropped
(*superseded*: collapse); a message whose TTL ran out is dropped (*expired*); in the subscription's quiet
hours the message waits for their end (*deferred*), or is dropped if its TTL ends first (*quiet*); then
it is encrypted for the browser (RFC 8291, ``aes128gcm``) and POSTed with ``Authorization: vapid``
(RFC 8292), ``TTL`` (what is left of it), ``Urgency`` and, for collapsing types, ``Topic`` (RFC 8030).

**Outcomes**: a 2xx is *delivered*; ``404``/``410`` mean the subscription is gone for good (the browser
unsubscribed, or its push service forgot it): it is deleted (*gone*); ``429``, a 5xx or no answer
(a timeout, a refused connection) is retried after a pause (the webhooks' decorrelated jitter, from
1 s, or the push service's ``Retry-After`` when longer: *retry*), while the message is within its TTL and
``push_retry_seconds`` of being queued; any other status (``400``, ``401``/``403``: a signature the push
service refuses, ``413``) is *failed*, not retried.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rq import Queue
from rq.exceptions import DuplicateJobError
from rq.job import Job

from service.config import Config
from service.domain.feeds.feed import YOUR_TURN
from service.domain.identity import split_player_key
from service.domain.matches.bots import (
    FAILURE_TTL_SECONDS,
    PUSH_QUEUE,
    TENANT_RETENTION,
    WAKE_JOB,
    queue_name,
    tenant_of,
)
from service.domain.push.messages import PUSH_TYPES, payload, rules
from service.domain.push.quiet import quiet_until
from service.domain.push.vapid import VapidKeys
from service.domain.webhooks.retries import retry_after_seconds, retry_pause
from service.storage.lanes import LaneStore
from service.storage.push import PushStore

log = logging.getLogger(__name__)

#: The job, named by its import path (the service never imports the workers).
PUSH_JOB = "workers.push.deliver"
#: Seconds a job may run beyond the delivery's timeout (encrypting, Redis).
JOB_MARGIN_SECONDS = 10
#: The body's type: encrypted bytes (RFC 8291).
CONTENT_TYPE = "application/octet-stream"
#: What an attempt came to (the job's result, and its log line).
DELIVERED, RETRY, FAILED, GONE = "delivered", "retry", "failed", "gone"
SUPERSEDED, EXPIRED, DEFERRED, QUIET, UNWANTED = "superseded", "expired", "deferred", "quiet", "unwanted"


@dataclass(frozen=True)
class Sent:
    """What one POST to a push service came to: its status (``None``: no answer), its response headers
    (names lower-case) and the error that stopped it, if any."""

    status: int | None
    headers: dict[str, str]
    error: str | None


#: POSTs ``body`` with ``headers`` to an endpoint URL (the lane's SSRF-safe client, or a test's).
Send = Callable[[str, bytes, dict[str, str]], Sent]


def message_job_id(message: dict[str, Any]) -> str:
    """The id of a message's job: derived from the note and the subscription (one job per note,
    however often it is queued), with its step (each retry or deferral is a job of its own)."""
    text = f"{message['key']}\n{message['subscription']}\n{message['source']}\n{message['number']}"
    digest = base64.b32encode(hashlib.sha256(text.encode()).digest()[:15]).decode().lower()
    step = int(message.get("step", 0))
    return f"push-{digest}" + (f"-{step}" if step else "")


class PushQueue:
    """The push lane's queues on the queue Redis: a message's job in its app's queue, now or at a
    time (a retry, the end of quiet hours), registered with the lane's tenants first (like the bot
    lanes', :class:`service.domain.matches.bots.BotQueue`) so the workers listen to it."""

    def __init__(self, connection: Any, job_timeout: int) -> None:
        self.connection = connection
        self.lanes = LaneStore(connection)
        self.job_timeout = job_timeout
        self._queues: dict[str, Queue] = {}

    def _queue(self, name: str) -> Queue:
        queue = self._queues.get(name)
        if queue is None:
            queue = self._queues[name] = Queue(name, connection=self.connection)
        return queue

    def put(self, message: dict[str, Any], at: float | None = None) -> bool:
        """Queue ``message``'s job (at ``at``, epoch seconds, if given); ``False`` if that job exists
        already (the same note queued twice)."""
        tenant = tenant_of(split_player_key(str(message["key"]))[0])
        new = self.lanes.touch(PUSH_QUEUE, tenant, time.time(), TENANT_RETENTION)
        queue = self._queue(queue_name(PUSH_QUEUE, tenant))
        options: dict[str, Any] = {
            "args": (message,),
            "job_id": message_job_id(message),
            "unique": True,
            "result_ttl": 0,
            "failure_ttl": FAILURE_TTL_SECONDS,
            "description": f"push {message['type']} to {message['subscription']}",
        }
        try:
            if at is None:
                queue.enqueue_call(PUSH_JOB, timeout=self.job_timeout, **options)
            else:
                # Rounded up: RQ's scheduler scores a job by its time in whole seconds, cut down, so a
                # job due at 10.9 would run from 10.0 (a retry up to a second early).
                when = datetime.fromtimestamp(math.ceil(at), UTC)
                queue.enqueue_at(when, PUSH_JOB, job_timeout=self.job_timeout, **options)
        except DuplicateJobError:
            return False
        finally:
            if new:
                self._wake()
        return True

    def drop(self, key: str) -> int:
        """Delete the jobs of the player ``key``'s messages still in their app's queue, waiting (for a
        retry, the end of quiet hours) or failed: a deleted player's, since each job's call names the
        player and carries the note (issue 48); how many.  It reads every job of the app's push queue,
        a short one (the lane drains it within seconds); a job running now finds the subscription
        gone and sends nothing."""
        queue = self._queue(queue_name(PUSH_QUEUE, tenant_of(split_player_key(key)[0])))
        ids = [
            *queue.get_job_ids(),
            *queue.scheduled_job_registry.get_job_ids(),
            *queue.failed_job_registry.get_job_ids(),
        ]
        dropped = 0
        for job in Job.fetch_many(ids, connection=self.connection):
            message = job.args[0] if job is not None and job.args else None
            if job is not None and isinstance(message, dict) and message.get("key") == key:
                job.delete()
                dropped += 1
        return dropped

    def _wake(self) -> None:
        """A no-op on the kind's own queue: a worker idle on the queues it knew takes it and listens
        to the new tenant at once (as :meth:`service.domain.matches.bots.BotQueue._wake`)."""
        with contextlib.suppress(DuplicateJobError):
            self._queue(PUSH_QUEUE).enqueue_call(
                WAKE_JOB, job_id=f"wake-{PUSH_QUEUE}", unique=True, timeout=30, result_ttl=0,
                failure_ttl=60, description=f"new tenants on {PUSH_QUEUE}",
            )  # fmt: skip


class PushDelivery:
    """Queues push messages for notes and delivers them (see the module)."""

    def __init__(
        self,
        store: PushStore,
        queue: PushQueue,
        vapid: VapidKeys,
        config: Config,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.queue = queue
        self.vapid = vapid
        self.config = config
        self.clock = clock
        self.rng = rng or random.Random()

    def enqueue(self, key: str, source: str, number: int, entry: dict[str, Any]) -> int:
        """Queue note ``number`` of ``source`` for every subscription of the player ``key`` that wants
        its type, once per subscription (see the module); how many messages were queued.  One round
        trip for a player without subscriptions, none for a type that is never pushed."""
        kind = entry.get("type")
        if kind not in PUSH_TYPES:
            return 0
        queued = 0
        for sid, sub in sorted(self.store.subscriptions(key).items()):
            if kind not in sub.get("types", ()):
                continue
            if not self.store.mark(key, sid, source, number):
                continue  # queued already (this note, or a later one of its source), maybe by another drain
            message = {
                "key": key,
                "subscription": sid,
                "source": source,
                "number": number,
                "type": kind,
                "entry": entry,
                "queued_at": round(self.clock(), 3),
                "step": 0,
                "backoff": None,
            }
            try:
                queued += self.queue.put(message)
            except Exception:
                self.store.unmark(key, sid, source, number)  # not queued: the next drain queues it
                raise
        return queued

    def deliver(self, message: dict[str, Any], send: Send) -> str:
        """One attempt of ``message`` (the job's body, see the module); its outcome."""
        key, sid = str(message["key"]), str(message["subscription"])
        sub = self.store.subscription(key, sid)
        if sub is None:
            return GONE  # unsubscribed meanwhile: nothing is sent
        kind, source, number = message["type"], str(message["source"]), int(message["number"])
        if kind not in sub.get("types", ()):
            return UNWANTED
        if kind == YOUR_TURN:
            newest = self.store.marked(key, sid, source)
            if newest is not None and newest > number:
                return SUPERSEDED  # a newer note of the match is queued: this turn is over
        now = self.clock()
        queued_at = float(message["queued_at"])
        how = rules(message["entry"], source, queued_at)
        expires = queued_at + how.ttl
        if now >= expires:
            return EXPIRED
        until = quiet_until(sub.get("quiet_hours"), now)
        if until is not None:
            if until >= expires:
                return QUIET
            self.queue.put({**message, "step": int(message.get("step", 0)) + 1}, at=until)
            return DEFERRED
        endpoint = str(sub["endpoint"])
        body = encrypt(payload(message["entry"], source), sub["keys"])
        headers = {
            "Authorization": self.vapid.authorization(endpoint),
            "Content-Encoding": "aes128gcm",
            "TTL": str(max(0, int(expires - now))),
            "Urgency": how.urgency,
        }
        if how.topic is not None:
            headers["Topic"] = how.topic
        sent = send(endpoint, body, headers)
        return self._outcome(message, sent, expires)

    def _outcome(self, message: dict[str, Any], sent: Sent, expires: float) -> str:
        status = sent.status
        key, sid = str(message["key"]), str(message["subscription"])
        if status is not None and 200 <= status < 300:
            return DELIVERED
        if status in (404, 410):
            self.store.delete(key, sid)
            log.info("push: subscription %s of %s is gone (HTTP %s): deleted", sid, key, status)
            return GONE
        reason = sent.error or f"HTTP {status}"
        if status is not None and status != 429 and status < 500:
            log.warning("push: %s to %s refused (%s): not retried", message["type"], sid, reason)
            return FAILED
        now = self.clock()
        window = self.config.push_retry_seconds
        give_up = min(expires, float(message["queued_at"]) + window)
        pause = retry_pause(message.get("backoff"), window, self.rng)
        asked = retry_after_seconds(sent.headers.get("retry-after"), now)
        wait = max(pause, asked) if asked is not None else pause
        if now + wait >= give_up:
            log.warning("push: %s to %s failed for good (%s)", message["type"], sid, reason)
            return FAILED
        step = int(message.get("step", 0)) + 1
        self.queue.put({**message, "step": step, "backoff": round(pause, 3)}, at=now + wait)
        log.info("push: %s to %s: %s; retry %d in %.1f s", message["type"], sid, reason, step, wait)
        return RETRY


def encrypt(data: bytes, keys: dict[str, str]) -> bytes:
    """``data`` encrypted for the browser whose ``keys`` (``p256dh``, ``auth``) they are: RFC 8291's
    ``aes128gcm``, with a fresh ephemeral key and salt per message (pywebpush over http_ece)."""
    from pywebpush import WebPusher  # here: it imports requests and aiohttp, which the API never needs

    pusher = WebPusher({"endpoint": "-", "keys": dict(keys)})
    encoded: bytes = pusher.encode(data, content_encoding="aes128gcm")["body"]
    return encoded
