"""Finding opponents and knowing where one stands: seeks, challenges, ratings and leaderboards (a player
token with ``play``, or the app key naming ``player``), on :class:`~tabletop_client.Client` with the
credential as the first argument."""

from __future__ import annotations

import time
from collections.abc import Callable

from tabletop_client.feeds import FeedCalls
from tabletop_client.transport import Doc, query


class MatchmakingCalls(FeedCalls):
    """Seeks and challenges are waited on through the player's feed (:class:`FeedCalls`)."""

    # -- seeks --------------------------------------------------------------------------------------

    def create_seek(
        self,
        token: str,
        game: str,
        players: int,
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        rating_range: Doc | None = None,
        bots: Doc | None = None,
        expires_in: int | None = None,
        player: str | None = None,
    ) -> Doc:
        """Look for a ``players``-seat match of ``game`` with the app's other players: the seek,
        ``matched`` (with ``match_id``) if it completed a group at once, else ``open`` (wait for it
        with :meth:`wait_seek`).  Seeks pair when their ``options``, ``rated`` and ``time_control``
        agree and each player's rating is within the others' ``rating_range`` (``{"min", "max"}``,
        ordinals); ``bots`` (``{"allow": True, "after_seconds": 30, "level": "easy"}``) lets bots fill
        the seats nobody took by then: built-in bots of that level, and the app's bot players too only
        with ``"players": True`` (its default when no ``level`` is given).  A person has one open seek
        at a time (409 ``seek_open``); ``expires_in`` defaults to the server's
        ``TABLETOP_SEEK_SECONDS``."""
        body: Doc = {"game": game, "players": players, "options": options or {}, "rated": rated}
        more = {
            "time_control": time_control,
            "rating_range": rating_range,
            "bots": bots,
            "expires_in": expires_in,
            "player": player,
        }
        body.update({k: v for k, v in more.items() if v is not None})
        return self._http.call("POST", "/v1/seeks", body, token)

    def seeks(
        self,
        token: str,
        game: str,
        players: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> Doc:
        """One page of the app's open seeks of ``game`` (of one player count, or all), oldest first:
        ``seeks`` (each one's player id, name and rating, its terms) and ``next_cursor``."""
        page = query(game=game, players=players, cursor=cursor, limit=limit)
        return self._http.get(f"/v1/seeks{page}", token)

    def seek(self, token: str, seek_id: str) -> Doc:
        """A seek of the app: its ``status`` (``open``, ``pairing``, ``matched``, ``expired``,
        ``cancelled``) and ``match_id`` once matched."""
        return self._http.get(f"/v1/seeks/{seek_id}", token)

    def cancel_seek(self, token: str, seek_id: str) -> Doc:
        """Withdraw an open seek (its player, or the app key): ``cancelled``; one matched meanwhile is
        409 ``seek_closed``."""
        return self._http.call("DELETE", f"/v1/seeks/{seek_id}", None, token)

    def wait_seek(
        self,
        token: str,
        seek_id: str,
        timeout: float = 600.0,
        after: str = "0-0",
        player: str | None = None,
    ) -> Doc:
        """Wait until the seek is no longer open: the seek, ``matched`` (its ``match_id``),
        ``expired`` or ``cancelled``.  It long-polls the player's feed (from ``after``, your feed
        cursor if you hold one), which ``seek_matched`` or ``seek_expired`` wakes, so waiting costs
        one request per feed entry, not a poll loop."""
        return self._wait_closed(token, lambda: self.seek(token, seek_id), timeout, after, player)

    # -- challenges ---------------------------------------------------------------------------------

    def create_challenge(
        self,
        token: str,
        game: str,
        players: list[str],
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        order: str | None = None,
        expires_in: int | None = None,
        player: str | None = None,
    ) -> Doc:
        """Challenge the app's ``players`` (their ids; the challenger is seated too) to a match of
        ``game``: each gets ``challenge_received`` on its feed and answers with
        :meth:`accept_challenge` or :meth:`decline_challenge`; the last accept makes the match (the
        challenge's ``match_id``).  ``order``: ``random`` (default) or ``given`` (the challenger first,
        then ``players`` as listed); ``expires_in`` defaults to ``TABLETOP_CHALLENGE_SECONDS``."""
        body: Doc = {"game": game, "players": players, "options": options or {}, "rated": rated}
        more = {"time_control": time_control, "order": order, "expires_in": expires_in, "player": player}
        body.update({k: v for k, v in more.items() if v is not None})
        return self._http.call("POST", "/v1/challenges", body, token)

    def challenges(
        self, token: str, status: str | None = None, limit: int | None = None, player: str | None = None
    ) -> list[Doc]:
        """The player's challenges, sent and received, newest first (filtered by ``status``)."""
        page = query(player=player, status=status, limit=limit)
        return self._http.get(f"/v1/challenges{page}", token)["challenges"]

    def challenge(self, token: str, challenge_id: str) -> Doc:
        """A challenge: its ``status`` (``open``, ``accepted``, ``declined``, ``cancelled``,
        ``expired``), each challenged player's ``answer`` and the ``match_id`` once accepted."""
        return self._http.get(f"/v1/challenges/{challenge_id}", token)

    def accept_challenge(self, token: str, challenge_id: str, player: str | None = None) -> Doc:
        """Accept (idempotent); the last accept makes the match: ``accepted`` with its ``match_id``."""
        path = f"/v1/challenges/{challenge_id}/accept{query(player=player)}"
        return self._http.call("POST", path, None, token)

    def decline_challenge(self, token: str, challenge_id: str, player: str | None = None) -> Doc:
        """Decline (idempotent): the challenge is ``declined`` for everyone."""
        path = f"/v1/challenges/{challenge_id}/decline{query(player=player)}"
        return self._http.call("POST", path, None, token)

    def cancel_challenge(self, token: str, challenge_id: str) -> Doc:
        """Withdraw an open challenge (its challenger, or the app key): ``cancelled``."""
        return self._http.call("DELETE", f"/v1/challenges/{challenge_id}", None, token)

    def wait_challenge(
        self,
        token: str,
        challenge_id: str,
        timeout: float = 600.0,
        after: str = "0-0",
        player: str | None = None,
    ) -> Doc:
        """Wait until the challenge is answered by all, declined, cancelled or expired: the challenge
        (``accepted`` with its ``match_id``...).  Long-polls the player's feed, as :meth:`wait_seek`."""
        return self._wait_closed(token, lambda: self.challenge(token, challenge_id), timeout, after, player)

    def _wait_closed(
        self, token: str, read: Callable[[], Doc], timeout: float, after: str, player: str | None
    ) -> Doc:
        """Read a seek or a challenge until its status is settled, long-polling the feed in between:
        the feed wakes on the entry that tells of its end (or any other), and the read after it says
        whether it came.  ``pairing`` (a seek's group taken, its match being made: a moment) is read
        again soon rather than after a wake."""
        deadline = time.monotonic() + timeout
        while True:
            doc = read()
            if doc["status"] not in ("open", "pairing"):
                return doc
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{doc['id']} still {doc['status']} after {timeout:.0f} s")
            wait = min(0.2 if doc["status"] == "pairing" else 25.0, left)
            after = self.feed(token, after, wait, player)["last_id"]

    # -- ratings and leaderboards (an app key, or any of its players' tokens) -------------------------

    def leaderboard(
        self,
        token: str,
        game: str,
        pool: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> Doc:
        """One page of the app's leaderboard of ``game``, best first by ``ordinal`` (``mu - 3
        sigma``): ``players`` (each one's ``rank``, ``player`` id or ``builtin:<level>``, ``name``,
        ``mu``, ``sigma``, ``ordinal``, ``matches``, ``last_played_at``) and ``next_cursor``.
        ``pool``: ``people`` (default) or ``bots`` (the app's bot players and the built-in levels)."""
        page = query(pool=pool or None, cursor=cursor or None, limit=limit or None)
        return self._http.get(f"/v1/games/{game}/leaderboard{page}", token)

    def player_ratings(self, token: str, player_id: str) -> Doc:
        """The player's (or ``builtin:<level>``'s) ratings per game: ``mu``, ``sigma``, ``ordinal``,
        ``matches``, ``rank`` on its pool's board and its recent rated matches (``history``: the
        match, its place, the ordinal before and after)."""
        return self._http.get(f"/v1/players/{player_id}/ratings", token)
