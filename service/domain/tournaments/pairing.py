"""The pure rules of a tournament (issue 31): who meets whom in which seat, what a finishing place is
worth, how the standings are ordered.  No I/O: :mod:`service.domain.tournaments.tournaments` stores and
schedules, this module decides, so the property tests (tests/service/test_tournament_pairing.py) hold every
rule without Redis, and two processes scheduling the same tournament compute the same matches.

**Points by finishing place.**  In a match an entrant gets 1 point per opponent who finished below it
and 1/2 per opponent tied with it (2 players: win 1, draw 1/2, loss 0; 3 players: 2/1/0), so the points
of one match always sum to C(players, 2).  An aborted match gives nobody anything and counts as not
played.

**Tie-breaks**, in order: points; wins (first places, shared firsts count); Buchholz (the sum over every
match played of each opponent's final points); entrant order.  Entrant order breaks every tie, so the
rank is the position.

**Round robin.**  Every group (combination) of ``players`` distinct entrants meets
``matches_per_pairing`` times; the r-th meeting (r = 0..) of a group seats it in rotation ``r mod
players`` of its entry order, so with ``matches_per_pairing`` a multiple of ``players`` every entrant
sits in every seat position equally often.  Round r + 1 is the r-th meeting of every group.  Match
number n (from 1) is the ``(n - 1) mod C(entrants, players)``-th group of round ``(n - 1) div
C(entrants, players) + 1``: :func:`round_robin_match` derives it from the number alone.

**Swiss.**  Before each round, entrants sorted by the standings so far are grouped ``players`` at a
time, top down, avoiding pairs that met before where possible: a depth-first search over groupings,
nearest in the standings first, bounded by :data:`SEARCH_NODES`, keeps the grouping with the fewest
repeated pairs (the first repeat-free one found ends it).  When the count does not divide, the
lowest-standing entrants among those with the fewest byes sit out; a bye is worth ``players - 1``
points (as if it beat everyone of a match), counts as played 0 times and is no win.  Each group plays
``matches_per_pairing`` matches in the round; the m-th is seated in rotation ``(m + round - 1) mod
players`` of the group's entry order, so an entrant does not always start just for being entered early.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb

#: Groupings one Swiss pairing looks at, at most, before it settles for the best found so far.
SEARCH_NODES = 20_000


@dataclass(frozen=True)
class Played:
    """One tournament match as the standings read it: the entrant of each seat, and each seat's place
    (``None``: not finished, or aborted: it counts for nothing)."""

    entrants: tuple[int, ...]
    places: tuple[int, ...] | None


@dataclass
class Standing:
    """An entrant's line of the standings (before ranking)."""

    entrant: int
    points: float = 0.0
    played: int = 0
    wins: int = 0
    buchholz: float = 0.0
    seats: list[int] = field(default_factory=list)


def points_of(places: Sequence[int]) -> list[float]:
    """Each seat's points for its finishing place: 1 per opponent below, 1/2 per opponent tied."""
    out = []
    for mine in places:
        below = sum(1 for other in places if other > mine)
        tied = sum(1 for other in places if other == mine) - 1
        out.append(below + tied / 2)
    return out


