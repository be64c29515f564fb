"""Tournaments (round robin or Swiss) of an app's players and the built-in bots (the app key, or a
player token with ``play``), on :class:`~tabletop_client.Client` with the credential as the first
argument."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal, overload

from tabletop_client.transport import Doc, Transport, query


class TournamentCalls:
    _http: Transport

    def create_tournament(
        self,
        token: str,
        game: str,
        players: int,
        entrants: list[Doc],
        format: str = "round_robin",
        **more: Any,
    ) -> Doc:
        """Run a tournament in the caller's app: ``entrants`` are ``{"player": "ann"}`` (the app's
        player, who plays its matches with its own token) or ``{"level": "easy"}`` (a built-in bot,
        optionally with a ``name`` and a ``think_ms``, its budget per decision in every match: default
        the level's); ``format`` ``round_robin`` or ``swiss`` (which needs ``rounds``).
        ``more``: ``name``, ``options``, ``rounds``, ``matches_per_pairing``, ``time_control``,
        ``rated``, ``starts_at`` (epoch seconds), ``parallel``, ``idempotency_key`` (a retry with the
        same key gets the same tournament, not a second one).  The answer is the tournament's summary
        (``status`` ``scheduled`` or ``running``; no ``matches``: the workers make them as they start);
        follow it with :meth:`wait_tournament`."""
        key = more.pop("idempotency_key", None)
        body: Doc = {"game": game, "players": players, "entrants": entrants, "format": format}
        body.update({k: v for k, v in more.items() if v is not None})
        headers = {"Idempotency-Key": str(key)} if key is not None else None
        return self._http.call("POST", "/v1/tournaments", body, token, headers)

    def tournament(self, token: str, tournament_id: str) -> Doc:
        """A tournament: ``status``, ``progress`` (``done`` of ``total`` matches, ``round`` of
        ``rounds``), ``standings`` (best first: ``points``, ``wins``, ``buchholz``...) and ``matches``."""
        return self._http.get(f"/v1/tournaments/{tournament_id}", token)

    def tournaments(
        self, token: str, status: str | None = None, after: str | None = None, limit: int | None = None
    ) -> Doc:
        """One page of the app's tournaments, newest first, without their matches: ``tournaments`` and
        ``next`` (the next page's ``after``)."""
        page = query(status=status or None, after=after or None, limit=limit or None)
        return self._http.get(f"/v1/tournaments{page}", token)

    @overload
    def tournament_results(self, token: str, tournament_id: str, format: Literal["json"] = "json") -> Doc: ...

    @overload
    def tournament_results(self, token: str, tournament_id: str, format: Literal["csv"]) -> str: ...

    def tournament_results(self, token: str, tournament_id: str, format: str = "json") -> Doc | str:
        """Every finished or aborted match's seats in one read: as JSON (``results``, one row per
        seat, and ``standings``), or with ``format="csv"`` the text of a CSV file (a header line, then
        ``round,match_id,status,seat,entrant,name,place,points,score`` per seat)."""
        path = f"/v1/tournaments/{tournament_id}/results{query(format=format)}"
        if format != "csv":
            return self._http.get(path, token)
        return self._http.text(path, token, "text/csv")

    def cancel_tournament(self, token: str, tournament_id: str) -> Doc:
        """Stop it (the app key, or the player who created it): ``cancelled``; its unfinished matches are
        aborted.  One over already is 409 ``tournament_over``."""
        return self._http.call("POST", f"/v1/tournaments/{tournament_id}/cancel", None, token)

    def wait_tournament(
        self,
        token: str,
        tournament_id: str,
        timeout: float = 24 * 3600.0,
        progress: Callable[[Doc], None] | None = None,
        interval: float = 1.0,
    ) -> Doc:
        """Read the tournament every ``interval`` seconds until it is ``finished`` or ``cancelled``, and
        return it; ``progress`` is called with each document read whose ``progress`` changed (the first
        one too), for a progress bar.  :class:`TimeoutError` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        seen: Any = None
        while True:
            doc = self.tournament(token, tournament_id)
            if progress is not None and (doc["progress"], doc["status"]) != seen:
                seen = (doc["progress"], doc["status"])
                progress(doc)
            if doc["status"] in ("finished", "cancelled"):
                return doc
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"tournament {tournament_id} still {doc['status']} after {timeout:.0f} s")
            time.sleep(min(interval, left))
