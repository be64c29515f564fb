"""Takebacks (engine/takeback.py and each game's ``takeback.py``; issue 47 point 1): a seat takes back its
own latest decisions when none of them drew anything random or revealed anything hidden.

Along hypothesis-drawn random playouts of all four games:

- every step is judged, and its reason is one its action type declares (``BY_ACTION`` of the game);
- whenever the mover's last ``k`` decisions can be taken back, ``take_back`` gives exactly the state of
  replaying the log without them (``encode`` bytes), re-making the same decisions gives back exactly
  the state before the takeback, and :func:`engine.takeback.undoable` says how many can go;
- one decision more is refused, naming the reason of that decision (another seat's, or what it drew
  or revealed) and its rule; a finished game refuses every takeback;
- a step judged harmless tells no seat anything: in worlds resampled for a seat
  (``determinize``: whatever that seat cannot see, redrawn), some legal action with the same public
  face gives that seat the same events and the same view.  A step that showed a hidden card or hinged
  on a hidden hand fails that in some world, so a misclassified step is caught here.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.engine.china.test_contract as china_contract
import tests.engine.confucius.test_contract as confucius_contract
import tests.engine.taj_mahal.test_contract as taj_mahal_contract
import tests.engine.year_of_dragon.test_contract as year_of_dragon_contract
from engine.core import Game, event_visible
from engine.games.china.game import China
from engine.registry import GAMES, get_game
from engine.takeback import (
    NOTHING,
    OTHER_PLAYER,
    OVER,
    RANDOM,
    REASONS,
    REVEAL,
    Blocker,
    TakebackRefused,
    classify,
    live_decisions,
    replay,
    step_block,
    step_blocker,
    steps,
    surely_held,
    take_back,
    undoable,
)


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


#: Each game's variants, as its contract suite enumerates them.
VARIANTS: dict[str, list[tuple[int, dict[str, Any]]]] = {
    suite.game_id: list(itertools.product(suite.player_counts, suite.option_sets))
    for suite in (
        taj_mahal_contract.TestContract,
        china_contract.TestContract,
        year_of_dragon_contract.TestContract,
        confucius_contract.TestContract,
    )
}
#: Hypothesis playouts per game (each a whole game, every step judged), shared out among its option sets
#: so that each is played (Year of the Dragon's hidden played cards, Confucius's petitions).
EXAMPLES = 3
#: (game, option set) pairs of the random-play property, with the playouts each gets.
CASES = [
    pytest.param(game_id, options, max(1, EXAMPLES // len(sets)), id=f"{game_id}-{i}")
    for game_id, variants in sorted(VARIANTS.items())
    for sets in [list({canon(o): o for _, o in variants}.values())]
    for i, options in enumerate(sets)
]


def by_action(game: Game) -> dict[str, tuple[frozenset[str], str]]:
    """The game's declared classification table (``engine/games/<game>/takeback.py``)."""
    module = __import__(f"engine.games.{game.id}.takeback", fromlist=["BY_ACTION"])
    table: dict[str, tuple[frozenset[str], str]] = module.BY_ACTION
    return table


# -- the classification tables ----------------------------------------------------------------------


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_action_type_is_classified(game_id: str) -> None:
    """Each game says, for every action type it has, what its step may be refused for and why."""
    game = get_game(game_id)
    table = by_action(game)
    assert set(table) == set(game.actions), f"{game_id}: classify exactly its action types"
    for kind, (reasons, why) in table.items():
        assert reasons <= {RANDOM, REVEAL}, kind
        assert why.strip(), kind
        if reasons:
            assert any(f"R{d}" in why for d in range(10)), f"{kind}: name the rule"


# -- random play ------------------------------------------------------------------------------------


def _public_match(
    game: Game, world: Any, action: dict[str, Any], seat: int, observer: int, want: Any
) -> bool:
    """Whether some legal action of ``world`` of the same type gives ``observer`` the events and the
    view ``want`` holds (the true action first: most are wholly public)."""
    legal = [a for a in game.legal_actions(world) if a["type"] == action["type"]]
    legal.sort(key=lambda a: a != action)
    for candidate in legal:
        after = game.clone(world)
        events = game.apply(after, candidate, seat)
        seen = [ev for ev in events if event_visible(ev, observer)]
        if canon((seen, game.view(after, observer))) == want:
            return True
    return False