def round_robin(entrants: int, players: int, per_pairing: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every match of a round robin, in schedule order: ``(round, entrant per seat)``, round 1 first."""
    groups = list(combinations(range(entrants), players))
    out = []
    for r in range(per_pairing):
        turn = r % players
        out += [(r + 1, g[turn:] + g[:turn]) for g in groups]
    return out


def round_robin_total(entrants: int, players: int, per_pairing: int) -> int:
    return comb(entrants, players) * per_pairing


def combination_at(n: int, k: int, index: int) -> tuple[int, ...]:
    """The ``index``-th (from 0) ``k``-combination of ``range(n)`` in :func:`itertools.combinations`'
    order (lexicographic), without listing those before it: O(n) steps."""
    out: list[int] = []
    x = 0
    for i in range(k):
        while True:
            with_x = comb(n - x - 1, k - i - 1)  # the combinations that take x next
            if index < with_x:
                break
            index -= with_x
            x += 1
        out.append(x)
        x += 1
    return tuple(out)


def round_robin_match(entrants: int, players: int, number: int) -> tuple[int, tuple[int, ...]]:
    """Match ``number`` (from 1) of a round robin, ``(round, entrant per seat)``: the item of
    :func:`round_robin` at ``number - 1``, derived from the number alone (issue 42: a tournament's
    schedule is not stored, so creating one writes nothing per match)."""
    groups = comb(entrants, players)
    r, index = divmod(number - 1, groups)
    group = combination_at(entrants, players, index)
    turn = r % players
    return r + 1, group[turn:] + group[:turn]


def seated(group: Sequence[int], turn: int) -> tuple[int, ...]:
    """The group (in entry order) seated in rotation ``turn``."""
    ordered = tuple(sorted(group))
    turn %= len(ordered)
    return ordered[turn:] + ordered[:turn]


def standings(
    entrants: int, players: int, matches: Iterable[Played], byes: Iterable[int] = ()
) -> list[Standing]:
    """The standings, ranked (rank = position + 1): points, wins, Buchholz, entrant order.  ``byes``
    lists the entrant of each bye (once per bye)."""
    lines = [Standing(e, seats=[0] * players) for e in range(entrants)]
    done = [m for m in matches if m.places is not None]
    for m in done:
        assert m.places is not None
        for seat, (entrant, pts) in enumerate(zip(m.entrants, points_of(m.places), strict=True)):
            line = lines[entrant]
            line.points += pts
            line.played += 1
            line.wins += m.places[seat] == 1
            line.seats[seat] += 1
    for entrant in byes:
        lines[entrant].points += players - 1
    for m in done:
        for entrant in m.entrants:
            lines[entrant].buchholz += sum(lines[o].points for o in m.entrants if o != entrant)
    return sorted(lines, key=lambda s: (-s.points, -s.wins, -s.buchholz, s.entrant))


def met_pairs(matches: Iterable[Played]) -> Counter[tuple[int, int]]:
    """How often each pair of entrants (lower first) has been grouped (aborted meetings count: they
    were paired, and a re-pairing would only repeat the same choice)."""
    met: Counter[tuple[int, int]] = Counter()
    for m in matches:
        for a, b in combinations(sorted(set(m.entrants)), 2):
            met[(a, b)] += 1
    return met


def sitting_out(order: Sequence[int], players: int, byes: Counter[int]) -> list[int]:
    """Who sits this round out when ``len(order)`` does not divide by ``players``: of the entrants with
    the fewest byes, the lowest in ``order`` (the standings); then the next fewest, and so on."""
    count = len(order) % players
    if count == 0:
        return []
    position = {e: i for i, e in enumerate(order)}
    ranked = sorted(order, key=lambda e: (byes[e], -position[e]))
    return sorted(ranked[:count], key=lambda e: position[e])


def group_cost(group: Sequence[int], met: Counter[tuple[int, int]]) -> int:
    return sum(met[(a, b)] for a, b in combinations(sorted(group), 2))


def swiss_groups(
    order: Sequence[int], players: int, met: Counter[tuple[int, int]], limit: int = SEARCH_NODES
) -> list[tuple[int, ...]]:
    """Group ``order`` (its length a multiple of ``players``, best standing first) ``players`` at a
    time, top down: the first grouping with no repeated pair in depth-first order (the top entrant
    with the nearest below it that it has not met), else the one with the fewest repeated pairs found
    within ``limit`` groups tried.  Deterministic: every process pairs a round alike."""
    assert len(order) % players == 0
    best: list[tuple[int, ...]] | None = None
    best_cost = -1
    tried = 0

    def search(rest: tuple[int, ...], chosen: list[tuple[int, ...]], cost: int) -> bool:
        """Whether to stop (a repeat-free grouping found, or the budget spent)."""
        nonlocal best, best_cost, tried
        if best is not None and cost >= best_cost:
            return False
        if not rest:
            best, best_cost = list(chosen), cost
            return cost == 0
        head, others = rest[0], rest[1:]
        for partners in combinations(others, players - 1):
            if tried >= limit and best is not None:
                return True
            tried += 1
            group = (head, *partners)
            left = tuple(e for e in others if e not in partners)
            chosen.append(group)
            stop = search(left, chosen, cost + group_cost(group, met))
            chosen.pop()
            if stop:
                return True
        return False

    search(tuple(order), [], 0)
    assert best is not None
    return best


def swiss_round(
    order: Sequence[int], players: int, met: Counter[tuple[int, int]], byes: Counter[int]
) -> tuple[list[tuple[int, ...]], list[int]]:
    """A Swiss round's groups (each in standing order) and who sits out, from ``order`` (the
    standings, best first; round 1: entry order)."""
    out = sitting_out(order, players, byes)
    playing = [e for e in order if e not in out]
    return swiss_groups(playing, players, met), out
