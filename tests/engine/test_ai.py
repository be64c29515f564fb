"""The bots (engine/ai/) over every registered game: legal, reproducible, and blind to hidden information."""

from __future__ import annotations

import random

import pytest

from engine.ai import LEVELS, choose_action
from engine.ai.ismcts import SearchConfig, rank_rewards, search
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


def test_rank_rewards():
    assert rank_rewards([3.0, 1.0, 2.0]) == [1.0, 0.0, 0.5]
    assert rank_rewards([5.0, 5.0, 1.0]) == [0.75, 0.75, 0.0]
    assert rank_rewards([2.0]) == [1.0]


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


def test_unknown_level_is_refused():
    game = GAMES[GAME_IDS[0]]
    (state,) = decision_states(game, 1)
    with pytest.raises(ValueError, match="unknown bot level"):
        choose_action(game, state, "grandmaster", random.Random(0))
