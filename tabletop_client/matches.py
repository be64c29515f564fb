"""The games, the match calls, their events and hints: :class:`~tabletop_client.Client`'s, the
credential (a seat token, a player token, an app key) an argument of each call."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

from tabletop_client.transport import Doc, Transport, query


class MatchCalls:
    _http: Transport

    # -- games and matches --------------------------------------------------------------------------

    def games(self) -> list[Doc]:
        return self._http.get("/v1/games")["games"]

    def game(self, game_id: str) -> Doc:
        return self._http.get(f"/v1/games/{game_id}")

    def create_match(
        self,
        game: str,
        seats: list[Doc],
        options: Doc | None = None,
        seed: int | None = None,
        token: str | None = None,
        **more: Any,
    ) -> Doc:
        """Create a match; the answer holds each anonymous human seat's token (``tokens``), the creator
        token and a private match's invite codes, shown only here.  ``more``: ``visibility``,
        ``on_leave``, ``time_control``.

        With an app key as ``token`` a seat may name one of the app's players (``{"player": "ann"}``,
        or ``{"kind": "open", "player": "ann"}`` to keep it for ann to join): that seat gets no token,
        its player's tokens act for it.  With a player token a seat may name that player only.  Matches
        created with credentials are private unless ``visibility="public"``."""
        body: Doc = {"game": game, "seats": seats, "options": options or {}, **more}
        if seed is not None:
            body["seed"] = seed
        return self._http.call("POST", "/v1/matches", body, token)

    def join(
        self,
        match_id: str,
        name: str | None = None,
        seat: int | str = "any",
        invite: str | None = None,
        token: str | None = None,
    ) -> Doc:
        """Take an open seat; the answer holds its token (``token``), shown only here.  With a player
        token (``token``) the seat becomes the player's: no ``name`` needed (its display name is shown)
        and no seat token (``token`` is null)."""
        body: Doc = {"seat": seat}
        if name is not None:
            body["name"] = name
        if invite:
            body["invite"] = invite
        return self._http.call("POST", f"/v1/matches/{match_id}/join", body, token)

    def cancel(self, match_id: str, creator_token: str) -> Doc:
        """Call off a waiting match: ``creator_token`` is an anonymous creation's ``creator_token``, or
        the app key or player token that created the match (they get no creator token)."""
        return self._http.call("POST", f"/v1/matches/{match_id}/cancel", None, creator_token)

    def resign(self, match_id: str, token: str) -> Doc:
        return self._http.call("POST", f"/v1/matches/{match_id}/resign", None, token)

    def return_to_seat(self, match_id: str, token: str) -> Doc:
        """Take your away seat back (a bot played it after your timeouts); a seat not away is 409
        ``not_away``, which a repeated call may ignore."""
        return self._http.call("POST", f"/v1/matches/{match_id}/return", None, token)

    def rematch(self, match_id: str, token: str) -> Doc:
        """Your seat in the rematch (created by the first to ask) and its token, shown only here."""
        return self._http.call("POST", f"/v1/matches/{match_id}/rematch", None, token)

    def decline_rematch(self, match_id: str, token: str) -> Doc:
        """Say no to the rematch of the finished match ``match_id`` (``token``: your seat's in it, not
        the rematch's): declines the offer, or withdraws it once you took your seat; the rematch, now
        ``aborted``, is the answer."""
        return self._http.call("POST", f"/v1/matches/{match_id}/rematch/decline", None, token)

    def match(self, match_id: str, token: str | None = None) -> Doc:
        """The match as ``token``'s seat sees it (no token: a spectator)."""
        return self._http.get(f"/v1/matches/{match_id}", token)

    def legal_actions(self, match_id: str, token: str) -> Doc:
        return self._http.get(f"/v1/matches/{match_id}/legal-actions", token)

    def move(
        self, match_id: str, token: str, action: Doc, version: int, idempotency_key: str | None = None
    ) -> Doc:
        """Submit ``action`` based on ``version`` (sent as ``If-Match``).  The answer's
        ``next_decision`` is the same seat's next decision when it still has to act (its ``version``,
        ``seat``, ``view`` and ``legal_actions``), else ``null``: a run of decisions costs one request
        each.  Every move carries an ``Idempotency-Key`` (a fresh one unless given): pass the same key
        to retry a move whose answer was lost, and the server answers it again instead of refusing the
        retry as a stale version."""
        headers = {"If-Match": f'"{version}"', "Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        return self._http.call("POST", f"/v1/matches/{match_id}/actions", {"action": action}, token, headers)

    def log(self, match_id: str, token: str | None = None) -> Doc:
        return self._http.get(f"/v1/matches/{match_id}/log", token)

    # -- events -------------------------------------------------------------------------------------

    def events(self, match_id: str, token: str | None = None, after: str = "0-0", wait: float = 0) -> Doc:
        """One page of events after ``after``; with ``wait``, long-polls until there is one."""
        return self._http.get(f"/v1/matches/{match_id}/events{query(after=after, wait=wait or None)}", token)

    def stream(self, match_id: str, token: str | None = None, after: str = "0-0") -> Iterator[Doc]:
        """The NDJSON event stream: a ``snapshot`` first, then events as they happen (heartbeats
        skipped); ends after ``match_over`` or when the server closes the stream.  An error status
        (401, 404, 429...) raises :class:`~tabletop_client.ApiError` at once, before the first item is
        asked for; the token revoked or expired while it streams raises 401 ``credential_revoked``
        then."""
        return self._http.ndjson(f"/v1/matches/{match_id}/events{query(after=after)}", token)

    def wait_finished(self, match_id: str, timeout: float = 600.0, token: str | None = None) -> Doc:
        """Long-poll until the match is over; its document (as ``token``'s seat sees it)."""
        deadline = time.monotonic() + timeout
        after = "0-0"
        while time.monotonic() < deadline:
            page = self.events(match_id, token, after, wait=min(10.0, max(0.1, deadline - time.monotonic())))
            after = page["last_id"]
            if page["status"] == "finished":
                return self.match(match_id, token)
        raise TimeoutError(f"match {match_id} did not finish within {timeout:.0f} s")

    # -- hints --------------------------------------------------------------------------------------

    def request_hint(
        self,
        match_id: str,
        token: str,
        level: str | None = None,
        think_ms: int | None = None,
        wait: float | None = None,
    ) -> Doc:
        """Ask a bot for a move for ``token``'s pending decision; the job (its ``status``; its
        ``action`` once ``finished``).  With ``wait`` (seconds, up to 30) the answer waits for the job
        to finish; else, or if it is still running then, follow it with :meth:`job`."""
        asked = (("level", level), ("think_ms", think_ms), ("wait", wait))
        body = {k: v for k, v in asked if v is not None}
        return self._http.call("POST", f"/v1/matches/{match_id}/hint", body, token)

    def job(self, job_id: str, token: str, wait: float | None = None) -> tuple[int, Doc]:
        """A hint job: ``(200, job with its action)`` when done, ``(202, job)`` while it runs; with
        ``wait`` (seconds, up to 30) the answer comes as soon as it is done, or 202 when the wait ends."""
        return self._http.request("GET", f"/v1/jobs/{job_id}{query(wait=wait)}", token=token)

    def hint(
        self,
        match_id: str,
        token: str,
        level: str | None = None,
        think_ms: int | None = None,
        timeout: float = 120.0,
    ) -> Doc:
        """Ask for a hint and wait for the bot's answer, the suggested action: one request when the
        bot answers within 30 s (the server holds the answer until the job is done), then one per 30
        s, never a poll loop.  A hint whose job failed raises :class:`RuntimeError` with its error."""
        deadline = time.monotonic() + timeout
        job = self.request_hint(match_id, token, level, think_ms, wait=_hint_wait(deadline))
        while job["status"] not in ("finished", "failed"):
            if time.monotonic() >= deadline:
                raise TimeoutError(f"hint {job['id']} not ready within {timeout:.0f} s")
            job = self.job(job["id"], token, wait=_hint_wait(deadline))[1]
        if job["status"] == "failed":
            raise RuntimeError(f"hint {job['id']} failed: {job.get('error')}")
        return job["action"]


#: The longest wait the API allows a hint or a job read (``wait``), in seconds.
MAX_HINT_WAIT = 30.0


def _hint_wait(deadline: float) -> float:
    """The wait to ask for: up to the API's most, never past the caller's deadline (at least 0.1 s)."""
    return round(min(MAX_HINT_WAIT, max(0.1, deadline - time.monotonic())), 1)
