"""Property tests of the tournaments' pure rules (issue 31; :mod:`service.domain.tournaments.pairing`):
round robin seats and meetings, Swiss pairing that never repeats a pair when a repeat-free grouping
exists (checked against a brute force over every grouping of small fields), byes, points by place,
and standings that agree with recomputing them from the results."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from math import comb

from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.tournaments.pairing import (
    Played,
    combination_at,
    group_cost,
    met_pairs,
    points_of,
    round_robin,
    round_robin_match,
    round_robin_total,
    seated,
    sitting_out,
    standings,
    swiss_groups,
    swiss_round,
)


@st.composite
def places_of(draw: st.DrawFn, n: int) -> list[int]:
    """Competition places for ``n`` seats (ties shared, the next place skips), as ratings.places gives."""
    scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return [1 + sum(other > mine for other in scores) for mine in scores]


@st.composite
def field(draw: st.DrawFn) -> tuple[int, int]:
    """(entrants, players per match) small enough to enumerate."""
    players = draw(st.integers(2, 4))
    entrants = draw(st.integers(players, players + 5))
    return entrants, players


# -- round robin --------------------------------------------------------------------------------------


@given(field(), st.integers(1, 3))
def test_round_robin_every_group_meets_matches_per_pairing_times(shape: tuple[int, int], k: int) -> None:
    entrants, players = shape
    per = k * players if k % 2 else k  # both multiples of players and not
    schedule = round_robin(entrants, players, per)
    assert len(schedule) == round_robin_total(entrants, players, per) == comb(entrants, players) * per
    meetings = Counter(tuple(sorted(seats)) for _, seats in schedule)
    assert set(meetings) == set(combinations(range(entrants), players))
    assert set(meetings.values()) == {per}
    rounds = [r for r, _ in schedule]
    assert rounds == sorted(rounds) and set(rounds) == set(range(1, per + 1))  # oldest round first
    for r in range(1, per + 1):  # a round is one meeting of every group
        assert sorted(tuple(sorted(s)) for rr, s in schedule if rr == r) == sorted(meetings)


@given(field(), st.integers(1, 2))
def test_round_robin_seats_are_used_equally_when_meetings_are_a_multiple_of_players(
    shape: tuple[int, int], k: int
) -> None:
    entrants, players = shape
    schedule = round_robin(entrants, players, k * players)
    seats: Counter[tuple[int, int]] = Counter()
    for _, order in schedule:
        for seat, entrant in enumerate(order):
            seats[(entrant, seat)] += 1
    each = comb(entrants - 1, players - 1) * k  # every entrant's groups, k times per seat
    assert {seats[(e, s)] for e in range(entrants) for s in range(players)} == {each}


@given(field(), st.integers(1, 4))
def test_a_round_robin_match_is_derived_from_its_number_alone(shape: tuple[int, int], per: int) -> None:
    """Issue 42: the schedule is not stored; match n (from 1) is the n-th of :func:`round_robin`."""
    entrants, players = shape
    schedule = round_robin(entrants, players, per)
    assert [round_robin_match(entrants, players, n) for n in range(1, len(schedule) + 1)] == schedule


@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_combination_at_unranks_in_the_order_of_combinations(shape: tuple[int, int]) -> None:
    n, k = shape
    assert [combination_at(n, k, i) for i in range(comb(n, k))] == list(combinations(range(n), k))


def test_a_large_round_robins_last_match_needs_no_listing() -> None:
    # 1,000 entrants two a match: the 499,500th group is the last pair, reached in O(entrants) steps
    assert round_robin_match(1000, 2, comb(1000, 2)) == (1, (998, 999))
    assert round_robin_match(1000, 2, comb(1000, 2) + 1) == (2, (1, 0))  # round 2: seats rotated


@given(st.lists(st.integers(0, 20), min_size=2, max_size=5, unique=True), st.integers(0, 10))
def test_seated_is_a_rotation_of_the_entry_order(group: list[int], turn: int) -> None:
    ordered = sorted(group)
    out = seated(group, turn)
    t = turn % len(group)
    assert list(out) == ordered[t:] + ordered[:t]


# -- points and standings --------------------------------------------------------------------------------


@given(st.integers(2, 6).flatmap(places_of))
def test_points_per_match_sum_to_the_pairs_of_seats(places: list[int]) -> None:
    points = points_of(places)
    assert sum(points) == comb(len(places), 2)
    for i, mine in enumerate(places):  # a better place never earns less
        for j, theirs in enumerate(places):
            if mine < theirs:
                assert points[i] > points[j]
            elif mine == theirs:
                assert points[i] == points[j]


@st.composite
def results(draw: st.DrawFn) -> tuple[int, int, list[Played], list[int]]:
    entrants, players = draw(field())
    matches = []
    for _ in range(draw(st.integers(0, 12))):
        group = draw(st.permutations(range(entrants)))[:players]
        aborted = draw(st.booleans()) and draw(st.booleans())
        places = None if aborted else tuple(draw(places_of(players)))
        matches.append(Played(tuple(group), places))
    byes = draw(st.lists(st.integers(0, entrants - 1), max_size=3))
    return entrants, players, matches, byes


@given(results())
def test_standings_agree_with_recomputing_them_from_the_results(
    case: tuple[int, int, list[Played], list[int]],
) -> None:
    entrants, players, matches, byes = case
    lines = standings(entrants, players, matches, byes)
    assert sorted(s.entrant for s in lines) == list(range(entrants))
    points = Counter[int]()
    played = Counter[int]()
    wins = Counter[int]()
    for m in matches:
        if m.places is None:  # aborted: nobody gets anything, nobody played
            continue
        for seat, e in enumerate(m.entrants):
            below = sum(p > m.places[seat] for p in m.places)
            tied = sum(p == m.places[seat] for p in m.places) - 1
            points[e] += below + tied / 2
            played[e] += 1
            wins[e] += m.places[seat] == 1
    for e in byes:
        points[e] += players - 1
    by_entrant = {s.entrant: s for s in lines}
    for e in range(entrants):
        s = by_entrant[e]
        assert (s.points, s.played, s.wins) == (points[e], played[e], wins[e])
        assert sum(s.seats) == played[e]
        expected_buchholz = sum(
            points[o]
            for m in matches
            if m.places is not None and e in m.entrants
            for o in m.entrants
            if o != e
        )
        assert s.buchholz == expected_buchholz
    keys = [(-s.points, -s.wins, -s.buchholz, s.entrant) for s in lines]
    assert keys == sorted(keys)
    total = sum(comb(players, 2) for m in matches if m.places is not None) + (players - 1) * len(byes)
    assert sum(s.points for s in lines) == total


# -- Swiss ------------------------------------------------------------------------------------------------


def groupings(rest: tuple[int, ...], players: int) -> Iterator[list[tuple[int, ...]]]:
    """Every grouping of ``rest`` into groups of ``players`` (brute force, small fields only)."""
    if not rest:
        yield []
        return
    head, others = rest[0], rest[1:]
    for partners in combinations(others, players - 1):
        left = tuple(e for e in others if e not in partners)
        for tail in groupings(left, players):
            yield [(head, *partners), *tail]


@st.composite
def swiss_case(draw: st.DrawFn) -> tuple[list[int], int, Counter[tuple[int, int]]]:
    players = draw(st.integers(2, 3))
    groups = draw(st.integers(1, 4 if players == 2 else 3))
    order = draw(st.permutations(range(groups * players)))
    met: Counter[tuple[int, int]] = Counter()
    for a, b in draw(st.lists(st.tuples(st.sampled_from(order), st.sampled_from(order)), max_size=12)):
        if a != b:
            met[(min(a, b), max(a, b))] += 1
    return list(order), players, met


@settings(max_examples=200)
@given(swiss_case())
def test_swiss_never_repeats_a_pair_when_a_repeat_free_grouping_exists(
    case: tuple[list[int], int, Counter[tuple[int, int]]],
) -> None:
    order, players, met = case
    groups = swiss_groups(order, players, met)
    assert sorted(e for g in groups for e in g) == sorted(order)  # everyone, once
    assert all(len(g) == players for g in groups)
    cost = sum(group_cost(g, met) for g in groups)
    every = [sum(group_cost(g, met) for g in gs) for gs in groupings(tuple(order), players)]
    assert cost == min(every)  # repeat-free if any grouping is; else the fewest repeats
    if cost == 0:  # top down: the first repeat-free grouping in standing order
        first = next(gs for gs in groupings(tuple(order), players) if not sum(group_cost(g, met) for g in gs))
        assert groups == first


@given(
    st.integers(3, 9).flatmap(lambda n: st.tuples(st.just(n), st.permutations(range(n)))),
    st.integers(2, 4),
    st.data(),
)
def test_byes_go_to_the_lowest_standing_among_the_fewest_byes(
    shape: tuple[int, list[int]], players: int, data: st.DataObject
) -> None:
    n, order = shape
    byes = Counter({e: data.draw(st.integers(0, 2)) for e in range(n)})
    out = sitting_out(order, players, byes)
    assert len(out) == n % players
    if out:
        staying = [e for e in order if e not in out]
        # nobody who plays has fewer byes than one who sits out, and among equals the lower sit out
        for e in staying:
            for o in out:
                assert byes[e] > byes[o] or (byes[e] == byes[o] and order.index(e) < order.index(o))
    groups, sat = swiss_round(order, players, Counter(), byes)
    assert sat == out and sorted(x for g in groups for x in g) == sorted(e for e in order if e not in out)


def test_a_round_of_many_entrants_is_paired_within_the_search_budget() -> None:
    """64 entrants in 4-player matches after rounds that met everyone near them: still a grouping of
    everyone, quickly (the search is bounded), with fewer repeats than the plain top-down grouping."""
    order = list(range(64))
    met = met_pairs(Played(tuple(order[i : i + 4]), None) for i in range(0, 64, 4))
    met += met_pairs(Played(tuple(order[i : i + 4]), None) for i in range(2, 62, 4))
    groups = swiss_groups(order, 4, met)
    assert sorted(e for g in groups for e in g) == order
    plain = [tuple(order[i : i + 4]) for i in range(0, 64, 4)]
    assert sum(group_cost(g, met) for g in groups) < sum(group_cost(g, met) for g in plain)
