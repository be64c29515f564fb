"""The two baseline bots: uniformly random, and greedy one-ply search on the game's heuristic.

Both only ever look at a ``determinize``d copy of the state, so they never read another seat's hand or
the deck order, exactly like the search bot.
"""

from __future__ import annotations

import random

from engine.core import Action, Game


def random_action(game: Game, state: object, rng: random.Random) -> Action:
    """A uniformly random legal action for the pending decision."""
    return rng.choice(game.legal_actions(state))


def greedy_action(game: Game, state: object, rng: random.Random) -> Action:
    """The legal action whose immediate successor scores best on ``game.heuristic`` (ties at random).

    The successor is computed on a determinized copy, so an action that draws a card sees a sampled
    card, not the true top of the deck.
    """
    seat = game.to_move(state)
    assert seat is not None, "greedy_action called on a finished game"
    sample = game.determinize(state, seat, rng)
    best: list[Action] = []
    best_value = float("-inf")
    for action in game.legal_actions(sample):
        child = game.clone(sample)
        game.apply(child, action)
        value = game.heuristic(child, seat)
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    return rng.choice(best)
