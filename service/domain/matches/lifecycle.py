"""A match's life around its moves: joining open seats, cancelling, resigning, coming back, rematches.

Each operation is a compare-and-set commit of the match's meta (no state, no log entry: the action log
holds moves only) through :meth:`service.domain.matches.commits.Commits.change`, so it races safely with
moves and with
itself: of two clients taking the last open seat one commits and the other, retrying on the new
version, finds the seat taken (409).  Each bumps the version and appends its events, so streams and
long-polls see it.  The bookkeeping of seats is :mod:`service.domain.matches.seating`; clocks are
:mod:`service.domain.matches.clocks` (timeouts are played by the workers: :func:`workers.jobs.time_out`).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import hmac
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from service import auth
from service.domain.accounts import Accounts, require_scope
from service.domain.errors import Conflict, Forbidden, NotFound, invalid, unauthorized
from service.domain.identity import APP, PLAY, PLAYER, SEAT, Caller
from service.domain.matches import clocks, seating
from service.domain.matches.changes import Change
from service.domain.matches.commits import Commits
from service.domain.matches.reading import MatchReading
from service.events import JOINED, LEFT, OVER, REMATCH, REMATCH_DECLINED, RESIGNED, STARTED
from service.storage.matches import ABORTED, ACTIVE, FINISHED, OVER_STATUSES, WAITING, MatchMeta, Store


class CreateMatch(Protocol):
    """How a rematch is created: :meth:`service.domain.matches.creation.MatchCreation.create`."""

    def __call__(
        self,
        request: dict[str, Any],
        *,
        reserved: dict[str, str] | None = None,
        match_id: str | None = None,
        rematch_of: str | None = None,
        app: str | None = None,
    ) -> dict[str, Any]: ...


#: Why a rematch offer ended: a player it was offered to said no, or one who had taken a seat left.
DECLINED, WITHDRAWN = "declined", "withdrawn"


def _aborted(meta: MatchMeta, reason: str, events: list[dict[str, Any]]) -> MatchMeta:
    """The match ends without a result; its ``match_over`` event ends streams as a finish does."""
    clock = None if meta.clock is None else {**meta.clock, "turn_started": None, "deadline": None}
    events.append({"type": OVER, "visible_to": "all", "status": ABORTED, "reason": reason, "result": None})
    return replace(meta, status=ABORTED, to_move=None, result=None, clock=clock)


def _pick(meta: MatchMeta, choice: int | str, invite: str | None, player: str | None) -> int:
    """The seat a join takes, or the refusal: 403 for a private match without the invite code of an
    open seat, 409 for a seat that is not open (taken meanwhile, or kept for a rematch's player).  A
    seat's code joins it whenever it is open: again after its player left before the start.  A seat
    kept for ``player`` (named at creation) is theirs to take, in a private match too."""
    kept = _kept_for(meta, player)
    if kept is not None:
        if choice not in ("any", kept):
            raise invalid("seat", f"seat {kept} is kept for this player")
        return kept
    if meta.life.get("visibility") == seating.PRIVATE:
        seat = seating.seat_of_invite(meta.life, invite or "")
        if seat is None or seat not in seating.open_seats(meta.seats):
            raise _invite_required()
        if choice not in ("any", seat):
            raise invalid("seat", f"this invite code is for seat {seat}")
        return seat
    open_now = seating.joinable(meta.life, meta.seats)
    if choice == "any":
        if not open_now:
            raise Conflict("no_open_seat", "every seat is taken or kept for a rematch's player")
        return open_now[0]
    assert isinstance(choice, int)
    if choice >= meta.players:
        raise invalid("seat", f"the match has seats 0 to {meta.players - 1}")
    if choice not in open_now:
        raise Conflict("seat_taken", f"seat {choice} is not open", {"open_seats": open_now})
    return choice


def _invite_required() -> Forbidden:
    return Forbidden(
        "invite_required",
        "this match is private: join with the invite code of an open seat (a code joins its seat while "
        "nobody holds it), or as the player a seat is kept for",
    )


def _may_join(meta: MatchMeta, who: Caller, invite: str | None, player: str | None) -> bool:
    """Whether the caller may learn anything of the match by asking to join it: any public match; a
    private one with one of its invite codes, for a player it keeps or seats, or for its app."""
    if seating.readable(meta.life, who):
        return True
    if invite is not None and seating.seat_of_invite(meta.life, invite) is not None:
        return True
    return player is not None and (
        seating.seat_of_player(meta.life, player) is not None
        or seating.player_mark(player) in meta.life.get("reserved", {}).values()
    )


def _kept_for(meta: MatchMeta, player: str | None) -> int | None:
    """The open seat kept for ``player`` (a player key), if any."""
    if player is None:
        return None
    mark = seating.player_mark(player)
    for seat, holder in meta.life.get("reserved", {}).items():
        if holder == mark and int(seat) in seating.open_seats(meta.seats):
            return int(seat)
    return None


def _created_by(meta: MatchMeta, who: Caller) -> bool:
    """Whether the app key or player token ``who`` speaks for the match's creator: the app the match
    belongs to (whoever of it created it), or the player who created it."""
    if who.kind == APP:
        return who.app is not None and who.app == meta.life.get("app")
    creator = meta.life.get("creator_player")
    return who.kind == PLAYER and creator is not None and creator == who.player_key


def rematch_id(match_id: str) -> str:
    """The id of ``match_id``'s rematch, the same for every seat that asks (a match id's form: 16 hex
    digits).  Nothing is learnt from knowing it: a rematch is private, read with its seats' tokens."""
    return hashlib.blake2b(f"rematch of {match_id}".encode(), digest_size=8).hexdigest()


