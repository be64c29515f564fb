"""Who holds a match's seats, and what happens when one is left: pure bookkeeping over the meta's
``seats``, ``token_hashes`` and ``life`` (see :class:`service.storage.matches.MatchMeta`).

A seat is ``human`` (held by a bearer token), ``bot`` (played by a worker) or ``open`` (waiting for a
player to join).  A human seat out of time too often (see :mod:`service.domain.matches.clocks`) is *away*: a
``bot`` seat marked ``"away": true`` that keeps its name and token hash, so the bot plays it only until its
player acts again (:func:`come_back`); a resigned seat is a plain ``bot`` seat for good.  ``life``
holds what the creator chose and what happened since:

- ``visibility``: ``public`` (listed; any open seat may be joined) or ``private`` (not listed; each open
  seat is joined with its own invite code, returned to the creator only);
- ``creator``: the hash of an anonymous creator's token (it cancels a waiting match), empty when the
  creator is known by its credential: the app (``app``) or its player (``creator_player``, a key);
- ``invites``: seat -> hash of its invite code, which joins the seat whenever it is open: a seat left
  before the start can be joined again with the code it was joined with (nobody else holds the code);
- ``reserved``: seat -> hash of the token of the player it is kept for (a rematch's seats: only that
  player's rematch call takes it);
- ``on_leave``: ``{"then": "bot" | "abort", "level": ...}``: a bot takes a resigned seat; with ``abort``
  the match ends ``aborted`` instead once no human is left;
- ``resigned``: the seats that resigned, in order; ``rematch``: the id of the match that follows;
  ``rematch_of``: a rematch's finished match;
- ``players``: seat -> the key (``<app>:<player>``) of the player who holds it (see
  :mod:`service.domain.accounts`): a player's token acts for the seat, which has no seat token of its
  own; a seat ``reserved`` for a player holds :func:`player_mark` of its key;
- ``app``: the app whose key or player created the match (a private match is readable by it).

Hashes only: tokens and codes are shown once, to the one entitled to them (see :mod:`service.auth`).
"""

from __future__ import annotations

import copy
import hmac
from typing import Any

from service import auth
from service.domain.identity import APP, PLAYER, Caller
from service.domain.matches.bots import think_budget
from service.storage.matches import ACTIVE, MatchMeta

HUMAN, BOT, OPEN = "human", "bot", "open"
PUBLIC, PRIVATE = "public", "private"
#: What happens to a resigned seat unless the creator says otherwise.
DEFAULT_ON_LEAVE = {"then": "bot", "level": "easy"}


def new_life(visibility: str, creator_token: str | None, on_leave: dict[str, Any] | None) -> dict[str, Any]:
    """A new match's ``life``; ``creator_token`` is ``None`` when the creator is known by its
    credential (an app key, a player token): no hash then, so no token is its pass."""
    return {
        "visibility": visibility,
        "creator": auth.hash_token(creator_token) if creator_token is not None else "",
        "invites": {},
        "reserved": {},
        "on_leave": {**DEFAULT_ON_LEAVE, **(on_leave or {})},
        "resigned": [],
        "rematch": None,
    }


def player_mark(key: str) -> str:
    """What ``reserved`` holds for a seat kept for a player (a token hash never starts like this)."""
    return f"player:{key}"


def mark_of(caller: Caller) -> str:
    """How ``reserved`` and a rematch know the caller: its player's mark, or its seat token's hash."""
    if caller.kind == PLAYER and caller.player_key is not None:
        return player_mark(caller.player_key)
    return auth.hash_token(caller.token or "")


def readable(life: dict[str, Any], who: Caller) -> bool:
    """Whether ``who`` may read a match without holding a seat: any match that is not private, and a
    private one by the key of its own app."""
    if life.get("visibility") != PRIVATE:
        return True
    return who.kind == APP and who.app is not None and who.app == life.get("app")


def holds_pass(life: dict[str, Any], token: str) -> bool:
    """Whether ``token`` is a pass to the match without being a seat's: its creator's token, one of a
    private match's invite codes, or the token a rematch's seat is kept for.  A pass reads the match
    as a spectator (a private one too: its holder was let in by whoever handed it out)."""
    digest = auth.hash_token(token)
    passes = [life.get("creator", ""), *life.get("invites", {}).values(), *life.get("reserved", {}).values()]
    found = False
    for stored in passes:  # every one compared, as for seat tokens
        found = hmac.compare_digest(digest, stored) or found
    return found


def seat_of_player(life: dict[str, Any], key: str | None) -> int | None:
    """The seat the player ``key`` holds in the match, or ``None``."""
    if key is None:
        return None
    for seat, holder in life.get("players", {}).items():
        if holder == key:
            return int(seat)
    return None