def _check_tells_nothing(game: Game, before: Any, seat: int, action: dict[str, Any], step: int) -> None:
    """A step judged harmless looks the same to every seat in a world resampled for it."""
    after = game.clone(before)
    events = game.apply(after, action, seat)
    players = len(game.view(before, None)["players"])
    for observer in range(players):
        want = canon(([ev for ev in events if event_visible(ev, observer)], game.view(after, observer)))
        world = game.determinize(before, observer, random.Random(step * 7 + observer))
        assert _public_match(game, world, action, seat, observer, want), (
            f"{game.id}: {action} by seat {seat} was judged harmless but tells seat {observer} something"
        )


def _check_takebacks(
    game: Game,
    variant: tuple[int, dict[str, Any], int],
    log: list[tuple[int, dict[str, Any]]],
    codes: list[bytes],
    blocks: list[Blocker | None],
    rng: random.Random,
) -> None:
    """After decision ``t = len(log)``: the mover's undoable run, a takeback of part of it (the prefix's
    state; the same decisions again give the same state), and one decision more refused."""
    players, options, seed = variant
    t = len(log)
    mover = log[-1][0]
    k_max = 0
    while k_max < t and log[t - k_max - 1][0] == mover and blocks[t - k_max - 1] is None:
        k_max += 1
    if k_max:
        k = rng.randint(1, k_max)
        state = take_back(game, players, options, seed, log, mover, k)
        assert game.encode(state) == codes[t - k], "a takeback is the replay without the decisions"
        for seat, action in log[t - k :]:
            game.apply(state, action, seat)
        assert game.encode(state) == codes[t], "the same decisions again give the same state"
    if k_max < t:
        refused = log[t - k_max - 1]
        with pytest.raises(TakebackRefused) as info:
            take_back(game, players, options, seed, log, mover, k_max + 1)
        if refused[0] != mover:
            assert info.value.reason == OTHER_PLAYER, info.value
        else:
            blocker = blocks[t - k_max - 1]
            assert blocker is not None
            assert (info.value.reason, info.value.rule) == (blocker.reason, blocker.rule), info.value
            assert f"decision {t - k_max}" in info.value.message
    if rng.random() < 0.2:
        assert undoable(game, players, options, seed, log, mover) == k_max