class _Linked(Exception):
    """The finished match links to a rematch already (another seat's call linked it meanwhile)."""

    def __init__(self, match_id: str) -> None:
        super().__init__(match_id)
        self.match_id = match_id


class Lifecycle:
    """The operations of a match's life around its moves, each a compare-and-set change of the match
    (:meth:`service.domain.matches.commits.Commits.change`)."""

    def __init__(
        self,
        store: Store,
        accounts: Accounts,
        reading: MatchReading,
        commits: Commits,
        create: CreateMatch,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        #: Who a joining player is (their display name).
        self.accounts = accounts
        self.reading = reading
        self.commits = commits
        #: How a rematch is created (:meth:`service.domain.matches.creation.MatchCreation.create`).
        self.create = create
        self.now = clock

    def _start_if_full(self, meta: MatchMeta, events: list[dict[str, Any]]) -> MatchMeta:
        """A waiting match whose seats are all taken starts: its clock runs from now, and the first bot
        turn is announced after the commit (:meth:`~service.domain.matches.commits.Commits.settle`)."""
        if seating.open_seats(meta.seats) or meta.status != WAITING:
            return meta
        clock = None
        if meta.clock is not None:
            clock = copy.deepcopy(meta.clock)
            clocks.start_turn(clock, meta.seats, meta.to_move, self.now())
        events.append({"type": STARTED, "visible_to": "all"})
        life = {**meta.life, "started_at": self.now()}  # a record's header (service.domain.records)
        return replace(meta, status=ACTIVE if meta.to_move is not None else FINISHED, clock=clock, life=life)

    # -- join -------------------------------------------------------------------------------------------

    def join(
        self, match_id: str, choice: int | str, name: str | None, invite: str | None, who: Caller
    ) -> dict[str, Any]:
        """Take an open seat (``choice``: its number or ``"any"``) as ``name``; a private match's seat needs
        its invite code, unless it is kept for the joining player.  Answers the seat's token (the only
        time it is shown) and the match as that seat sees it.  A player (a player token with ``play``)
        joins as itself: its display name unless ``name`` says otherwise, no seat token (its player tokens
        act for the seat)."""
        player = who.player_key if who.kind == PLAYER else None
        if player is not None:
            require_scope(who, PLAY)
            assert who.app is not None and who.player is not None
            name = name or self.accounts.stored_player(who.app, who.player).name
        elif name is None:
            raise invalid("name", "a name is required (or join with a player token)")
        token = None if player is not None else auth.new_token()

        def decide(meta: MatchMeta) -> Change:
            if not _may_join(meta, who, invite, player):  # a stranger learns nothing of a private match
                raise _invite_required()
            if meta.status != WAITING:
                raise Conflict(
                    "not_waiting", f"the match is {meta.status}: no seat to join", {"status": meta.status}
                )
            if player is not None and seating.seat_of_player(meta.life, player) is not None:
                raise Conflict("already_seated", "this player holds a seat of this match already")
            seat = _pick(meta, choice, invite, player)
            seats, hashes, life = seating.take(
                meta.seats, meta.token_hashes, meta.life, seat, name, token, player
            )
            events = [{"type": JOINED, "visible_to": "all", "seat": seat, "name": name}]
            after = self._start_if_full(replace(meta, seats=seats, token_hashes=hashes, life=life), events)
            return Change(after, events, {"seat": seat})

        change, state = self.commits.change(match_id, decide)
        seat = change.answer["seat"]
        return {"seat": seat, "token": token, "match": self.reading.document(change.after, state, seat, who)}

    # -- cancel and resign --------------------------------------------------------------------------------

    def cancel(self, match_id: str, who: Caller) -> dict[str, Any]:
        """The creator calls off a match that has not started: an anonymous one with the creator token,
        else by its credential (the key of the app the match belongs to, or the token of the player who
        created it, with ``play``), which is why only anonymous creations get a creator token."""
        if who.kind not in (SEAT, APP, PLAYER):
            raise unauthorized("the creator token, the app key or the creating player's token is required")
        if who.kind == PLAYER:
            require_scope(who, PLAY)

        def decide(meta: MatchMeta) -> Change:
            if who.kind in (APP, PLAYER):
                if not _created_by(meta, who):
                    self.reading.caller(meta, who, required=False)  # 404 for a private match it may not read
                    what = "app" if who.kind == APP else "player"
                    raise Forbidden("not_creator", f"this {what} did not create the match")
            elif not hmac.compare_digest(auth.hash_token(who.token or ""), meta.life.get("creator", "")):
                raise unauthorized(
                    "this is not the creator token of this match", 'Bearer error="invalid_token"'
                )
            if meta.status != WAITING:
                raise Conflict(
                    "not_waiting",
                    f"only a waiting match can be cancelled; this one is {meta.status} (resign instead)",
                    {"status": meta.status},
                )
            events: list[dict[str, Any]] = []
            return Change(_aborted(meta, "cancelled", events), events)

        change, state = self.commits.change(match_id, decide)
        return self.reading.document(change.after, state, None, who)

    def abort(self, match_id: str, reason: str) -> bool:
        """End a match not over yet (waiting or under way) without a result, for the organiser that made it
        (a tournament cancelled, issue 31): ``match_over`` with status ``aborted`` and ``reason``, as the
        other abort paths.  Whether it was aborted now (``False``: over already, or gone)."""

        def decide(meta: MatchMeta) -> Change:
            if meta.status in OVER_STATUSES:
                raise Conflict("match_over", f"the match is {meta.status} already", {"status": meta.status})
            events: list[dict[str, Any]] = []
            return Change(_aborted(meta, reason, events), events)

        try:
            self.commits.change(match_id, decide)
        except (Conflict, NotFound):
            return False
        return True

    def resign(self, match_id: str, who: Caller) -> dict[str, Any]:
        """The caller's seat leaves, for good (the only way a seat is given up: an away seat is resigned
        too).  Before the start the seat opens again (a private seat's invite code joins it again; a
        private seat the creator gave out with a token has no code, so its leaving aborts the match,
        ``abandoned``, rather than leave it waiting for a player nobody can invite); in a rematch not
        yet started it withdraws the offer (the rematch ends ``aborted``, see :meth:`decline`).  During
        play a bot takes it (``on_leave``) and the match goes on, or with ``on_leave.then == "abort"``
        the match ends ``aborted`` when no player is left.  The result will record who resigned."""

        def decide(meta: MatchMeta) -> Change:
            seat = self.reading.caller(meta, who, required=True, scope=PLAY)
            if meta.status in OVER_STATUSES:
                raise Conflict("match_over", f"the match is {meta.status} already", {"status": meta.status})
            if not seating.held_by_player(meta.seats[seat]):
                raise Conflict("seat_left", f"seat {seat} was left already", {"seat": seat})
            if meta.status == WAITING and meta.life.get("rematch_of"):
                events: list[dict[str, Any]] = []
                return Change(_aborted(meta, WITHDRAWN, events), events, {"seat": seat, "withdrew": True})
            if meta.status == WAITING:  # leaving before the start: the seat is open again
                seats, life = seating.leave(meta.seats, meta.life, seat, started=False)
                hashes = list(meta.token_hashes)
                hashes[seat] = ""  # the token no longer holds the seat: the next to join gets a new one
                events = [{"type": LEFT, "visible_to": "all", "seat": seat}]
                after = replace(meta, seats=seats, life=life, token_hashes=hashes)
                if not seating.reopens(meta.life, seat):  # nobody could join it: the match would never start
                    return Change(_aborted(after, "abandoned", events), events, {"seat": None})
                return Change(after, events, {"seat": None})
            seats, life = seating.leave(meta.seats, meta.life, seat, started=True)
            on_leave = life["on_leave"]
            events = [{"type": RESIGNED, "visible_to": "all", "seat": seat, **on_leave}]
            after = replace(meta, seats=seats, life=life)
            if on_leave["then"] == "abort" and not seating.humans_left(seats):
                return Change(_aborted(after, "abandoned", events), events, {"seat": seat})
            if meta.clock is not None and meta.to_move == seat:  # the bot decides now: no deadline
                clock = copy.deepcopy(meta.clock)
                clocks.end_turn(clock, seat, self.now(), timed_out=False)
                clocks.start_turn(clock, seats, meta.to_move, self.now())
                after = replace(after, clock=clock)
            return Change(after, events, {"seat": seat})

        change, state = self.commits.change(match_id, decide)
        if change.answer.get("withdrew"):
            self._note_offer_ended(change.after.life["rematch_of"], match_id, WITHDRAWN)
        return self.reading.document(change.after, state, change.answer["seat"], who)

    # -- coming back ------------------------------------------------------------------------------------

    def return_to_seat(self, match_id: str, who: Caller) -> dict[str, Any]:
        """The away player of the caller's seat comes back: the seat is theirs again
        (:meth:`~service.domain.matches.commits.Commits.come_back`), answered as the match the seat
        sees.  Only an explicit request does this (or a move or hint request of the seat): a read
        never does, so a page that merely shows the match cannot take the seat back with nobody at
        the keyboard.  A seat that is not away is 409
        ``not_away`` (the second of two quick calls too: harmless, the seat is back), a resigned one 403
        ``seat_left``, a match over 409 ``match_over`` (a bot no longer plays it)."""

        def decide(meta: MatchMeta) -> Change:
            seat = self.reading.caller(meta, who, required=True, scope=PLAY)
            if meta.status in OVER_STATUSES:
                raise Conflict("match_over", f"the match is {meta.status} already", {"status": meta.status})
            if not seating.held_by_player(meta.seats[seat]):
                raise Forbidden(
                    "seat_left", f"seat {seat} was resigned; a bot plays it for good", {"seat": seat}
                )
            if not seating.is_away(meta.seats[seat]):
                raise Conflict("not_away", f"seat {seat} is not away: it is yours already", {"seat": seat})
            return self.commits.come_back(meta, seat)

        change, state = self.commits.change(match_id, decide)
        return self.reading.document(change.after, state, change.answer["seat"], who)

    def return_everywhere(self, key: str) -> list[dict[str, Any]]:
        """The player ``key`` comes back to every seat of theirs that is away (:meth:`return_to_seat`
        for each, by the player's own request: ``POST /v1/me/return``), so a bot restarting after an
        outage takes back all of them in one call.  Each seat returned, with the match's version
        after; a seat that came back meanwhile (another call) is not listed.  Reads the player's
        active matches page by page (the listing's ``away`` filter), newest first."""
        returned: list[dict[str, Any]] = []
        cursor: int | None = None
        while True:
            page, cursor = self.reading.my_matches(key, ACTIVE, None, cursor, 100, away=True)
            for mine in page:
                try:
                    meta = self.reading.meta(mine["id"])
                except NotFound:  # expired since the listing
                    continue
                seat = mine["seat"]
                if not seating.is_away(meta.seats[seat]) or meta.status != ACTIVE:
                    continue
                after = self.commits.reclaim(meta, seat)
                if after.version != meta.version:
                    returned.append({"match_id": meta.id, "seat": seat, "version": after.version})
            if cursor is None:
                return returned

    # -- rematch ----------------------------------------------------------------------------------------

    def rematch(self, match_id: str, who: Caller) -> dict[str, Any]:
        """A seat of a finished match asks to play again: the first call creates the rematch (same game,
        options, bots and time control; a new seed; every seat moved one place, so another player
        starts) and links the finished match to it; each player of the finished match (an away one too;
        not a resigned seat) takes their seat in it by calling this (their new token is answered once).
        The rematch starts when all have called.  An offer nobody completes expires like any waiting
        match (``waiting_seconds``); asking again after that offers it anew under the same id.  Once
        declined or withdrawn (:meth:`decline`) it stays so: 409 ``rematch_declined``."""
        meta, seat = self._player_of_finished(match_id, who)
        linked = meta.life.get("rematch")
        new_id = linked or rematch_id(meta.id)
        # Made before it is announced: whoever reads the link (the `rematch` event, the match's
        # document) finds the rematch.  Two seats asking at once make the same id (one is told
        # ``match_exists``, which is fine) and link it once.
        if not self.store.exists(new_id):
            self._create_rematch(meta, new_id)
        if linked is None:
            new_id = self._link(meta, new_id)
        mine = seating.mark_of(who)
        player = who.player_key if who.kind == PLAYER else None

        def decide(new: MatchMeta) -> Change:
            if new.status == ABORTED:
                raise Conflict(
                    "rematch_declined",
                    "the rematch offer was declined or withdrawn; its match says by whom",
                    {"match_id": new_id},
                )
            reserved = {int(s): h for s, h in new.life.get("reserved", {}).items()}
            place = next((s for s, h in reserved.items() if hmac.compare_digest(h, mine)), None)
            if place is None:
                raise Conflict(
                    "rematch_joined",
                    "this seat has taken its place in the rematch already",
                    {"match_id": new_id},
                )
            name = meta.seats[seat]["name"]
            token = None if player is not None else auth.new_token()
            seats, hashes, life = seating.take(
                new.seats, new.token_hashes, new.life, place, name, token, player
            )
            events = [{"type": JOINED, "visible_to": "all", "seat": place, "name": name}]
            after = self._start_if_full(replace(new, seats=seats, token_hashes=hashes, life=life), events)
            return Change(after, events, {"seat": place, "token": token})

        change, _ = self.commits.change(new_id, decide)
        return {"match_id": new_id, **change.answer, "status": change.after.status}

    def decline(self, match_id: str, who: Caller) -> dict[str, Any]:
        """A player of the finished match ``match_id`` ends its rematch offer before it starts: one who
        had not taken their seat declines it, one who had (the offerer, say) withdraws it.  The rematch
        ends ``aborted`` with that ``reason`` (its seats' tokens can do nothing more), and the finished
        match's feed says so (``rematch_declined``).  Answers the rematch as a spectator sees it."""
        meta, _ = self._player_of_finished(match_id, who)
        new_id = meta.life.get("rematch")
        if new_id is None:
            raise Conflict("no_rematch", "nobody has asked for a rematch of this match")
        mine = seating.mark_of(who)

        def decide(new: MatchMeta) -> Change:
            if new.status != WAITING:
                raise Conflict(
                    "not_waiting",
                    f"the rematch is {new.status}: only an offer not yet started can be declined",
                    {"status": new.status, "match_id": new_id},
                )
            offered = any(hmac.compare_digest(h, mine) for h in new.life.get("reserved", {}).values())
            reason = DECLINED if offered else WITHDRAWN
            events: list[dict[str, Any]] = []
            return Change(_aborted(new, reason, events), events, {"reason": reason})

        change, state = self.commits.change(new_id, decide)
        self._note_offer_ended(match_id, new_id, change.answer["reason"])
        return self.reading.document(change.after, state, None, who)

    def _player_of_finished(self, match_id: str, who: Caller) -> tuple[MatchMeta, int]:
        """The finished match and the caller's seat in it, a seat its player still holds (an away seat
        counts: its player never left); the refusals of the rematch calls otherwise."""
        meta = self.reading.meta(match_id)
        seat = self.reading.caller(meta, who, required=True, scope=PLAY)
        if meta.status != FINISHED:
            raise Conflict("not_finished", f"only a finished match has a rematch; this one is {meta.status}")
        if not seating.held_by_player(meta.seats[seat]):
            raise Forbidden("seat_left", f"seat {seat} was resigned; only its players decide on a rematch")
        return meta, seat

    def _note_offer_ended(self, finished_id: str, rematch_id: str, reason: str) -> None:
        """Tell the finished match's followers that its rematch offer ended (after the rematch's own
        commit: a finished match that expired meanwhile has nobody left to tell)."""

        def decide(meta: MatchMeta) -> Change:
            event = {"type": REMATCH_DECLINED, "visible_to": "all", "match_id": rematch_id, "reason": reason}
            return Change(meta, [event])

        with contextlib.suppress(NotFound):
            self.commits.change(finished_id, decide)

    def _link(self, meta: MatchMeta, proposed: str) -> str:
        """Link the finished match to its rematch ``proposed`` (compare-and-set: of two seats asking at
        once, one links and the other finds the link, committing nothing); the id linked."""

        def decide(current: MatchMeta) -> Change:
            if current.life.get("rematch"):
                raise _Linked(current.life["rematch"])
            events = [{"type": REMATCH, "visible_to": "all", "match_id": proposed}]
            return Change(replace(current, life={**current.life, "rematch": proposed}), events)

        try:
            self.commits.change(meta.id, decide)
        except _Linked as linked:
            return linked.match_id
        return proposed

    def _create_rematch(self, meta: MatchMeta, new_id: str) -> None:
        n = meta.players
        seats, reserved = [], {}
        for new_seat in range(n):
            old = (new_seat + 1) % n  # old seat 1 sits first now
            seat = meta.seats[old]
            if seating.held_by_player(seat):
                seats.append({"kind": seating.OPEN})
                player = meta.life.get("players", {}).get(str(old))
                reserved[str(new_seat)] = (
                    seating.player_mark(player) if player is not None else meta.token_hashes[old]
                )
            else:
                seats.append({k: seat[k] for k in ("name", "kind", "level", "think_ms") if k in seat})
        request: dict[str, Any] = {
            "game": meta.game,
            "seats": seats,
            "options": meta.options,
            "on_leave": meta.life.get("on_leave"),
            "rated": bool(meta.life.get("rated")),  # a rated match's rematch is rated too
        }
        if meta.clock is not None:
            request["time_control"] = clocks.control(meta.clock)
        try:
            self.create(
                request, reserved=reserved, match_id=new_id, rematch_of=meta.id, app=meta.life.get("app")
            )
        except Conflict as exc:
            if exc.code != "match_exists":  # created by another seat's call at the same moment: fine
                raise
