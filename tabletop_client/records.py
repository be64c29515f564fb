"""Match records (format ``tabletop-record/1``, ``/2`` when one holds takebacks; docs/records.md): one
match's, and the exports of many finished matches (NDJSON, resumable by cursor):
:class:`~tabletop_client.Client`'s, the credential an argument of each call."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from tabletop_client.transport import Doc, Transport, query

#: An export's scopes: a player's matches, the app's, a tournament's.
Scope = Literal["player", "app", "tournament"]


class RecordCalls:
    _http: Transport

    def record(
        self,
        match_id: str,
        token: str | None = None,
        *,
        views: bool = False,
        perspective: str | None = None,
        seat: int | None = None,
    ) -> Doc:
        """The match's record as ``token`` may read it: ``full`` (with the seed) once the match is over,
        a seat's or the spectator's while it is in play; ``perspective`` (``full``, ``seat`` with
        ``seat``, ``spectator``) asks for another; ``views`` adds each decision's view."""
        params = query(include="views" if views else None, **{"as": perspective}, seat=seat)
        return self._http.get(f"/v1/matches/{match_id}/record{params}", token)

    def export_records(
        self,
        token: str,
        scope: Scope = "app",
        *,
        player: str | None = None,
        tournament: str | None = None,
        game: str | None = None,
        rated: bool | None = None,
        since: str | float | None = None,
        until: str | float | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        follow: bool = True,
    ) -> Iterator[Doc]:
        """The full records of finished matches, one at a time as the stream brings them: the app's
        (its key, or a player token's app), a ``player``'s (a player token's own, or the app key's
        ``player``) or a ``tournament``'s.  ``since``/``until``: when the match finished (ISO-8601 or
        epoch seconds).  Each call of the API writes at most ``limit`` records and then a cursor;
        ``follow`` goes on with it until the export is done, else the cursor line is yielded last
        (``{"type": "cursor", "cursor": ...}``: pass it as ``cursor`` to go on)."""
        if scope == "tournament" and tournament is None:
            raise ValueError("a tournament export names the tournament")
        path = {
            "player": "/v1/me/records",
            "app": "/v1/apps/me/records",
            "tournament": f"/v1/tournaments/{tournament}/records",
        }[scope]
        filters: dict[str, Any] = {"game": game, "rated": rated, "since": since, "until": until}
        filters["limit"] = limit
        if scope == "player":
            filters["player"] = player
        while True:
            following = None
            for item in self._http.ndjson(path + query(**filters, cursor=cursor), token):
                if item.get("type") == "cursor":
                    following = str(item["cursor"])
                    if not follow:
                        yield item
                    continue
                yield item
            if following is None or not follow:
                return
            cursor = following
