"""Ratings of players per app and game, and their leaderboards (issue 27 points 1 and 2).

**Model.**  OpenSkill's Plackett-Luce model (the ``openskill`` library) rates a whole finishing order
at once, any number of seats, tied places shared.  Every rater starts at the model's default (mu 25,
sigma 25/3, ordinal 0); the leaderboards order by the conservative ordinal ``mu - 3 sigma``.  The model
runs with ``limit_sigma``: one match never makes a rater's sigma grow (tau, the model's drift, still
widens the update), so a win never lowers the winner's ordinal and a loss never raises the loser's,
as players expect of a rating (a property test holds us to it).

**Who is rated.** A match is rated when created with ``rated: true``, which
:func:`service.domain.matches.creation.check_rated` allows only when every seat is an app's player (named at
creation, or an open seat kept for a named player) or a built-in bot (``random``, ``easy``, ``normal``,
``hard``): an anonymous seat has nobody to rate, so such a match is refused rather than half rated.  Each
seat's rater is its player (the player id within the app) or its built-in bot (:func:`bot_rater`):
``builtin:<level>`` at the level's own think budget, ``builtin:<level>@<think_ms>`` for a searching level at
another (``normal`` at 100 ms is not ``normal``). A rater holds one seat: a built-in bot in two seats of a
rated match is refused (422 on the seat's ``level``; a rated tournament refuses a level entered twice alike).
The built-in levels are rated players in every app's pools and move like anyone (they anchor the scale: a
newcomer's ordinal is read against theirs). Pools: ``bots`` holds the built-in levels and the players their
app flagged ``bot``; ``people`` everyone else.  Both are on one scale; a match between a person and a bot
rates both.

**The resigned and the absent** (issue 42 point 6).  A player who resigns or times out of a rated
match still holds its seat's rating (``life["players"]`` keeps the player of a resigned or away seat,
see :mod:`service.domain.matches.seating`), and the bots that decide for it are *stand-ins*, counted per seat
in the result (:mod:`service.domain.matches.stand_ins`).  A seat whose stand-ins made more than half of its
decisions is rated as last, sharing the last place with any other such seat, whatever its stand-in
reached (:func:`rated_places`): as lichess scores an abandoned game as a loss, a player who left, or a
bot that died, early is not carried up the board by the server's bot, nor does the stand-in's luck
move anyone.  A seat mostly its own keeps the place the game gave it, stand-in decisions and all, so
leaving a lost position late costs what losing it would.  Either way nobody escapes a rating by
walking away.  For the same reason a rated match cannot end ``aborted`` when its players leave
(``on_leave.then`` must be ``bot``); an aborted or cancelled match, which has no result, is never
rated.

**Places** (:func:`places`): the engine's ``ranking`` is a total order; a game's ``ranks``, when it
gives them, say who shares which place; otherwise the ``winners`` share first place and, when the
result names no tie-break rule, seats of equal score share a place (competition ranking: 1, 1, 3).  A
tie-break rule (``tiebreak``) orders the ties the ranking shows.

**Exactly once.**  The commit that finishes a rated match puts its outcome
(:func:`service.domain.outbox.ratings.outcome`) in the match's outbox, in the same script as the commit;
:class:`service.domain.outbox.entries.Outbox` hands it to
:meth:`Ratings.record`, again after any crash, until the entry is popped.  :meth:`Ratings.record`
reads the raters' ratings, computes, and writes by compare-and-set
(:meth:`service.storage.ratings.RatingStore.apply`): a match rated already is a no-op, a rating that
changed since it was read (another match of a shared player) makes it read and compute again.  The
computation is a pure function of the stored ratings and the outcome, the seats taken in a fixed
order (by place, then rater), so replaying the rated matches in the order they were rated reproduces
every rating exactly.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from openskill.models import PlackettLuce

from engine.ai import DEFAULT_THINK_MS, LEVELS, SEARCH_LEVELS
from service.config import Config
from service.digits import digits
from service.domain.accounts import PLAYER_ID, require_scope
from service.domain.errors import invalid, not_found, unauthorized
from service.domain.identity import APP, PLAYER, READ, Caller
from service.storage.accounts import StoredPlayer
from service.storage.ratings import ALREADY, APPLIED, BOTS, POOLS, RatingsBusy, RatingStore, Write

log = logging.getLogger(__name__)

#: The model: openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300), sigma never raised by
#: a match (see the module).
MODEL = PlackettLuce(limit_sigma=True)
BUILTIN = "builtin:"
#: The built-in bot levels as raters, in every app's ``bots`` pool.
BUILTINS = tuple(f"{BUILTIN}{level}" for level in LEVELS)
#: Rated matches a rater's history keeps (and ``GET /v1/players/{id}/ratings`` shows) per game.
HISTORY_LENGTH = 30
#: Compare-and-set attempts of one :meth:`Ratings.record` before it leaves the match to the sweep.
RECORD_ATTEMPTS = 50
#: A rated match's mark is kept this long past the match's own retention (after which no outbox can
#: ask to rate it again), for drains that read the outbox just before it expired.
MARK_MARGIN_SECONDS = 24 * 3600


def builtin(level: str) -> str:
    return f"{BUILTIN}{level}"


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating the boards order by: ``mu - 3 sigma``."""
    return mu - 3.0 * sigma


