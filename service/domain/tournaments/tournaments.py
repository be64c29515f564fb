"""Tournaments (issues 31 and 42): a round robin or a Swiss event the server runs for an app, with
standings and an export.  This module creates, reads, lists and cancels them, and counts them against
their app's caps; the rules (pairing, seats, points, tie-breaks) are
:mod:`service.domain.tournaments.pairing`'s, the record's reading
:mod:`~service.domain.tournaments.records`' and :mod:`~service.domain.tournaments.standings`', and the
matches are made, recorded and finished by :mod:`service.domain.tournaments.scheduler`.

**Bounded cost** (issue 42).  Creating a tournament does constant work in the request, whatever its
size: it checks the request, counts the tournament against its app's caps (tournaments scheduled or
running, ``tournament_max_running``; their matches not over, ``tournament_max_scheduled_matches``) and
writes one record.  No match is made and nothing is written per match: a round robin's schedule is
derived from its spec, a Swiss round is paired when the one before is over, and the matches are made
by the scheduler as they start.  A cancel is one write too: the matches under way are aborted
afterwards by the sweep, a batch at a time.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Mapping
from typing import Any

from engine.ai import LEVELS
from engine.core import Game
from service.config import Config
from service.domain.accounts import Accounts
from service.domain.errors import Conflict, Forbidden, NotFound, invalid
from service.domain.identity import APP, PLAY, PLAYER, READ, Caller
from service.domain.matchmaking.making import Clock, caller_app, match_terms
from service.domain.ratings import bot_rater
from service.domain.tournaments.records import (
    FORMATS,
    ROUND_ROBIN,
    STATUSES,
    SWISS,
    created_at_of,
    load,
    new_id,
    total_matches,
    tournament_not_found,
)
from service.domain.tournaments.standings import document, result_rows, standings
from service.storage.tournaments import RUNNING, SCHEDULED, Stored, TournamentStore

#: Why a tournament was cancelled (its ``cancel_reason``): by the app (its key or the player who
#: created it), by the operator (the admin API), or its app revoked (:meth:`Tournaments.cancel_all`).
BY_APP, BY_OPERATOR, APP_REVOKED = "cancelled", "operator", "app_revoked"
CANCEL_REASONS = (BY_APP, BY_OPERATOR, APP_REVOKED)
MAX_NAME = 80
#: Entrants one tournament may have (its matches are bounded apart, ``tournament_max_matches``).
MAX_ENTRANTS = 1000
#: Tournament ids one listing page reads at most, however few pass its status filter.
LIST_SCAN = 1000
#: Seconds after which a tournament counted against its app's caps but never written (its creator
#: died between the two) stops counting.
ORPHAN_SECONDS = 60.0


class Tournaments:
    """Tournaments of the apps: created, read, listed and cancelled (the scheduler,
    :class:`service.domain.tournaments.scheduler.TournamentScheduler`, runs them)."""

    def __init__(
        self,
        store: TournamentStore,
        *,
        games: Mapping[str, Game],
        accounts: Accounts,
        bot_budget: Callable[[str | None, int | None, str], tuple[str, int]],
        config: Config,
        clock: Clock,
    ) -> None:
        self.store = store
        self.games = games
        #: The player entrants, who must be the app's players.
        self.accounts = accounts
        #: A level entrant's thinking budget, checked as a bot seat's
        #: (:meth:`service.domain.matches.bots.BotQueue.budget`).
        self.bot_budget = bot_budget
        self.config = config
        self.now = clock

    # -- creating -----------------------------------------------------------------------------------

    def create(self, request: dict[str, Any], caller: Caller) -> dict[str, Any]:
        """Create a tournament of the caller's app (an app key, or a player token with ``play``, which
        may enter its own player only): its summary (no ``matches``: the scheduler makes them, from
        ``starts_at`` on).  422 naming the field for what cannot be run; 409 ``too_many_tournaments``
        or ``too_many_scheduled_matches`` past the app's caps."""
        app = caller_app(caller, PLAY)
        config = self.config
        players = request.get("players")
        if not isinstance(players, int):
            raise invalid("players", "the number of players per match is required")
        agreed = match_terms(self.games, request, players, "players")
        name = request.get("name") or f"{agreed.game.title} tournament"
        if len(name) > MAX_NAME:
            raise invalid("name", f"at most {MAX_NAME} characters")
        fmt = request.get("format", ROUND_ROBIN)
        if fmt not in FORMATS:
            raise invalid("format", f"one of {list(FORMATS)}")
        entrants = self._entrants(app, caller, request.get("entrants") or [], agreed.rated)
        if len(entrants) < players:
            raise invalid("entrants", f"{len(entrants)} entrants cannot fill a {players}-player match")
        per = request.get("matches_per_pairing")
        if per is None:
            per = players if fmt == ROUND_ROBIN else 1
        if not isinstance(per, int) or per < 1:
            raise invalid("matches_per_pairing", "at least 1")
        if fmt == SWISS:
            rounds = request.get("rounds")
            if not isinstance(rounds, int) or rounds < 1:
                raise invalid("rounds", "a Swiss tournament needs its number of rounds (at least 1)")
        else:
            rounds = request.get("rounds")
            if rounds is not None and rounds != per:  # silently playing other rounds than asked misleads
                raise invalid(
                    "rounds",
                    f"a round robin plays matches_per_pairing rounds ({per} here: the r-th meeting of "
                    "every group is round r); set matches_per_pairing instead",
                )
            rounds = per
        parallel = request.get("parallel", config.tournament_parallel)
        if not isinstance(parallel, int) or parallel < 1:
            raise invalid("parallel", "at least 1")
        now = self.now()
        starts_at = request.get("starts_at")
        starts_at = now if starts_at is None or starts_at <= now else float(starts_at)
        tid = new_id(now)
        spec: dict[str, Any] = {
            "id": tid,
            "app": app,
            "name": name,
            "game": agreed.game.id,
            "players": players,
            "options": agreed.options,
            "format": fmt,
            "rounds": rounds,
            "matches_per_pairing": per,
            "rated": agreed.rated,
            "time_control": agreed.time_control,
            "parallel": parallel,
            "entrants": entrants,
            "creator": caller.player_key if caller.kind == PLAYER else None,
            "created_at": now,
            "starts_at": starts_at,
        }
        total = total_matches(spec)
        if total > config.tournament_max_matches:
            raise invalid(
                "rounds" if fmt == SWISS else "entrants",
                f"{total} matches, above this server's {config.tournament_max_matches} "
                "(TABLETOP_TOURNAMENT_MAX_MATCHES)",
            )
        self._reserve(app, tid, total)
        status = RUNNING if starts_at <= now else SCHEDULED
        fields = {
            "spec": spec,
            "status": status,
            "created_at": now,
            "starts_at": starts_at,
            "finished_at": "",
            "reason": "",
            "rounds": rounds,
            # A round robin's every round is known from the start; a Swiss pairs round 1 when it starts.
            "round": rounds if fmt == ROUND_ROBIN else 0,
            "total": total if fmt == ROUND_ROBIN else 0,
            "planned": total,
            "next": 1,
            "done": 0,
            "byes": {},
        }
        # The scheduler (the keeper's sweep) starts it at ``starts_at``: at once for one running now.
        self.store.create(app, tid, fields, starts_at)
        doc = {k: v if isinstance(v, str) else json.dumps(v) for k, v in fields.items() if k != "spec"}
        doc.update(created_at=repr(now), starts_at=repr(starts_at))
        return document(Stored(doc, spec, {}, {}, {}, []), with_matches=False)

    def _reserve(self, app: str, tid: str, total: int) -> None:
        """Count a new tournament of ``total`` matches against its app's caps, or refuse it (409 naming
        the cap, its setting and what is in use)."""
        config = self.config
        cap_live, cap_matches = config.tournament_max_running, config.tournament_max_scheduled_matches
        if cap_matches and total > cap_matches:
            raise self._over_cap("matches", 0, total)
        self.usage(app)  # a fresh count: the ones over since stop counting
        reserved = self.store.reserve(app, tid, total, cap_live, cap_matches)
        if not reserved.ok:
            raise self._over_cap(reserved.cap, reserved.in_use, total)

    def _over_cap(self, cap: str, in_use: int, total: int) -> Conflict:
        config = self.config
        if cap == "tournaments":
            limit = config.tournament_max_running
            return Conflict(
                "too_many_tournaments",
                f"the app has {in_use} tournaments scheduled or running, its most "
                f"(TABLETOP_TOURNAMENT_MAX_RUNNING = {limit}); cancel one or wait for one to end",
                {"limit": limit, "in_use": in_use, "setting": "TABLETOP_TOURNAMENT_MAX_RUNNING"},
            )
        limit = config.tournament_max_scheduled_matches
        return Conflict(
            "too_many_scheduled_matches",
            f"{total} more matches would pass the app's {limit} matches scheduled and not over "
            f"(TABLETOP_TOURNAMENT_MAX_SCHEDULED_MATCHES; {in_use} in use)",
            {
                "limit": limit,
                "in_use": in_use,
                "requested": total,
                "setting": "TABLETOP_TOURNAMENT_MAX_SCHEDULED_MATCHES",
            },
        )

    def usage(self, app: str) -> dict[str, int]:
        """What the app uses of its caps: ``tournaments`` (scheduled or running) and ``matches`` (their
        matches not over), counted afresh (the ones over or gone are dropped from the count; one
        counted but never written stops counting after :data:`ORPHAN_SECONDS`)."""
        live = self.store.live(app)
        if not live:
            return {"tournaments": 0, "matches": 0}
        now = self.now()
        ended, counts = [], {}
        for tid, found in self.store.counts(app, list(live)).items():
            if found is None:
                made = created_at_of(tid)
                if made is None or now - made > ORPHAN_SECONDS:
                    ended.append(tid)
                continue
            status, remaining = found
            if status in (SCHEDULED, RUNNING):
                counts[tid] = max(remaining, 0)
            else:
                ended.append(tid)
        self.store.ended(app, ended)
        self.store.recount(app, counts)
        left = {tid: counts.get(tid, n) for tid, n in live.items() if tid not in ended}
        return {"tournaments": len(left), "matches": sum(left.values())}

    def limits(self) -> dict[str, int]:
        """The per-app caps in effect (0: none)."""
        config = self.config
        return {
            "max_tournaments": config.tournament_max_running,
            "max_scheduled_matches": config.tournament_max_scheduled_matches,
            "max_matches_per_tournament": config.tournament_max_matches,
        }

    def _entrants(
        self, app: str, caller: Caller, given: list[dict[str, Any]], rated: bool
    ) -> list[dict[str, Any]]:
        if len(given) > MAX_ENTRANTS:
            raise invalid("entrants", f"at most {MAX_ENTRANTS}")
        out: list[dict[str, Any]] = []
        seen_players: set[str] = set()
        seen_levels: set[str] = set()
        names: set[str] = set()
        for i, e in enumerate(given):
            pid, level = e.get("player"), e.get("level")
            if (pid is None) == (level is None):
                raise invalid("entrants", f"entrant {i}: give a player or a level")
            if pid is not None and e.get("think_ms") is not None:
                raise invalid(f"entrants.{i}.think_ms", "only a level entrant has a thinking budget")
            if pid is not None:
                if caller.kind == PLAYER and pid != caller.player:
                    raise invalid("entrants", f"entrant {i}: a player token enters only its own player")
                if pid in seen_players:
                    raise invalid("entrants", f"entrant {i}: player {pid!r} is entered twice")
                try:
                    player = self.accounts.stored_player(app, pid)
                except NotFound:
                    raise invalid("entrants", f"entrant {i}: no player {pid!r} in this app") from None
                seen_players.add(pid)
                entry = {"entrant": i, "name": e.get("name") or player.name, "player": pid}
            else:
                if level not in LEVELS:
                    raise invalid("entrants", f"entrant {i}: level one of {list(LEVELS)}")
                # Checked as a bot seat's at match creation (the server's cap), and kept resolved, so
                # every match it plays is made with the budget the tournament was accepted with.
                _, think_ms = self.bot_budget(level, e.get("think_ms"), f"entrants.{i}.think_ms")
                rater = bot_rater(level, think_ms)  # who its matches rate: a level at one think_ms
                if rated and rater in seen_levels:
                    raise invalid("entrants", f"entrant {i}: {rater} entered twice in a rated tournament")
                seen_levels.add(rater)
                entry = {
                    "entrant": i,
                    "name": e.get("name") or f"{level.title()} bot",
                    "level": level,
                    "think_ms": think_ms,
                }
            if entry["name"] in names:
                raise invalid(
                    "entrants", f"entrant {i}: the name {entry['name']!r} is taken; names are distinct"
                )
            if len(entry["name"]) > MAX_NAME:
                raise invalid("entrants", f"entrant {i}: a name has at most {MAX_NAME} characters")
            names.add(entry["name"])
            out.append(entry)
        return out

    # -- reading ------------------------------------------------------------------------------------

    def _document(self, app: str, tid: str) -> dict[str, Any]:
        return document(load(self.store, app, tid))

    def get(self, tid: str, caller: Caller) -> dict[str, Any]:
        """A tournament of the caller's app (an app key, or any of its players' tokens)."""
        return self._document(caller_app(caller, READ), tid)

    def get_app(self, app: str, tid: str) -> dict[str, Any]:
        """A tournament of ``app``, for the operator (the admin API)."""
        return self._document(app, tid)

    def results(self, tid: str, caller: Caller) -> dict[str, Any]:
        """Every finished or aborted match's seats in one read, with the standings."""
        stored = load(self.store, caller_app(caller, READ), tid)
        return {
            "tournament": tid,
            "status": stored.doc["status"],
            "results": result_rows(stored),
            "standings": standings(stored),
        }

    # -- cancelling ---------------------------------------------------------------------------------

    def cancel(self, tid: str, caller: Caller) -> dict[str, Any]:
        """Call the tournament off: no new match, the ones under way aborted (by the sweep, at once),
        the standings as they stand; its summary (no ``matches``).  The app key or the player who
        created it; 409 ``tournament_over`` once finished or cancelled.  Constant work, whatever its
        size."""
        app = caller_app(caller, PLAY)
        stored = load(self.store, app, tid)
        if caller.kind != APP and stored.spec.get("creator") != caller.player_key:
            raise Forbidden("not_creator", "only the app key or the player who created it cancels it")
        return self._cancel(app, tid, BY_APP)

    def cancel_as_operator(self, app: str, tid: str) -> dict[str, Any]:
        """Cancel a tournament of ``app`` for the operator (the admin API): as :meth:`cancel`, its
        ``cancel_reason`` ``operator``.  404 ``tournament_not_found``, 409 ``tournament_over``."""
        if not tid.isalnum() or self.store.status(app, tid) is None:
            raise tournament_not_found(tid)
        return self._cancel(app, tid, BY_OPERATOR)

    def cancel_all(self, app: str, reason: str = APP_REVOKED) -> int:
        """Cancel every scheduled and running tournament of ``app`` (its app revoked): constant work per
        tournament, the matches under way aborted by the sweep within moments.  How many were
        cancelled now."""
        candidates = set(self.store.live(app))
        cursor: str | None = None
        while True:  # the listing too: one listed but never counted (a crash between) is caught
            page = self.store.app_tournaments(app, cursor, LIST_SCAN)
            candidates.update(page)
            if len(page) < LIST_SCAN:
                break
            cursor = page[-1]
        tids = sorted(candidates)
        cancelled = 0
        over = []
        for tid, status in zip(tids, self.store.statuses(app, tids), strict=True):
            if status is not None:  # none: gone, or being created (the next count drops it if old)
                over.append(tid)
            if status not in (SCHEDULED, RUNNING):
                continue
            ok, _ = self.store.cancel(app, tid, self.now(), self.config.retention_seconds, reason)
            if ok:
                cancelled += 1
                self.store.schedule(app, tid, 0.0)  # the sweep aborts its matches under way at once
        self.store.ended(app, over)
        return cancelled

    def _cancel(self, app: str, tid: str, reason: str) -> dict[str, Any]:
        ok, found = self.store.cancel(app, tid, self.now(), self.config.retention_seconds, reason)
        if not ok:
            raise Conflict("tournament_over", f"the tournament is {found} already", {"status": found})
        self.store.ended(app, [tid])
        self.store.schedule(app, tid, 0.0)  # the sweep aborts the matches under way at once
        return document(load(self.store, app, tid), with_matches=False)  # its summary: constant work too

    # -- listing (last: its name is the builtin's within the class) ---------------------------------

    def list_app(
        self, app: str, status: str | None, after: str | None, limit: int
    ) -> tuple[builtins.list[dict[str, Any]], str | None]:
        """The tournaments of ``app``, newest first, after the cursor ``after`` (an id), filtered by
        ``status``: their summaries (no ``matches``) and the next cursor (``None``: no more).  What the
        app's own listing and the operator's (the admin API) show."""
        if status is not None and status not in STATUSES:
            raise invalid("status", f"one of {builtins.list(STATUSES)}")
        found: builtins.list[dict[str, Any]] = []
        cursor, scanned = after, 0
        while scanned < LIST_SCAN:
            batch = max(limit, 20)
            ids = self.store.app_tournaments(app, cursor, batch)
            gone = []
            for tid in ids:
                cursor, scanned = tid, scanned + 1
                stored = self.store.load(app, tid)
                if stored is None:  # expired (it is listed only once written)
                    gone.append(tid)
                    continue
                if status is None or stored.doc["status"] == status:
                    found.append(document(stored, with_matches=False))
                    if len(found) == limit:
                        break
            self.store.unlist(app, gone)
            if len(found) == limit:
                more = bool(self.store.app_tournaments(app, cursor, 1))
                return found, cursor if more else None
            if len(ids) < batch:
                return found, None
        return found, cursor

    def list(
        self, caller: Caller, status: str | None, after: str | None, limit: int
    ) -> tuple[builtins.list[dict[str, Any]], str | None]:
        """The caller's app's tournaments (:meth:`list_app`)."""
        return self.list_app(caller_app(caller, READ), status, after, limit)
