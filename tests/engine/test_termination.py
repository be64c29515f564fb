"""Every game ends, within its declared bound, whatever the seats do.

``game.max_decisions(players)`` is a proven bound (each game's ``flow.max_decisions`` derives it from the
rules); OpenSpiel's ``max_game_length`` and the PettingZoo truncation use it.  These tests play it against
stubborn fixed policies (always the first, last, middle or second legal action; in Confucius also always
Transfer Influence when it is legal, R62a), at every player count and every option set, and against
hypothesis-chosen sequences of picks.  A policy that loops (two seats handing one marker back and forth)
would exceed the bound; random play, which the contract suites run, almost never finds such loops.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Action, Game
from engine.registry import GAMES

Policy = Callable[[list[Action]], Action]

#: Deals per configuration and policy: the policies are fixed, the deal is what varies.
SEEDS = (0, 1, 2)


def _first(legal: list[Action]) -> Action:
    return legal[0]


def _last(legal: list[Action]) -> Action:
    return legal[-1]


def _middle(legal: list[Action]) -> Action:
    return legal[len(legal) // 2]


def _second(legal: list[Action]) -> Action:
    return legal[1] if len(legal) > 1 else legal[0]


FIXED: dict[str, Policy] = {"first": _first, "last": _last, "middle": _middle, "second": _second}


def _transfer_then(fallback: Policy) -> Policy:
    """Confucius: Transfer Influence whenever it is legal (R62, R62a), else ``fallback``."""

    def policy(legal: list[Action]) -> Action:
        return next((a for a in legal if a["type"] == "transfer_influence"), None) or fallback(legal)

    return policy


def policies(game_id: str) -> dict[str, Policy]:
    out = dict(FIXED)
    if game_id == "confucius":
        out.update({f"transfer+{name}": _transfer_then(p) for name, p in FIXED.items()})
    return out


def option_sets(game: Game, players: int) -> list[dict[str, Any]]:
    """Every combination of the game's options: each boolean both ways, each enum at every value, each
    free integer (a seat number, -1 for random) at -1, the first and the last seat."""
    choices = []
    for name, spec in game.options.get("properties", {}).items():
        if "enum" in spec:
            values = list(spec["enum"])
        elif spec.get("type") == "boolean":
            values = [False, True]
        elif spec.get("type") == "integer":
            values = [-1, 0, players - 1]
        else:  # pragma: no cover - the option schemas hold only the kinds above
            raise AssertionError(f"{game.id}: option {name} of an unforeseen kind {spec}")
        choices.append([(name, v) for v in values])
    return [dict(combo) for combo in itertools.product(*choices)]


def configurations() -> list[tuple[str, int, dict[str, Any]]]:
    return [
        (gid, n, opts)
        for gid, game in sorted(GAMES.items())
        for n in range(game.min_players, game.max_players + 1)
        for opts in option_sets(game, n)
    ]


def decisions_to_end(game: Game, players: int, options: dict[str, Any], seed: int, policy: Policy) -> int:
    """Play ``policy`` for every seat; the number of decisions, or fail once past the bound."""
    bound = game.max_decisions(players)
    state = game.setup(players, options, seed=seed)
    for made in range(bound + 1):
        if game.to_move(state) is None:
            return made
        if made == bound:
            break
        game.apply(state, policy(game.legal_actions(state)))
    raise AssertionError(f"{game.id} ({players}p, {options}, seed {seed}) passed its bound of {bound}")


@pytest.mark.parametrize(("game_id", "players", "options"), configurations())
def test_fixed_policies_end_within_the_bound(game_id, players, options):
    game = GAMES[game_id]
    bound = game.max_decisions(players)
    for name, policy in policies(game_id).items():
        for seed in SEEDS:
            made = decisions_to_end(game, players, options, seed, policy)
            assert 0 < made <= bound, (name, seed, made, bound)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_hypothesis_chosen_play_ends_within_the_bound(game_id):
    """Any sequence of choices (hypothesis draws the picks, cycled through the game) ends in bound."""
    game = GAMES[game_id]

    @settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def run(data: st.DataObject) -> None:
        players = data.draw(st.integers(game.min_players, game.max_players), label="players")
        options = data.draw(st.sampled_from(option_sets(game, players)), label="options")
        seed = data.draw(st.integers(0, 2**32), label="seed")
        picks = data.draw(st.lists(st.integers(0, 2**16), min_size=1, max_size=40), label="picks")
        step = itertools.count()

        def pick(legal: list[Action]) -> Action:
            return legal[picks[next(step) % len(picks)] % len(legal)]

        transfer = game_id == "confucius" and data.draw(st.booleans(), label="always transfer")
        policy = _transfer_then(pick) if transfer else pick
        assert decisions_to_end(game, players, options, seed, policy) <= game.max_decisions(players)

    run()


def test_confucius_transfers_alone_cannot_keep_a_round_going():
    """R62a, R32: under "always Transfer Influence" a round holds at most one transfer per official, and
    the round ends; before R62a two seats handed one marker back and forth for ever (issue 42)."""
    game = GAMES["confucius"]
    state = game.setup(3, None, seed=0)
    transfers = 0
    policy = _transfer_then(_second)
    while game.view(state, None)["round"] == 1:
        action = policy(game.legal_actions(state))
        transfers += action["type"] == "transfer_influence"
        game.apply(state, action)
    assert 0 < transfers <= 21


def test_the_bound_is_declared_for_every_game_and_player_count():
    """The research adapters read it; a game outside its player range has none."""
    for game in GAMES.values():
        for n in range(game.min_players, game.max_players + 1):
            assert isinstance(game.max_decisions(n), int) and game.max_decisions(n) > 0
        with pytest.raises(ValueError, match="players"):
            game.max_decisions(game.max_players + 1)
