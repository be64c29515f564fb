"""The bots (engine/ai/) over every registered game: legal, reproducible, and blind to hidden information."""

from __future__ import annotations

import random

import pytest

from engine.ai import LEVELS, choose_action
from engine.ai.ismcts import SearchConfig, action_key, margin_rewards, root_order, search
from engine.registry import GAMES

GAME_IDS = sorted(GAMES)


def midgame(game, players: int, seed: int, steps: int):
    """A state some random decisions into a game, with a human-like mix of decisions behind it."""
    state = game.setup(players, None, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.to_move(state) is None:
            break
        game.apply(state, rng.choice(game.legal_actions(state)))
    return state


def decision_states(game, count: int):
    """States where the mover has a real choice (more than one legal action)."""
    players = game.min_players if game.min_players >= 3 else 3
    out = []
    seed = 0
    while len(out) < count:
        state = midgame(game, players, seed, 15 + 7 * seed)
        seed += 1
        if game.to_move(state) is not None and len(game.legal_actions(state)) > 1:
            out.append(state)
    return out


def test_margin_rewards_grow_with_the_lead_over_the_best_other_seat():
    level = margin_rewards([10.0, 10.0, 0.0], 5.0)
    assert level[0] == level[1] == 0.5 and level[2] < 0.2
    narrow, wide = margin_rewards([11.0, 10.0, 0.0], 5.0)[0], margin_rewards([30.0, 10.0, 0.0], 5.0)[0]
    assert 0.5 < narrow < wide < 1.0  # unlike ranks, a wider lead is worth more
    assert margin_rewards([3.0], 5.0) == [1.0]
    assert margin_rewards([1e9, 0.0], 1.0) == pytest.approx([1.0, 0.0])  # no overflow far from level


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_legal_action(game_id, level):
    game = GAMES[game_id]
    for state in decision_states(game, 2):
        action = choose_action(game, state, level, random.Random(1), iterations=30)
        assert action in game.legal_actions(state)


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("level", ["easy", "normal"])
def test_choice_is_unchanged_when_hidden_information_changes(game_id, level):
    """A bot sees only its information set: resampling every other seat's hidden information (hands,
    deck order, the state's RNG) must not change its choice for the same bot seed."""
    game = GAMES[game_id]
    for state in decision_states(game, 3):
        seat = game.to_move(state)
        other_truth = game.determinize(state, seat, random.Random(99))
        assert game.view(other_truth, seat) == game.view(state, seat)
        a = choose_action(game, state, level, random.Random(5), iterations=40)
        b = choose_action(game, other_truth, level, random.Random(5), iterations=40)
        assert a == b


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_search_is_reproducible_with_an_iteration_budget(game_id):
    game = GAMES[game_id]
    (state,) = decision_states(game, 1)
    first, stats = search(game, state, random.Random(3), SearchConfig(iterations=60))
    again, _ = search(game, state, random.Random(3), SearchConfig(iterations=60))
    assert first == again
    assert stats["iterations"] == 60


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_search_respects_a_time_budget(game_id):
    import time

    game = GAMES[game_id]
    (state,) = decision_states(game, 1)
    t0 = time.perf_counter()
    _, stats = search(game, state, random.Random(3), SearchConfig(time_ms=150))
    elapsed = time.perf_counter() - t0
    assert stats["iterations"] >= 1
    # One iteration past the deadline at most; generous bound because CI machines are noisy.
    assert elapsed < 2.0


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_games_search_options_are_search_settings(game_id):
    config = SearchConfig(iterations=1, **GAMES[game_id].search_options)
    assert config.iterations == 1


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_root_widening_searches_only_the_actions_the_heuristic_ranks_first(game_id):
    """After 16 iterations at widening 0.5, only the 2 best-ranked root actions were ever let in."""
    game = GAMES[game_id]
    for state in decision_states(game, 4):
        legal = game.legal_actions(state)
        rank = root_order(game, state, game.to_move(state), legal, random.Random(3))
        assert sorted(rank.values()) == list(range(len(legal)))
        action, stats = search(game, state, random.Random(3), SearchConfig(iterations=16, root_widening=0.5))
        assert stats["iterations"] == 16
        assert rank[action_key(action)] < 2


def test_unknown_level_is_refused():
    game = GAMES[GAME_IDS[0]]
    (state,) = decision_states(game, 1)
    with pytest.raises(ValueError, match="unknown bot level"):
        choose_action(game, state, "grandmaster", random.Random(0))


def test_levels_have_one_home_and_the_service_uses_it():
    """The API validates seats and hints against engine.ai's levels and defaults to their think times."""
    from engine.ai import DEFAULT_THINK_MS, SEARCH_LEVELS
    from service.http.schemas.hints import HintRequestSchema
    from service.http.schemas.matches import SeatRequestSchema

    assert set(DEFAULT_THINK_MS) == set(LEVELS) and set(SEARCH_LEVELS) <= set(LEVELS)
    assert DEFAULT_THINK_MS["normal"] == 500 and DEFAULT_THINK_MS["hard"] == 2000
    for schema in (SeatRequestSchema(), HintRequestSchema()):
        assert tuple(schema.fields["level"].validate.choices) == LEVELS


@pytest.mark.parametrize("level", LEVELS)
def test_decide_reports_search_statistics_for_the_search_levels_only(level):
    from engine.ai import SEARCH_LEVELS, decide

    game = GAMES[GAME_IDS[0]]
    (state,) = decision_states(game, 1)
    action, stats = decide(game, state, level, random.Random(2), iterations=25)
    assert action in game.legal_actions(state)
    assert (stats.get("iterations") == 25) == (level in SEARCH_LEVELS)


def test_strength_bench_intervals_and_seeded_games():
    """bench/strength.py: Wilson intervals stay in [0, 1] and contain the rate; a tournament game is
    reproducible from its number and seats each lineup entry where its permutation says."""
    from bench.strength import play_one, wilson

    assert wilson(0, 30)[0] == 0.0 and wilson(30, 30)[1] == 1.0
    lo, hi = wilson(15, 30)
    assert lo < 0.5 < hi and round(lo, 3) == 0.332
    game_id = "year_of_dragon" if "year_of_dragon" in GAMES else GAME_IDS[0]
    budgets = {"normal": 5, "hard": 10}
    first = play_one(game_id, ("hard", "easy", "random"), 4, budgets, seed=1)
    again = play_one(game_id, ("hard", "easy", "random"), 4, budgets, seed=1)
    assert (first.places, first.scores) == (again.places, again.scores)
    assert sorted(first.places) == [0, 1, 2] and first.search_iterations == again.search_iterations > 0
