"""The runner: a bot's whole loop over one player token, written once so that a bot author writes only
its policy.

:meth:`Runner.run` catches up, then follows the player's feed until stopped:

1. **catch-up** (a restart, or the first start): every away seat is taken back (``POST
   /v1/me/return``), every match where a decision is pending is read and played
   (``GET /v1/me/matches?my_turn=true``), every open challenge is answered, and the open seeks a run
   killed before it could withdraw them are counted as the keeper's;
2. **the feed** (``GET /v1/me/events?include=decision``, one NDJSON stream, or long-polled pages with
   ``stream=False``; resumed from its last id when the connection drops or the server ends the
   stream): a ``your_turn`` entry carries its decision, played on the match's thread
   (:mod:`tabletop_client.runner.play`): one request a decision, and a run of decisions one request
   each through the moves' ``next_decision``; a challenge is accepted or declined by the
   :class:`~tabletop_client.runner.terms.ChallengePolicy`; a ``timeout`` that made the seat away
   takes it back; settled seeks and finished matches let the
   :class:`~tabletop_client.runner.seeks.SeekKeeper` post new seeks;
3. **shutdown** (:meth:`Runner.stop`, Ctrl-C, or ``until`` answering true): no new move starts, the
   moves in flight finish, the open seeks are withdrawn.

Every request passes the shared :class:`~tabletop_client.runner.pacing.Pacer` (429 and 503 waited
out); every move carries an idempotency key.  Logs go to the ``tabletop_client.runner`` logger.
"""

from __future__ import annotations

import functools
import http.client
import logging
import threading
from collections.abc import Callable

from tabletop_client.client import Client
from tabletop_client.runner.pacing import Pacer, Stopped
from tabletop_client.runner.play import READ, Clients, Decision, Player, Stats
from tabletop_client.runner.policy import Policy
from tabletop_client.runner.seeks import SeekKeeper
from tabletop_client.runner.terms import ChallengePolicy, SeekSpec
from tabletop_client.transport import ApiError, Doc, Transport

log = logging.getLogger("tabletop_client.runner")

#: Seconds between tries to reach the feed again after a dropped connection.
RECONNECT_SECONDS = 1.0


