"""A player's own: who it is, its matches and its feed (a player token, or the app key naming the
player with ``player``), on :class:`~tabletop_client.Client` with the credential as the first
argument."""

from __future__ import annotations

from collections.abc import Iterator

from tabletop_client.transport import Doc, Transport, query


class FeedCalls:
    _http: Transport

    def me(self, token: str, player: str | None = None) -> Doc:
        """The player ``token`` speaks for (an app key names it with ``player``)."""
        return self._http.get(f"/v1/me{query(player=player)}", token)

    def my_matches(
        self,
        token: str,
        status: str | None = None,
        my_turn: bool | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        player: str | None = None,
        game: str | None = None,
        away: bool | None = None,
    ) -> Doc:
        """One page of the player's matches, newest first: ``matches`` (each with its ``seat``,
        ``to_move``, ``my_turn``, ``away``, ``deadline``, ``version``, ``rated`` and ``result`` once
        over) and ``next_cursor`` (the next ``cursor``; a filtered page may be short and still have
        one).  Filter by ``game``, ``status``, ``my_turn`` and ``away`` (seats a bot plays for the
        player after its timeouts: :meth:`return_seats` takes them all back)."""
        filters = query(
            player=player, game=game, status=status, my_turn=my_turn, away=away, cursor=cursor, limit=limit
        )
        return self._http.get(f"/v1/me/matches{filters}", token)

    def results(
        self, token: str, game: str | None = None, player: str | None = None, page: int = 100
    ) -> Iterator[Doc]:
        """Every finished match of the player (of ``game``, or of every game), newest first, each
        with its ``result`` (and ``rated``): a results export, following ``next_cursor`` page by page
        (``page`` matches a request)."""
        cursor: str | None = None
        while True:
            found = self.my_matches(token, "finished", None, cursor, page, player, game)
            yield from found["matches"]
            cursor = found["next_cursor"]
            if cursor is None:
                return

    def feed(
        self,
        token: str,
        after: str = "0-0",
        wait: float = 0,
        player: str | None = None,
        include: str | None = None,
    ) -> Doc:
        """One page of the player's feed after ``after`` (``events``, ``last_id`` for the next call);
        with ``wait``, long-polls until an entry comes.  Entries: ``your_turn``, ``match_started``,
        ``seat_joined``, ``match_over``, ``timeout``, ``clock_warning``, ``invited``, each saying where
        its match stands (``version``, ``to_move``, ``my_turn``, ``deadline``).  With
        ``include="decision"`` each ``your_turn`` still pending carries its ``decision`` (``version``,
        ``seat``, ``view``, ``legal_actions``; ``null`` once the match moved on): a bot moves on it
        without reading the match."""
        page = query(player=player, after=after, wait=wait or None, include=include)
        return self._http.get(f"/v1/me/events{page}", token)

    def return_seats(self, token: str, player: str | None = None) -> Doc:
        """Take back every away seat of the player (seats a bot played after its timeouts), in all its
        matches at once: ``returned``, each one's ``match_id``, ``seat`` and ``version``."""
        return self._http.call("POST", f"/v1/me/return{query(player=player)}", None, token)

    def feed_stream(
        self,
        token: str,
        after: str = "0-0",
        player: str | None = None,
        include: str | None = None,
        heartbeats: bool = False,
    ) -> Iterator[Doc]:
        """The player's feed as an NDJSON stream: entries as they come (heartbeats skipped unless
        ``heartbeats``), until the server closes it (``TABLETOP_STREAM_MAX_SECONDS``): then call again
        with the last entry's id.  ``include``: as :meth:`feed`'s.  The credential revoked or expired
        meanwhile raises :class:`~tabletop_client.ApiError` 401 ``credential_revoked``."""
        path = f"/v1/me/events{query(player=player, after=after, include=include)}"
        return self._http.ndjson(path, token, heartbeats)