def default_record(name: str, pool: str) -> dict[str, Any]:
    """A rater's record before its first rated match in a game."""
    return {
        "mu": MODEL.mu,
        "sigma": MODEL.sigma,
        "ordinal": ordinal(MODEL.mu, MODEL.sigma),
        "matches": 0,
        "last_played_at": None,
        "name": name,
        "pool": pool,
    }


def builtin_name(rater: str) -> str:
    level, _, think_ms = rater.removeprefix(BUILTIN).partition("@")
    return f"built-in {level}" + (f" ({think_ms} ms)" if think_ms else "")


def bot_rater(level: str, think_ms: int | None) -> str:
    """The rater of a built-in bot seat: ``builtin:<level>`` when it thinks for its level's own budget
    (or does not search: ``random`` and ``easy`` ignore the budget), else ``builtin:<level>@<think_ms>``,
    a player of its own: ``normal`` given a fifth of its time is another opponent, and rating it as
    ``normal`` would move the anchor everyone is read against."""
    if level in SEARCH_LEVELS and think_ms is not None and think_ms != DEFAULT_THINK_MS[level]:
        return builtin(f"{level}@{think_ms}")
    return builtin(level)


def is_builtin_rater(rater: str) -> bool:
    """Whether ``rater`` names a built-in bot as :func:`bot_rater` spells it (``builtin:hard``,
    ``builtin:normal@100``)."""
    level, at, think_ms = rater.removeprefix(BUILTIN).partition("@")
    if not rater.startswith(BUILTIN) or level not in LEVELS:
        return False
    if not at:
        return True
    return digits(think_ms) and bot_rater(level, int(think_ms)) == rater


def stand_in_majority(result: Mapping[str, Any]) -> list[bool]:
    """Per seat, whether a stand-in made more than half of its decisions (the result's ``stand_in``
    and ``decisions``, :mod:`service.domain.matches.stand_ins`); all ``False`` for a result without them."""
    stand_in, decisions = result.get("stand_in"), result.get("decisions")
    seats = len(result["ranking"])
    if not isinstance(stand_in, list) or not isinstance(decisions, list) or len(stand_in) != seats:
        return [False] * seats
    return [2 * int(s) > int(d) for s, d in zip(stand_in, decisions, strict=True)]


def rated_places(result: Mapping[str, Any]) -> list[int]:
    """The places a rated match is rated with: :func:`places`, except that every seat a stand-in
    mostly played (:func:`stand_in_majority`) shares the last place, whatever the stand-in reached;
    the others keep their order (competition ranking again: 1, 2, 3, then the absent)."""
    base = places(result)
    absent = stand_in_majority(result)
    if not any(absent):
        return base
    keys = [(1, 0) if absent[i] else (0, base[i]) for i in range(len(base))]
    return [1 + sum(1 for other in keys if other < mine) for mine in keys]


# -- what a match says --------------------------------------------------------------------------------


def places(result: Mapping[str, Any]) -> list[int]:
    """Each seat's place (1 = first) from an engine result (the rule is the module's).  Seats of a
    shared place have the same number and the next place skips (1, 1, 3)."""
    ranking: list[int] = list(result["ranking"])
    given = result.get("ranks")
    if isinstance(given, list) and len(given) == len(ranking):
        return [int(r) for r in given]
    scores = result.get("scores") or []
    winners = set(result.get("winners") or ranking[:1])
    shared = result.get("tiebreak") is None
    out = [0] * len(ranking)
    for position, seat in enumerate(ranking):
        if seat in winners:
            out[seat] = 1
            continue
        previous = ranking[position - 1] if position else None
        if (
            shared
            and previous is not None
            and previous not in winners
            and len(scores) == len(ranking)
            and scores[seat] == scores[previous]
        ):
            out[seat] = out[previous]
        else:
            out[seat] = position + 1
    return out