def player_keys(life: dict[str, Any]) -> dict[int, str]:
    """Seat -> player key of every seat a player holds, and of every seat kept for one."""
    bound = {int(s): k for s, k in life.get("players", {}).items()}
    for seat, mark in life.get("reserved", {}).items():
        if mark.startswith("player:") and int(seat) not in bound:
            bound[int(seat)] = mark.removeprefix("player:")
    return bound


def decides_now(meta: MatchMeta, seat: int) -> bool:
    """Whether ``seat`` holds the pending decision of a match under way and its player makes it (not a
    bot playing it: resigned, or away): what ``my_turn`` says in a feed entry and a player's listing."""
    return meta.status == ACTIVE and meta.to_move == seat and meta.seats[seat]["kind"] == HUMAN


def deciding_player(meta: MatchMeta) -> tuple[int, str] | None:
    """The seat and player key of the pending decision, if a player makes it now (the one a clock
    warning is for)."""
    seat = meta.to_move
    key = player_keys(meta.life).get(seat) if seat is not None else None
    if seat is None or key is None or not decides_now(meta, seat):
        return None
    return seat, key


def open_seats(seats: list[dict[str, Any]]) -> list[int]:
    return [i for i, s in enumerate(seats) if s["kind"] == OPEN]


def joinable(life: dict[str, Any], seats: list[dict[str, Any]]) -> list[int]:
    """The open seats a join may take (a rematch's reserved seats are kept for their players)."""
    return [i for i in open_seats(seats) if str(i) not in life.get("reserved", {})]


def held_by_player(seat: dict[str, Any]) -> bool:
    """Whether a player's token holds ``seat``: a human seat, or one a bot plays while its player is
    away (not a resigned seat, nor a bot's from the start)."""
    return seat["kind"] == HUMAN or is_away(seat)


def is_away(seat: dict[str, Any]) -> bool:
    return bool(seat.get("away"))


def humans_left(seats: list[dict[str, Any]]) -> int:
    """Seats still held by players (an away player may come back, so the match is not abandoned)."""
    return sum(1 for s in seats if held_by_player(s))


def bot_seat(name: str, level: str) -> dict[str, Any]:
    return {"name": name, "kind": BOT, "level": level, "think_ms": think_budget(level)[1]}


def away_seat(name: str, level: str) -> dict[str, Any]:
    """A human seat whose player is away: a bot of ``level`` plays it until the player acts again."""
    return {**bot_seat(name, level), "away": True}


def come_back(seats: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """New seats after the away player of ``seat`` acts again: the seat is theirs, as human."""
    seats = copy.deepcopy(seats)
    seats[seat] = {"name": seats[seat]["name"], "kind": HUMAN}
    return seats


def reopens(life: dict[str, Any], seat: int) -> bool:
    """Whether a seat left before the start can be taken again: by anyone in a public match, by its
    invite code in a private one (a seat the creator named has none)."""
    return life.get("visibility") != PRIVATE or str(seat) in life.get("invites", {})


def seat_of_invite(life: dict[str, Any], code: str) -> int | None:
    """The seat a private match's invite code is for, or ``None`` (a wrong code); the caller checks
    that the seat is open (a code joins its seat while nobody holds it)."""
    digest, found = auth.hash_token(code), None
    for seat, stored in life.get("invites", {}).items():  # every one compared, as for seat tokens
        if hmac.compare_digest(digest, stored) and found is None:
            found = int(seat)
    return found


def take(
    seats: list[dict[str, Any]],
    hashes: list[str],
    life: dict[str, Any],
    seat: int,
    name: str,
    token: str | None,
    player: str | None = None,
) -> tuple[list[dict[str, Any]], list[str], dict[str, Any]]:
    """New seats, token hashes and life after ``seat`` is taken by a player ``name``: one holding the
    seat token ``token``, or the player ``player`` (a key: its player tokens act for the seat)."""
    seats, hashes, life = copy.deepcopy(seats), list(hashes), copy.deepcopy(life)
    seats[seat] = {"name": name, "kind": HUMAN}
    hashes[seat] = auth.hash_token(token) if token is not None else ""
    if player is not None:
        life.setdefault("players", {})[str(seat)] = player
    life["reserved"].pop(str(seat), None)
    return seats, hashes, life


def leave(
    seats: list[dict[str, Any]], life: dict[str, Any], seat: int, *, started: bool
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """New seats and life after ``seat`` resigns.  Before the match started the seat opens again (its
    token no longer holds it: the caller clears the hash); after, a bot of ``on_leave``'s level takes
    it for good (an away seat too), and the seat is recorded as resigned."""
    seats, life = copy.deepcopy(seats), copy.deepcopy(life)
    if not started:
        seats[seat] = {"name": "", "kind": OPEN}
        life.get("players", {}).pop(str(seat), None)
        return seats, life
    seats[seat] = bot_seat(seats[seat]["name"], life["on_leave"]["level"])
    life["resigned"].append(seat)
    return seats, life