class Runner:
    """Plays ``policy`` for the player whose token it holds (scope ``play``).  ``concurrency``
    matches are played at once; ``challenges`` answers challenges (``None``: leaves them be);
    ``open_seeks`` seeks are kept open, taking ``seeks`` in turn; ``after`` resumes the feed from an
    id a previous run reached (``last_id``).  The feed is one stream (a request for all the entries it
    brings) unless ``stream=False``: then long-polled pages of ``poll_wait`` seconds."""

    def __init__(
        self,
        base_url: str,
        token: str,
        policy: Policy,
        *,
        concurrency: int = 8,
        challenges: ChallengePolicy | None = None,
        seeks: list[SeekSpec] | None = None,
        open_seeks: int = 0,
        after: str = "0-0",
        poll_wait: float = 25.0,
        stream: bool = True,
        timeout: float = 60.0,
    ) -> None:
        self.token = token
        self.challenges = challenges
        self.keeper = SeekKeeper(list(seeks or []), open_seeks)
        self.last_id = after
        self.poll_wait = poll_wait
        self.stream = stream
        self.me: str | None = None
        self._feed: Transport | None = None
        self._stop = threading.Event()
        self.clients = Clients(base_url, max(timeout, poll_wait + 10))
        self.pacer = Pacer(self._stop)
        self.player = Player(policy, token, self.clients, self.pacer, self._stop, concurrency)

    @property
    def stats(self) -> Stats:
        return self.player.stats

    @property
    def requests(self) -> int:
        """Requests sent so far (every thread's)."""
        return self.clients.sent

    def stop(self) -> None:
        """Ask :meth:`run` to end (from another thread or a signal handler): it returns after its
        current long-poll, having withdrawn the seeks."""
        self._stop.set()
        feed = self._feed
        if feed is not None:
            feed.abort()  # the stream's read returns now, not at the next heartbeat

    def run(self, until: Callable[[Runner], bool] | None = None) -> None:
        """Catch up, then play from the feed until :meth:`stop`, Ctrl-C (``KeyboardInterrupt``, which
        is re-raised after the shutdown) or ``until(runner)`` (asked after each feed page)."""
        try:
            self.catch_up()
            while not self._done(until):
                if self.stream:
                    self._follow_stream(until)
                else:
                    self._follow()
        except Stopped:
            pass
        finally:
            self.shutdown()

    def catch_up(self) -> None:
        """What happened while no runner followed the feed: away seats, pending decisions, open
        challenges, seeks left open."""
        self.me = self.player.send(lambda api: api.me(self.token))["id"]
        returned = self.player.send(lambda api: api.return_seats(self.token))["returned"]
        for seat in returned:
            log.info("match %s: took back away seat %d", seat["match_id"], seat["seat"])
        cursor: str | None = None
        while True:
            page = self.player.send(functools.partial(_pending_page, token=self.token, cursor=cursor))
            for match in page["matches"]:
                self.player.offer(match["id"], READ)
            cursor = page["next_cursor"]
            if cursor is None:
                break
        if self.challenges is not None:
            for challenge in self.player.send(lambda api: api.challenges(self.token, "open")):
                self._answer(challenge)
        self.player.send(lambda api: self.keeper.adopt(api, self.token, self.me or ""))
        self._top_up()

    def shutdown(self) -> None:
        """Finish the moves in flight and withdraw the open seeks (idempotent)."""
        self._stop.set()
        self.player.shutdown()
        if self.keeper.open:
            closing = Pacer(threading.Event(), attempts=3)  # the runner's own pacer is stopped
            api = self.clients.get()
            withdrawn = self.keeper.withdraw(
                lambda seek_id: closing.call(api._http, lambda: api.cancel_seek(self.token, seek_id))
            )
            log.info("withdrew %d seeks: %s", len(withdrawn), ", ".join(withdrawn))
        self.clients.close()

    # -- the feed -------------------------------------------------------------------------------------

    def _done(self, until: Callable[[Runner], bool] | None) -> bool:
        return self._stop.is_set() or (until is not None and until(self))

    def _follow_stream(self, until: Callable[[Runner], bool] | None) -> None:
        """The feed's stream until the server ends it, the connection drops, or the runner is done.
        The stream has a connection of its own: what its entries ask for (taking back an away seat,
        answering a challenge) is sent on this thread's other one."""
        api = self.clients.new()
        self._feed = api._http
        try:
            stream = self.pacer.call(
                api._http,
                lambda: api.feed_stream(self.token, self.last_id, include="decision", heartbeats=True),
            )
            for item in stream:
                if item["type"] != "heartbeat":
                    self._on(item)
                    self.last_id = item["id"]
                    self._top_up()
                if self._done(until):
                    return
        except (OSError, http.client.HTTPException) as exc:
            if self._stop.is_set():
                return
            log.warning("feed: %s; again from %s in %.0f s", exc, self.last_id, RECONNECT_SECONDS)
            self._stop.wait(RECONNECT_SECONDS)
        finally:
            self._feed = None
            api.close()

    def _follow(self) -> None:
        """One long-poll of the feed and what its entries ask for."""
        try:
            page = self.player.send(
                lambda api: api.feed(self.token, self.last_id, self.poll_wait, include="decision")
            )
        except (OSError, http.client.HTTPException) as exc:  # the server restarted, the network dropped
            log.warning("feed: %s; again from %s in %.0f s", exc, self.last_id, RECONNECT_SECONDS)
            self.clients.get().close()
            self._stop.wait(RECONNECT_SECONDS)
            return
        for entry in page["events"]:
            self._on(entry)
        self.last_id = page["last_id"]
        self._top_up()

    def _on(self, entry: Doc) -> None:
        kind, match_id = entry["type"], entry.get("match_id")
        if kind == "your_turn" and match_id:
            if "decision" not in entry:
                self.player.offer(match_id, READ)
            elif entry["decision"] is not None:
                self.player.offer(match_id, Decision.of(match_id, entry["decision"]))
        elif kind == "match_over" and match_id:
            log.info("match %s over: %s", match_id, (entry.get("result") or {}).get("scores"))
            self.player.over(match_id)
            self.keeper.freed()
        elif kind == "timeout" and entry.get("away") and entry.get("timed_out_seat") == entry.get("seat"):
            for seat in self.player.send(lambda api: api.return_seats(self.token))["returned"]:
                log.info("match %s: took back away seat %d", seat["match_id"], seat["seat"])
        elif kind in ("seek_matched", "seek_expired"):
            self.keeper.settled(entry["seek_id"])
            log.info("seek %s: %s %s", entry["seek_id"], kind, match_id or "")
        elif kind == "challenge_received" and self.challenges is not None:
            self._answer(self.player.send(lambda api: api.challenge(self.token, entry["challenge_id"])))
        elif kind == "invited" and entry.get("join_required") and not entry.get("rematch_of") and match_id:
            self._join(match_id)

    def _answer(self, challenge: Doc) -> None:
        """Accept or decline ``challenge`` by the challenge policy, if it waits for our answer."""
        assert self.challenges is not None
        mine = [c for c in challenge["challenged"] if c["id"] == self.me]
        if challenge["status"] != "open" or not mine or mine[0]["answer"] != "pending":
            return
        accept = self.challenges.accepts(challenge)
        try:
            if accept:
                self.player.send(lambda api: api.accept_challenge(self.token, challenge["id"]))
            else:
                self.player.send(lambda api: api.decline_challenge(self.token, challenge["id"]))
        except ApiError as exc:  # withdrawn or expired meanwhile
            log.info("challenge %s: %s", challenge["id"], exc)
            return
        who = challenge["challenger"]["id"]
        log.info("challenge %s from %s (%s): %s", challenge["id"], who, challenge["game"], accept)

    def _join(self, match_id: str) -> None:
        try:
            self.player.send(lambda api: api.join(match_id, token=self.token))
            log.info("match %s: joined the seat kept for us", match_id)
        except ApiError as exc:
            log.info("match %s: not joined: %s", match_id, exc)

    def _top_up(self) -> None:
        if self.keeper.count and not self._stop.is_set():
            self.player.send(lambda api: self.keeper.top_up(lambda spec: _post(api, self.token, spec)))


def _post(api: Client, token: str, spec: SeekSpec) -> Doc:
    return api.create_seek(
        token, spec.game, spec.players, spec.options, spec.rated, spec.time_control, None, spec.bots
    )


def _pending_page(api: Client, token: str, cursor: str | None) -> Doc:
    """A page of the player's active matches where a decision of its is pending."""
    return api.my_matches(token, "active", True, cursor)