def rate(
    prior: Mapping[str, tuple[float, float]], players: list[str], ranks: list[int]
) -> dict[str, tuple[float, float]]:
    """The new (mu, sigma) of each rater that holds one seat of the match, from the ``prior`` (mu,
    sigma) of every rater; a rater holding several seats (two ``easy`` bots) is everyone's opponent at
    its prior rating and keeps it (it played itself).  Pure and deterministic: the seats go to the
    model ordered by (place, rater), so the seat order of the match changes nothing."""
    order = sorted(range(len(players)), key=lambda i: (ranks[i], players[i]))
    teams = [[MODEL.create_rating(list(prior[players[i]]))] for i in order]
    rated = MODEL.rate(teams, ranks=[float(ranks[i]) for i in order])
    seats = Counter(players)
    out: dict[str, tuple[float, float]] = {}
    for i, team in zip(order, rated, strict=True):
        if seats[players[i]] == 1:
            out[players[i]] = (float(team[0].mu), float(team[0].sigma))
    return out


# -- the service ----------------------------------------------------------------------------------------


def reader_app(caller: Caller) -> str:
    """The app whose ratings the caller reads: an app key's, or a player token's (with ``read``)."""
    if caller.kind not in (APP, PLAYER) or caller.app is None:
        raise unauthorized("an app key or a player token is required: ratings are an app's")
    require_scope(caller, READ)
    return caller.app


