"""Playing decisions: one match at a time per match, many matches at once.

Each match has a :class:`Slot`: whether a thread is playing it, the last version it moved at, and the
newest decision that came meanwhile.  A decision (from the feed, a move's ``next_decision``, or a
read at catch-up) goes to the match's thread if one is playing it, else starts one on the pool; a
decision at or below the version already moved at is stale and dropped, so the feed's entry for a
decision the run already played costs nothing.  A thread plays the run the move answers chain
(``next_decision``) until the match is another seat's, then takes any decision left in the slot.

A decision's ``version`` is what the move is based on (``If-Match``).  A move refused for a stale
version (409 or 412: the match moved meanwhile, a timeout played the seat) is read afresh once (GET
match and legal actions), so no decision is lost; any other refusal, or a policy that raises, is logged
and the decision left to the clock.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tabletop_client.client import Client
from tabletop_client.runner.pacing import Pacer, Stopped
from tabletop_client.runner.policy import AsyncBridge, Policy
from tabletop_client.transport import ApiError, Doc

log = logging.getLogger("tabletop_client.runner")

#: A move refused because its version is stale: read the decision afresh.
STALE = frozenset({409, 412})


@dataclass(frozen=True)
class Decision:
    """A decision pending for the bot's seat: the API's ``decision`` object and its match."""

    match_id: str
    version: int
    seat: int
    view: Doc
    legal_actions: list[Doc]

    @classmethod
    def of(cls, match_id: str, doc: Doc) -> Decision:
        return cls(match_id, doc["version"], doc["seat"], doc["view"], doc["legal_actions"])


#: "Read the match to learn its decision": what a feed entry without ``decision`` (a server without
#: ``include=decision``) or a stale move leaves to do.
READ = "read"


@dataclass
class Slot:
    busy: bool = False
    moved: int = -1
    pending: Decision | str | None = None


@dataclass
class Stats:
    """What the runner did: decisions played, the policy's CPU seconds over them, matches seen end,
    and failures (a policy that raised, a move refused)."""

    decisions: int = 0
    policy_cpu: float = 0.0
    finished: int = 0
    failures: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class Clients:
    """One client per thread (a client is one connection, not to be shared), all kept so that their
    request counts add up and they are closed together."""

    def __init__(self, base_url: str, timeout: float = 60.0) -> None:
        self.base_url = base_url
        self.timeout = timeout
        self._local = threading.local()
        self._all: list[Client] = []
        self._lock = threading.Lock()

    def get(self) -> Client:
        api: Client | None = getattr(self._local, "api", None)
        if api is None:
            api = self._local.api = self.new()
        return api

    def new(self) -> Client:
        """A client of its own, for a connection held open (the feed's stream) while its thread still
        sends other requests on :meth:`get`'s."""
        api = Client(self.base_url, self.timeout)
        with self._lock:
            self._all.append(api)
        return api

    @property
    def sent(self) -> int:
        """Requests sent by every thread's client."""
        with self._lock:
            return sum(api._http.sent for api in self._all)

    def close(self) -> None:
        with self._lock:
            for api in self._all:
                api.close()


class Player:
    """Plays the decisions of one player token's seats on a pool of ``concurrency`` threads."""

    def __init__(
        self,
        policy: Policy,
        token: str,
        clients: Clients,
        pacer: Pacer,
        stop: threading.Event,
        concurrency: int = 8,
    ) -> None:
        self.policy = policy
        self.token = token
        self.clients = clients
        self.pacer = pacer
        self.stop = stop
        self.stats = Stats()
        self.bridge = AsyncBridge()
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="match")
        self._slots: dict[str, Slot] = {}
        self._lock = threading.Lock()

    def offer(self, match_id: str, decision: Decision | str) -> None:
        """Play ``decision`` (or :data:`READ` the match for it) unless it is stale; on the match's
        thread if one plays it, else on a new one."""
        with self._lock:
            slot = self._slots.setdefault(match_id, Slot())
            if isinstance(decision, Decision) and decision.version <= slot.moved:
                return
            if slot.busy:
                slot.pending = _newer(slot.pending, decision)
                return
            slot.busy = True
        self._pool.submit(self._run, match_id, decision)

    def over(self, match_id: str) -> None:
        """The match ended: forget its slot (unless a thread still finishes with it)."""
        with self._lock:
            slot = self._slots.get(match_id)
            if slot is not None and not slot.busy:
                del self._slots[match_id]
        with self.stats.lock:
            self.stats.finished += 1

    def shutdown(self) -> None:
        """Let the moves in flight finish; start no new one."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        self.bridge.close()

    def send(self, request: Callable[[Client], Any]) -> Any:
        """``request`` on this thread's client, paced (see :class:`~tabletop_client.runner.pacing.Pacer`)."""
        api = self.clients.get()
        return self.pacer.call(api._http, lambda: request(api))

    def read(self, match_id: str) -> Decision | None:
        """The match's pending decision for the bot's seat, read (two requests), or ``None``."""
        doc = self.send(lambda api: api.match(match_id, self.token))
        if doc["status"] != "active" or doc.get("to_move") != doc.get("your_seat"):
            return None
        legal = self.send(lambda api: api.legal_actions(match_id, self.token))
        return Decision(match_id, legal["version"], legal["seat"], doc["view"], legal["actions"])

    def _run(self, match_id: str, first: Decision | str) -> None:
        decision: Decision | str | None = first
        rereads = 0
        while decision is not None and not self.stop.is_set():
            following: Decision | str | None = None
            try:
                if decision == READ:
                    following = self.read(match_id)
                elif isinstance(decision, Decision) and decision.version > self._moved(match_id):
                    following, stale = self._play(decision)
                    rereads = rereads + 1 if stale else 0
                    if stale and rereads <= 2:
                        following = READ
            except Stopped:
                break
            except Exception:  # a run must never kill its thread: log it and go on with the next
                log.exception("match %s: playing failed", match_id)
                with self.stats.lock:
                    self.stats.failures += 1
            decision = following if following is not None else self._next_or_release(match_id)

    def _play(self, decision: Decision) -> tuple[Decision | str | None, bool]:
        """Decide and move: the same seat's next decision from the answer, and whether the move was
        refused as stale."""
        started = time.thread_time()
        action = self.bridge.resolve(self.policy.decide(decision.view, decision.legal_actions))
        cpu = time.thread_time() - started
        key = uuid.uuid4().hex  # the same key for every retry of this move (429, 503)
        try:
            answer = self.send(
                lambda api: api.move(decision.match_id, self.token, action, decision.version, key)
            )
        except ApiError as exc:
            if exc.status in STALE:
                log.info("match %s v%d: %s, reading it again", decision.match_id, decision.version, exc.code)
                return None, True
            raise
        with self._lock:
            slot = self._slots.setdefault(decision.match_id, Slot())
            slot.moved = max(slot.moved, decision.version)
        with self.stats.lock:
            self.stats.decisions += 1
            self.stats.policy_cpu += cpu
        log.debug("match %s v%d: played %s", decision.match_id, decision.version, action)
        if "next_decision" not in answer:  # a server that does not chain decisions: read when it is ours
            mine = answer["status"] == "active" and answer["to_move"] == decision.seat
            return (READ if mine else None), False
        following = answer["next_decision"]
        return (Decision.of(decision.match_id, following) if following else None), False

    def _moved(self, match_id: str) -> int:
        with self._lock:
            return self._slots[match_id].moved

    def _next_or_release(self, match_id: str) -> Decision | str | None:
        with self._lock:
            slot = self._slots[match_id]
            pending, slot.pending = slot.pending, None
            if pending is None:
                slot.busy = False
            return pending


def _newer(held: Decision | str | None, came: Decision | str) -> Decision | str:
    """Of two pending decisions the one to play: the later version; a read beats any decision."""
    if held is None or came == READ:
        return came
    if held == READ:
        return held
    assert isinstance(held, Decision) and isinstance(came, Decision)
    return came if came.version > held.version else held
