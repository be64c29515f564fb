"""Challenges to named players (issue 27 point 4): a player of an app challenges some of the same app's
players to a match (game, options, rated, time control); each is told (``challenge_received``) and
accepts or declines; the match starts when all have accepted; an unanswered challenge expires.

**State.**  A challenge is one hash in its own slot (:mod:`service.storage.challenges`): the challenge
as made, its ``status`` (``open``, ``accepted``, ``declined``, ``cancelled``, ``expired``) and each
challenged player's answer.  Every change is one script on it
(:meth:`service.storage.challenges.ChallengeStore.answer`,
:meth:`~service.storage.challenges.ChallengeStore.close_challenge`), so of two last accepts at once one
completes it, an answer after the deadline is refused as ``expired`` whether or not the sweep ran, and
a decline racing the last accept leaves exactly one outcome.

**Effects, once.**  What a status calls for (the players' notes, the players' challenge index and, for
``accepted``, the match) is done by :meth:`Challenges.settle`, which is idempotent: notes are numbered
within the source ``c:<challenge id>`` (1: received; 2: the outcome), so each reaches a feed once, and
the match's id is the challenge's, so it is made once.  Each change marks the challenge *to do* before
it is made and unmarks it once settled; the workers' sweep settles what a dead process left, and
expires the challenges whose time is up.

Who sees a challenge: its challenger, the players it names and its app's key; to anyone else it does
not exist (404), like another app's.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import Game
from service.config import Config
from service.domain.accounts import Accounts
from service.domain.errors import Conflict, Forbidden, NotFound, invalid, not_found
from service.domain.feeds import feed
from service.domain.feeds.sources import (
    CHALLENGE_OUTCOME_NOTE,
    CHALLENGE_RECEIVED_NOTE,
    NoteSink,
    challenge_source,
)
from service.domain.identity import PLAY, PLAYER, READ, Caller, player_key, split_player_key
from service.domain.matches import seating
from service.domain.matchmaking.making import Clock, MakeMatch, Terms, caller_app, match_terms
from service.storage.challenges import CHALLENGE_KEEP_SECONDS, ChallengeStore
from service.storage.client import STORAGE_ERRORS

log = logging.getLogger(__name__)

OPEN, ACCEPTED, DECLINED, CANCELLED, EXPIRED = "open", "accepted", "declined", "cancelled", "expired"
CHALLENGE_STATUSES = (OPEN, ACCEPTED, DECLINED, CANCELLED, EXPIRED)
PENDING = "pending"
ANSWERS = (PENDING, ACCEPTED, DECLINED)
#: Seat orders: ``random`` (seeded by the challenge id) or ``given`` (the challenger, then the
#: challenged in the order named).
ORDERS = ("random", "given")
#: The longest a challenge may wait for its answers.
MAX_CHALLENGE_SECONDS = 30 * 24 * 3600
#: Seconds a change is left to the process making it before the sweep settles it too.
GRACE_SECONDS = 2.0
#: Challenges one sweep expires, and settles, at most.
SWEEP_LIMIT = 500


@dataclass(frozen=True)
class Swept:
    """What one :meth:`Challenges.sweep` did: challenges expired, and changes a dead process (or a
    Redis error) left unsettled that it settled."""

    expired: int
    settled: int


class Challenges:
    """Challenges among an app's players; a match once all accept."""

    def __init__(
        self,
        store: ChallengeStore,
        *,
        games: Mapping[str, Game],
        accounts: Accounts,
        make_match: MakeMatch,
        note: NoteSink,
        config: Config,
        clock: Clock,
    ) -> None:
        self.store = store
        self.games = games
        #: Who challenges and answers (a player token's player, or the player an app key names).
        self.accounts = accounts
        self.make_match = make_match
        self.note = note
        self.config = config
        self.now = clock

    # -- making one ---------------------------------------------------------------------------------

    def create(self, caller: Caller, request: dict[str, Any]) -> dict[str, Any]:
        """Challenge the players named in ``players`` (ids of the caller's app) to a match: the
        challenger is the player token's player (``play``), or the player an app key names."""
        key = self.accounts.me(caller, PLAY, request.get("player"))
        app, challenger_id = split_player_key(key)
        challenger = self.accounts.stored_player(app, challenger_id)
        named: list[str] = list(request["players"])
        challenged = []
        for i, pid in enumerate(named):
            if pid == challenger_id:
                raise invalid(f"players.{i}", "the challenger is seated already: name the others")
            if pid in named[:i]:
                raise invalid(f"players.{i}", f"player {pid!r} is named twice")
            try:
                challenged.append(self.accounts.stored_player(app, pid))
            except NotFound:
                raise invalid(f"players.{i}", f"no player {pid!r} in this app") from None
        agreed = match_terms(self.games, request, 1 + len(named), "players")
        expires_in = request.get("expires_in", self.config.challenge_seconds)
        if not 1 <= expires_in <= MAX_CHALLENGE_SECONDS:
            raise invalid("expires_in", f"from 1 to {MAX_CHALLENGE_SECONDS} seconds")
        order = request.get("order", "random")
        if order not in ORDERS:
            raise invalid("order", f"one of {list(ORDERS)}")
        now = self.now()
        doc = {
            "id": secrets.token_hex(8),
            "game": agreed.game.id,
            "players": agreed.players,
            "options": agreed.options,
            "rated": agreed.rated,
            "time_control": agreed.time_control,
            "order": order,
            "challenger": {"id": challenger.id, "name": challenger.name},
            "challenged": named,
            "names": {p.id: p.name for p in challenged},
            "created_at": now,
            "expires_at": now + expires_in,
        }
        self.store.mark_todo(app, doc["id"], now)
        self.store.create_challenge(app, doc, expires_in + CHALLENGE_KEEP_SECONDS)
        self._settle_now(app, doc["id"], now)
        return self._document(app, doc["id"])

    # -- reading ------------------------------------------------------------------------------------

    def get(self, caller: Caller, challenge_id: str) -> dict[str, Any]:
        app = caller_app(caller, READ)
        stored = self._visible(caller, app, challenge_id)
        return document(stored)

    def mine(
        self, caller: Caller, player: str | None, status: str | None, limit: int
    ) -> list[dict[str, Any]]:
        """The player's challenges, sent and received, newest first (those still kept), filtered by
        ``status``.  A player token lists its own player's; an app key names a player."""
        key = self.accounts.me(caller, READ, player)
        app, _ = split_player_key(key)
        found, gone = [], []
        for challenge_id in self.store.player_challenges(key, 500):
            stored = self.store.challenge(app, challenge_id)
            if stored is None:
                gone.append(challenge_id)
                continue
            if status is None or stored["status"] == status:
                found.append(document(stored))
                if len(found) == limit:
                    break
        self.store.unindex_challenges(key, gone)
        return found

    def _visible(self, caller: Caller, app: str, challenge_id: str) -> dict[str, Any]:
        """The challenge, if the caller may see it: its app's key, its challenger, a player it names."""
        stored = self.store.challenge(app, challenge_id)
        if stored is None:
            raise not_found(f"challenge {challenge_id!r}")
        if caller.kind == PLAYER and caller.player not in participants(stored["doc"]):
            raise not_found(f"challenge {challenge_id!r}")
        return stored

    def _document(self, app: str, challenge_id: str) -> dict[str, Any]:
        stored = self.store.challenge(app, challenge_id)
        if stored is None:
            raise not_found(f"challenge {challenge_id!r}")
        return document(stored)

    # -- answering ----------------------------------------------------------------------------------

    def accept(self, caller: Caller, challenge_id: str, player: str | None) -> dict[str, Any]:
        """Accept for the caller's player; the last accept makes the match (``match_id``)."""
        return self._answer(caller, challenge_id, player, ACCEPTED)

    def decline(self, caller: Caller, challenge_id: str, player: str | None) -> dict[str, Any]:
        """Decline for the caller's player: the challenge is over for everyone."""
        return self._answer(caller, challenge_id, player, DECLINED)

    def _answer(self, caller: Caller, challenge_id: str, player: str | None, answer: str) -> dict[str, Any]:
        app = caller_app(caller, PLAY)
        key = self.accounts.me(caller, PLAY, player)
        _, player_id = split_player_key(key)
        stored = self.store.challenge(app, challenge_id)
        if stored is None or player_id not in participants(stored["doc"]):
            raise not_found(f"challenge {challenge_id!r}")
        if player_id == stored["doc"]["challenger"]["id"]:
            raise Forbidden(
                "not_challenged", "the challenger answers nothing: it may cancel (DELETE) the challenge"
            )
        now = self.now()
        self.store.mark_todo(app, challenge_id, now)
        outcome = self.store.answer(app, challenge_id, player_id, answer, now)
        kind = outcome[0]
        if kind == "gone":
            raise not_found(f"challenge {challenge_id!r}")
        if kind in ("closed", "answered"):
            current = self.store.challenge(app, challenge_id)
            given = current["answers"].get(player_id) if current is not None else None
            if given == answer and current is not None:  # a retry of the same answer: as it was
                self._settle_now(app, challenge_id, now)
                return document(current)
            shown = outcome[1]
            if kind == "answered":
                raise Conflict(
                    "already_answered", f"this player {shown} the challenge already", {"answer": shown}
                )
            raise Conflict("challenge_closed", f"the challenge is {shown}", {"status": shown})
        self._settle_now(app, challenge_id, now)
        return self._document(app, challenge_id)

    def cancel(self, caller: Caller, challenge_id: str) -> dict[str, Any]:
        """Withdraw an open challenge: its challenger (``play``) or its app's key."""
        app = caller_app(caller, PLAY)
        stored = self._visible(caller, app, challenge_id)
        if caller.kind == PLAYER and caller.player != stored["doc"]["challenger"]["id"]:
            raise Forbidden(
                "not_your_challenge", "only the challenger (or its app's key) cancels a challenge"
            )
        now = self.now()
        self.store.mark_todo(app, challenge_id, now)
        status = self.store.close_challenge(app, challenge_id, CANCELLED, now)
        if status != "ok":
            self._settle_now(app, challenge_id, now)
            raise Conflict("challenge_closed", f"the challenge is {status or 'gone'}", {"status": status})
        self._settle_now(app, challenge_id, now)
        return self._document(app, challenge_id)

    def close_app(self, app: str, reason: str) -> int:
        """Close every open challenge of ``app``, revoked (``reason``, issue 42): ``cancelled`` (or
        ``expired``, past its time), unlisted, nobody told (the app's feeds and webhooks are dead with
        it).  How many were closed."""
        now = self.now()
        closed = 0
        for challenge_id in self.store.app_challenges(app):
            status = self.store.close_challenge(app, challenge_id, CANCELLED, now)
            if status == EXPIRED:  # its time is up and the sweep had not closed it yet
                status = self.store.close_challenge(app, challenge_id, EXPIRED, now)
            closed += status == "ok"
            self.store.unlist_challenge(app, challenge_id)
        if closed:
            log.info("challenges: %d open challenge(s) of app %s closed (%s)", closed, app, reason)
        return closed

    # -- effects ------------------------------------------------------------------------------------

    def _settle_now(self, app: str, challenge_id: str, marked: float) -> None:
        """Settle right after a change marked at ``marked``; a Redis error leaves it to the sweep."""
        try:
            self.settle(app, challenge_id)
            self.store.settled(app, challenge_id, marked)
        except STORAGE_ERRORS as exc:
            log.warning("challenges: settling %s left to the sweep: %s", challenge_id, exc)

    def settle(self, app: str, challenge_id: str) -> None:
        """Do what the challenge's status calls for, idempotently: index it for its players and tell
        the challenged (open); make the match and tell everyone (accepted); tell everyone but who
        closed it (declined, cancelled), or everyone (expired)."""
        stored = self.store.challenge(app, challenge_id)
        if stored is None:
            self.store.unlist_challenge(app, challenge_id)
            return
        doc, status = stored["doc"], stored["status"]
        everyone = participants(doc)
        base = {"challenge_id": doc["id"], "game": doc["game"], "players": doc["players"]}
        if status == OPEN:
            for pid in everyone:
                self.store.index_challenge(player_key(app, pid), doc["id"], doc["created_at"])
            entry = {
                "type": feed.CHALLENGE_RECEIVED,
                **base,
                "match_id": None,
                "challenger": doc["challenger"],
                "expires_at": doc["expires_at"],
            }
            for pid in doc["challenged"]:
                self._note(app, pid, challenge_id, CHALLENGE_RECEIVED_NOTE, entry)
            return
        if status == ACCEPTED:
            self._make_match(app, doc)
            entry = {"type": feed.CHALLENGE_ACCEPTED, **base, "match_id": doc["id"]}
            told = everyone
        elif status in (DECLINED, CANCELLED):
            by = stored["declined_by"] if status == DECLINED else doc["challenger"]["id"]
            entry = {
                "type": feed.CHALLENGE_DECLINED,
                **base,
                "match_id": None,
                "declined_by": by,
                "reason": "declined" if status == DECLINED else "cancelled",
            }
            told = [p for p in everyone if p != by]
        else:
            entry = {"type": feed.CHALLENGE_EXPIRED, **base, "match_id": None}
            told = everyone
        for pid in told:
            self._note(app, pid, challenge_id, CHALLENGE_OUTCOME_NOTE, entry)
        self.store.unlist_challenge(app, challenge_id)

    def _note(self, app: str, pid: str, challenge_id: str, number: int, entry: dict[str, Any]) -> None:
        self.note(player_key(app, pid), challenge_source(challenge_id), number, entry, None)

    def _make_match(self, app: str, doc: dict[str, Any]) -> None:
        """The accepted challenge's match, its id the challenge's (made once however often asked)."""
        ids = [doc["challenger"]["id"], *doc["challenged"]]
        if doc["order"] == "random":
            random.Random(doc["id"]).shuffle(ids)
        seats = [{"kind": seating.HUMAN, "player": pid} for pid in ids]
        agreed = Terms(
            self.games[doc["game"]], doc["players"], doc["options"], doc["rated"], doc["time_control"]
        )
        self.make_match(app, doc["id"], agreed, seats)

    # -- the sweep ----------------------------------------------------------------------------------

    def sweep(self, now: float) -> Swept:
        """Expire the open challenges whose time is up, and settle the changes a dead process left
        unsettled (older than :data:`GRACE_SECONDS`)."""
        expired = settled = 0
        for app, challenge_id in self.store.challenges_due(now, SWEEP_LIMIT):
            self.store.mark_todo(app, challenge_id, now)
            if self.store.close_challenge(app, challenge_id, EXPIRED, now) == "ok":
                expired += 1
            self._settle_swept(app, challenge_id, now)  # unlists it, whatever it became
        for app, challenge_id, marked in self.store.todo(now - GRACE_SECONDS, SWEEP_LIMIT):
            settled += self._settle_swept(app, challenge_id, marked)
        return Swept(expired, settled)

    def _settle_swept(self, app: str, challenge_id: str, marked: float) -> bool:
        """Settle for the sweep; a challenge whose settling fails (a bug) stays marked and waits for the
        next sweep without stopping the others.  Whether it was settled."""
        try:
            self.settle(app, challenge_id)
        except STORAGE_ERRORS:
            raise
        except Exception:
            log.exception("challenges: settling %s failed", challenge_id)
            return False
        self.store.settled(app, challenge_id, marked)
        return True


def participants(doc: dict[str, Any]) -> list[str]:
    """The challenger's and the challenged players' ids."""
    return [doc["challenger"]["id"], *doc["challenged"]]


def document(stored: dict[str, Any]) -> dict[str, Any]:
    """A challenge as the API shows it."""
    doc, status = stored["doc"], stored["status"]
    return {
        "id": doc["id"],
        "status": status,
        "match_id": doc["id"] if status == ACCEPTED else None,
        "game": doc["game"],
        "players": doc["players"],
        "options": doc["options"],
        "rated": doc["rated"],
        "time_control": doc["time_control"],
        "order": doc["order"],
        "challenger": doc["challenger"],
        "challenged": [
            {"id": pid, "name": doc["names"].get(pid, pid), "answer": stored["answers"].get(pid, PENDING)}
            for pid in doc["challenged"]
        ],
        "declined_by": stored["declined_by"],
        "created_at": doc["created_at"],
        "expires_at": doc["expires_at"],
    }