@pytest.mark.parametrize(("game_id", "options", "examples"), CASES)
def test_takebacks_along_random_play(game_id: str, options: dict[str, Any], examples: int) -> None:
    game = get_game(game_id)
    table = by_action(game)
    counts = sorted({players for players, _ in VARIANTS[game_id]})

    @settings(
        max_examples=examples, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        players = data.draw(st.sampled_from(counts), label="players")
        seed = data.draw(st.integers(0, 2**32), label="seed")
        rng = random.Random(seed ^ 0x7A4E)
        state = game.setup(players, options, seed)
        log: list[tuple[int, dict[str, Any]]] = []
        codes, blocks = [game.encode(state)], []
        while (seat := game.to_move(state)) is not None:
            action = rng.choice(game.legal_actions(state))
            parts = steps(game, state, action, seat)
            found = next((b for b in (classify(game, part) for part in parts) if b is not None), None)
            reasons, _ = table[action["type"]]
            assert found is None or found.reason in reasons, f"{action} blocked for {found}: not declared"
            assert step_blocker(game, state, action, seat) == (None if found is None else found.reason)
            if found is None and len(log) % 3 == 0:
                _check_tells_nothing(game, state, seat, action, len(log))
            state = parts[-1].after
            log.append((seat, action))
            codes.append(game.encode(state))
            blocks.append(found)
            if game.to_move(state) is not None and rng.random() < 0.15:
                _check_takebacks(game, (players, options, seed), log, codes, blocks, rng)
        assert codes[-1] == game.encode(replay(game, players, options, seed, log))
        with pytest.raises(TakebackRefused) as info:
            take_back(game, players, options, seed, log, log[-1][0], 1)
        assert info.value.reason == OVER

    run()


# -- the generic parts ------------------------------------------------------------------------------


def _china_opening(moves: int) -> tuple[Game, list[tuple[int, dict[str, Any]]]]:
    game = get_game("china")
    state = game.setup(3, None, 11)
    log = []
    for _ in range(moves):
        seat = game.to_move(state)
        action = game.legal_actions(state)[0]
        game.apply(state, action, seat)
        log.append((seat, action))
    return game, log


def test_live_decisions_apply_the_takeback_markers() -> None:
    a, b, c = ({"type": t} for t in "abc")
    entries = [
        {"seat": 0, "action": a},
        {"seat": 1, "action": b},
        {"seat": 1, "takeback": 1},
        {"seat": 1, "action": c},
    ]
    assert live_decisions(entries) == [(0, a), (1, c)]
    assert live_decisions([*entries, {"seat": 0, "takeback": 2}]) == []
    with pytest.raises(ValueError, match="takeback of 3 decisions with 2 in force"):
        live_decisions([*entries, {"seat": 0, "takeback": 3}])
    with pytest.raises(ValueError, match="neither a decision nor a takeback"):
        live_decisions([{"seat": 0}])


def test_refusals_name_their_reason() -> None:
    game, log = _china_opening(4)
    seat = log[-1][0]
    for count, reason in ((0, NOTHING), (True, NOTHING), (len(log) + 1, NOTHING)):
        with pytest.raises(TakebackRefused) as info:
            take_back(game, 3, None, 11, log, seat, count)  # type: ignore[arg-type]
        assert info.value.reason == reason
    never = next(s for s in range(3) if all(s != d for d, _ in log))
    with pytest.raises(TakebackRefused) as info:
        take_back(game, 3, None, 11, log, never, 1)
    assert info.value.reason == NOTHING and f"seat {never}" in info.value.message
    other = next(i for i in range(len(log) - 1, -1, -1) if log[i][0] != seat)
    with pytest.raises(TakebackRefused) as info:
        take_back(game, 3, None, 11, log, seat, len(log) - other)
    assert info.value.reason == OTHER_PLAYER and f"seat {log[other][0]} decided since" in info.value.message
    assert set(REASONS) == {OTHER_PLAYER, RANDOM, REVEAL, NOTHING, OVER}


def test_step_judgement_does_not_touch_the_state() -> None:
    game, log = _china_opening(3)
    state = replay(game, 3, None, 11, log)
    before = game.encode(state)
    for action in game.legal_actions(state):
        step_block(game, state, action, game.to_move(state))
    assert game.encode(state) == before


def test_forced_steps_are_judged_one_by_one() -> None:
    """Confucius plays a lone payment itself (engine.core.play_forced): the split into steps ends where
    apply ends, each forced step marked ``auto`` and carrying its own action event."""
    game = get_game("confucius")
    rng = random.Random(3)
    state = game.setup(3, None, 3)
    seen = 0
    while game.to_move(state) is not None and seen < 5:
        action = rng.choice(game.legal_actions(state))
        parts = steps(game, state, action)
        reference = game.clone(state)
        events = game.apply(reference, action)
        assert game.encode(parts[-1].after) == game.encode(reference)
        assert [ev for part in parts for ev in part.events] == events
        for part in parts[1:]:
            seen += 1
            assert part.auto and part.events[0]["auto"] and part.events[0]["type"] == "action"
        state = reference
    assert seen, "no forced step met: pick another seed"


def test_a_game_without_a_classification_blocks_every_step() -> None:
    """Undoing blind could hide again what was shown: a game that declares no ``takeback.blocker`` has
    every step refused."""

    class Bare(China):
        rules = dataclasses.replace(China.rules, takeback=None)

    game = Bare()
    state = game.setup(3, None, 1)
    action = game.legal_actions(state)[0]
    assert step_blocker(game, state, action, game.to_move(state)) == REVEAL


def test_pool_helpers() -> None:
    # 5 hidden cards of two kinds: 3 + 2; a hand of 4 holds at least 2 and 1 of them
    assert surely_held([3, 2], 4, [2, 1])
    assert not surely_held([3, 2], 4, [3, 0])
    assert surely_held([3, 2], 5, [3, 2])
    assert not surely_held([3, 2], 1, [1, 0])
    assert surely_held([0, 4], 1, [0, 1])  # only one kind left: the card is known
