"""Property tests of the ratings (issue 27 point 6: "property tests on the ratings (a rated win never
lowers the winner's rating against equal opponents; order of updates per match is fixed)"), and of
ties shared (point 1).  The model's computation is pure (:func:`service.domain.ratings.rate`); the
replay property runs through :meth:`Ratings.record` on a real Redis."""

from __future__ import annotations

import uuid

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain.ratings import MODEL, Ratings, ordinal, rate
from service.storage.ratings import RatingStore
from tests.service.conftest import make_config

MU = st.floats(min_value=0.0, max_value=50.0, allow_nan=False)
SIGMA = st.floats(min_value=0.05, max_value=MODEL.sigma, allow_nan=False)
PLAYERS = st.integers(min_value=2, max_value=6)


def raters(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


@st.composite
def finishing_orders(draw: st.DrawFn, n: int) -> list[int]:
    """Competition ranks for ``n`` seats (1 = first; tied seats share a place, the next skips)."""
    scores = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return [1 + sum(other > mine for other in scores) for mine in scores]


@given(n=PLAYERS, mu=MU, sigma=SIGMA, data=st.data())
def test_a_win_never_lowers_the_winners_rating_against_equal_opponents(
    n: int, mu: float, sigma: float, data: st.DataObject
) -> None:
    """The sole winner, among opponents rated exactly as they are (however the others finish), gains
    mu and never loses ordinal: sigma never grows in one match (``limit_sigma``)."""
    losers = data.draw(finishing_orders(n - 1))
    ranks = [1, *(r + 1 for r in losers)]
    players = raters(n)
    new = rate(dict.fromkeys(players, (mu, sigma)), players, ranks)
    won_mu, won_sigma = new["p0"]
    assert won_mu > mu
    assert won_sigma <= sigma
    assert ordinal(won_mu, won_sigma) >= ordinal(mu, sigma)


@given(n=PLAYERS, data=st.data())
def test_a_win_never_lowers_the_winners_ordinal_against_anyone(n: int, data: st.DataObject) -> None:
    """The same for opponents of any rating: beating everyone is never bad news."""
    players = raters(n)
    prior = {p: (data.draw(MU), data.draw(SIGMA)) for p in players}
    losers = data.draw(finishing_orders(n - 1))
    new = rate(prior, players, [1, *(r + 1 for r in losers)])
    assert new["p0"][0] > prior["p0"][0]
    assert ordinal(*new["p0"]) >= ordinal(*prior["p0"])


@given(n=PLAYERS, mu=MU, sigma=SIGMA, data=st.data())
def test_tied_players_rated_alike_stay_alike(n: int, mu: float, sigma: float, data: st.DataObject) -> None:
    """Ties share: seats of one place, rated alike before, are rated alike after (to the last few
    bits: the library sums the seats' terms in their order)."""
    ranks = data.draw(finishing_orders(n))
    players = raters(n)
    new = rate(dict.fromkeys(players, (mu, sigma)), players, ranks)
    for place in set(ranks):
        tied = [new[p] for p, r in zip(players, ranks, strict=True) if r == place]
        assert all(t == pytest.approx(tied[0], rel=1e-12, abs=1e-12) for t in tied)
    if len(set(ranks)) == 1:  # a draw of everyone, all rated alike: nobody's mu moves
        assert all(abs(new[p][0] - mu) < 1e-9 for p in players)


@given(n=PLAYERS, data=st.data())
def test_the_seat_order_of_a_match_changes_nothing(n: int, data: st.DataObject) -> None:
    """The order of updates per match is fixed: the model sees the seats by (place, rater), so the
    same players finishing the same way from other seats get bit-identical ratings."""
    players = raters(n)
    prior = {p: (data.draw(MU), data.draw(SIGMA)) for p in players}
    ranks = data.draw(finishing_orders(n))
    order = data.draw(st.permutations(range(n)))
    shuffled = rate(prior, [players[i] for i in order], [ranks[i] for i in order])
    assert shuffled == rate(prior, players, ranks)


NAMES = ["ann", "bob", "cy", "dee", "builtin:easy", "builtin:hard"]


@st.composite
def seasons(draw: st.DrawFn) -> list[tuple[list[str], list[int]]]:
    """A few matches among NAMES: each some distinct players and a finishing order."""
    out = []
    for _ in range(draw(st.integers(1, 12))):
        n = draw(st.integers(2, 4))
        players = draw(st.permutations(NAMES))[:n]
        out.append((list(players), draw(finishing_orders(n))))
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(season=seasons())
def test_rating_a_season_again_in_the_same_order_gives_the_same_ratings(
    redis_client: redis.Redis, redis_url: str, season: list[tuple[list[str], list[int]]]
) -> None:
    """Rating matches in the order they were committed, twice (two apps: two separate rating slots),
    stores bit-identical ratings; and each match rated again changes nothing."""
    ratings = Ratings(RatingStore(redis_client), make_config(redis_url))
    stored = []
    for _ in range(2):
        app = uuid.uuid4().hex[:12]
        for i, (players, ranks) in enumerate(season):
            entry = {
                "app": app,
                "game": "high_card",
                "at": float(i),
                "players": players,
                "ranks": ranks,
                "names": players,
                "pools": ["bots" if p.startswith("builtin:") else "people" for p in players],
            }
            assert ratings.record(f"m{i}", entry) is True
            assert ratings.record(f"m{i}", entry) is False
        stored.append(ratings.store.records(app, "high_card", NAMES))
    first, second = stored
    assert {p: r and (r["mu"], r["sigma"], r["matches"]) for p, r in first.items()} == {
        p: r and (r["mu"], r["sigma"], r["matches"]) for p, r in second.items()
    }