def encode_cursor(member: str) -> str:
    return base64.urlsafe_b64encode(member.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        member = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        member = ""
    key, sep, rater = member.partition(":")
    if not sep or not rater or len(key) != 17 or not digits(key.replace(".", "")):
        raise invalid("cursor", "not a cursor this leaderboard gave (next_cursor)")
    return member


class Ratings:
    """Players' ratings per app and game; :meth:`record` rates a finished match once."""

    def __init__(self, store: RatingStore, config: Config) -> None:
        self.store = store
        self.config = config

    # -- rating a match ----------------------------------------------------------------------------

    def record(self, match_id: str, outcome: dict[str, Any]) -> bool:
        """Update the ratings of the players of the finished match ``match_id`` by ``outcome`` (see
        :func:`service.domain.outbox.ratings.outcome`), once however often it is asked: ``True`` if this call
        rated it.  Raises :class:`RatingsBusy` if it kept losing the compare-and-set (the outbox keeps the
        entry)."""
        app, game = outcome["app"], outcome["game"]
        players: list[str] = list(outcome["players"])
        ranks = [int(r) for r in outcome["ranks"]]
        raters = sorted(set(players))
        for attempt in range(RECORD_ATTEMPTS):
            snapshot = self.store.snapshot(app, game, match_id, raters)
            if snapshot.rated:
                return False
            writes = self._compute(match_id, outcome, players, ranks, snapshot.records)
            now = time.time()
            keep_since = now - self.config.retention_seconds - MARK_MARGIN_SECONDS
            done, _ = self.store.apply(
                app,
                game,
                match_id,
                now,
                snapshot.records,
                writes,
                keep_since,
                HISTORY_LENGTH,
            )
            if done == APPLIED:
                return True
            if done == ALREADY:
                return False
            time.sleep(random.uniform(0, 0.001 * (attempt + 1)))  # another match of these players won
        raise RatingsBusy(f"match {match_id}: the ratings of its players kept changing; the sweep retries")

    def _compute(
        self,
        match_id: str,
        outcome: dict[str, Any],
        players: list[str],
        ranks: list[int],
        stored: dict[str, str | None],
    ) -> list[Write]:
        """The writes rating the match on the ``stored`` records (as read)."""
        records: dict[str, dict[str, Any]] = {}
        for i, rater in enumerate(players):
            raw = stored[rater]
            records[rater] = (
                json.loads(raw)
                if raw is not None
                else default_record(outcome["names"][i], outcome["pools"][i])
            )
        new = rate({r: (rec["mu"], rec["sigma"]) for r, rec in records.items()}, players, ranks)
        writes = []
        for i, rater in enumerate(players):
            if rater not in new:
                continue
            mu, sigma = new[rater]
            before = records[rater]
            record = {
                "mu": mu,
                "sigma": sigma,
                "ordinal": ordinal(mu, sigma),
                "matches": int(before["matches"]) + 1,
                "last_played_at": outcome["at"],
                "name": outcome["names"][i],
                "pool": outcome["pools"][i],
            }
            entry = {
                "match_id": match_id,
                "at": outcome["at"],
                "place": ranks[i],
                "players": len(players),
                "before": before["ordinal"],
                "after": record["ordinal"],
            }
            writes.append(Write(rater, stored[rater], record, entry))
        return writes

    # -- reading -----------------------------------------------------------------------------------

    def seed_builtins(self, app: str, game: str) -> None:
        """The built-in levels on the app's ``bots`` board of ``game`` at the default rating, unless
        they are rated there already: they appear on every app's board from the start."""
        self.store.seed(app, game, {r: default_record(builtin_name(r), BOTS) for r in BUILTINS})

    def ordinal(self, app: str, game: str, player: str) -> float:
        """The ordinal of ``player`` (an id of the app, its key ``<app>:<id>``, or ``builtin:<level>``)
        in ``game``; the default ordinal (0) before its first rated match."""
        rater = player.removeprefix(f"{app}:")
        record = self.store.records(app, game, [rater])[rater]
        return float(record["ordinal"]) if record is not None else ordinal(MODEL.mu, MODEL.sigma)

    def leaderboard(
        self, app: str, game: str, pool: str, cursor: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The app's board of ``game`` for ``pool``, best ordinal first, ``limit`` rows after the
        ``cursor`` of the previous page; the rows and the next cursor (``None``: no more).  Equal
        ordinals share a rank."""
        if pool not in POOLS:
            raise invalid("pool", f"one of {', '.join(POOLS)}")
        if pool == BOTS:
            self.seed_builtins(app, game)
        after = decode_cursor(cursor) if cursor is not None else None
        page = self.store.page(app, game, pool, after, limit + 1)
        rows = [
            {
                "rank": rank,
                "player": rater,
                "name": record["name"],
                "mu": record["mu"],
                "sigma": record["sigma"],
                "ordinal": record["ordinal"],
                "matches": record["matches"],
                "last_played_at": record["last_played_at"],
            }
            for rater, record, rank in page.rows[:limit]
            if record is not None
        ]
        if len(page.rows) <= limit:
            return rows, None
        return rows, encode_cursor(page.members[limit - 1])

    def player_ratings(
        self,
        app: str,
        player: str,
        games: list[str],
        profile: Callable[[str, str], StoredPlayer | None],
    ) -> dict[str, Any]:
        """A player's (or built-in level's) ratings in each game of ``games`` it was rated in: mu,
        sigma, ordinal, matches, its rank on its pool's board, and its recent rated matches (newest
        first).  404 for a player the app does not have."""
        if player.startswith(BUILTIN):
            if not is_builtin_rater(player):
                raise not_found(f"player {player!r}")
            if player in BUILTINS:  # a level at another think_ms is on the board once it is rated
                for game in games:
                    self.seed_builtins(app, game)
        elif not PLAYER_ID.fullmatch(player) or profile(app, player) is None:
            raise not_found(f"player {player!r}")
        found = self.store.standing(app, player, games, HISTORY_LENGTH)
        ratings = []
        for game in games:
            if game not in found:
                continue
            record, rank, history = found[game]
            shown = [
                {k: e[k] for k in ("match_id", "at", "place", "players", "before", "after")} for e in history
            ]
            ratings.append(standing_document(game, record, rank, shown))
        return {"player": player, "ratings": ratings}


def standing_document(
    game: str, record: dict[str, Any], rank: int | None, history: list[dict[str, Any]]
) -> dict[str, Any]:
    """A player's standing in one game as the API shows it (the ratings page, and the player's data
    export, which adds the name it was rated under)."""
    return {
        "game": game,
        "pool": record["pool"],
        "mu": record["mu"],
        "sigma": record["sigma"],
        "ordinal": record["ordinal"],
        "matches": record["matches"],
        "rank": rank,
        "last_played_at": record["last_played_at"],
        "history": history,
    }
