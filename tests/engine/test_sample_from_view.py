"""``sample_from_view`` (engine.core.Game) for every registered game: a state rebuilt from the JSON of a
seat's view alone is a world the seat cannot tell from the true one, drawn afresh for each rng.

The contract suite (tests/engine/contract.py) checks along playouts that the sample keeps the seat's
view, the public view and the seat's legal actions; here, over hypothesis-drawn positions of every
player count and option set the game's contract tests use:

- the sample depends on the view alone: the true state and a world ``determinize`` resampled for
  the seat have the same view, so they must give the identical sample (nothing is read from secrets);
- what the other seats see of their own (hands, hidden plays) varies with the rng wherever the game's own
  ``determinize`` varies it on the true state
  (China R61, Taj Mahal R64, Year of the Dragon R58a, Confucius R114-R116), and the samples
  are not all copies of the truth;
- play from a sample goes on: random legal moves reach a result within the game's decision bound.
"""

from __future__ import annotations

import json
import random
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.games.china.components import PROVINCES, SPACE_INDEX, SPACE_PROVINCES
from engine.games.confucius.components import OFFICIAL_COSTS, REWARDS
from engine.registry import get_game
from tests.engine.china import test_contract as china
from tests.engine.confucius import test_contract as confucius
from tests.engine.taj_mahal import test_contract as taj_mahal
from tests.engine.year_of_dragon import test_contract as year_of_dragon

#: Each game's contract suite names its player counts and option sets; the same ones are drawn here.
SUITES: dict[str, ModuleType] = {
    "china": china,
    "taj_mahal": taj_mahal,
    "year_of_dragon": year_of_dragon,
    "confucius": confucius,
}
#: Rngs per seat: enough for a hidden hand or deck to come out differently at least once.
DRAWS = 4


def random_position(game: Any, players: int, options: dict[str, Any], seed: int, steps: int) -> Any:
    """The state after up to ``steps`` random legal moves (fewer when the game ends first)."""
    state = game.setup(players, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.to_move(state) is None:
            break
        game.apply(state, rng.choice(game.legal_actions(state)))
    return state


def hidden_part(game: Any, state: Any, seat: int) -> str:
    """What ``seat`` cannot see of ``state``: every other seat's own view (its hand, its hidden plays)
    and the spectator's, plus the order of what is drawn next (the encoding less ``seat``'s view is
    too coarse: the RNG alone always differs).  Canonical JSON, to compare samples."""
    players = len(game.view(state, None)["players"])
    return json.dumps([game.view(state, q) for q in range(players) if q != seat], sort_keys=True)


def play_to_the_end(game: Any, state: Any, players: int, rng: random.Random) -> dict[str, Any]:
    for _ in range(game.max_decisions(players)):
        if game.to_move(state) is None:
            break
        game.apply(state, rng.choice(game.legal_actions(state)))
    result = game.result(state)
    assert result is not None, "play from a sample did not end within the game's decision bound"
    return result


@pytest.mark.parametrize("game_id", sorted(SUITES))
def test_samples_come_from_the_view_alone_vary_and_play_on(game_id: str) -> None:
    game = get_game(game_id)
    suite = SUITES[game_id].TestContract

    @settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(
        players=st.sampled_from(suite.player_counts),
        options=st.sampled_from(suite.option_sets),
        seed=st.integers(0, 2**32),
        steps=st.integers(0, 400),
    )
    def run(players: int, options: dict[str, Any], seed: int, steps: int) -> None:
        state = random_position(game, players, options, seed, steps)
        for seat in range(players):
            view = json.loads(json.dumps(game.view(state, seat)))
            samples = [game.sample_from_view(view, seat, random.Random(k)) for k in range(DRAWS)]
            for sample in samples:
                assert game.view(sample, seat) == view
            # Nothing but the view goes in: a world that differs from the truth only in what the seat
            # cannot see (same view) gives the identical sample for the same rng.
            other = game.determinize(state, seat, random.Random(seed))
            assert game.view(other, seat) == view
            again = game.sample_from_view(game.view(other, seat), seat, random.Random(0))
            assert game.encode(again) == game.encode(samples[0]), "the sample read something outside the view"
            # Hidden parts vary wherever the game's own determinize varies them on the true state.
            truth = hidden_part(game, state, seat)
            worlds = {
                hidden_part(game, game.determinize(state, seat, random.Random(k)), seat) for k in range(DRAWS)
            }
            drawn = {hidden_part(game, sample, seat) for sample in samples}
            if len(worlds) > 1:
                assert len(drawn) > 1, f"seat {seat}: every sample hides the same cards"
                assert drawn != {truth}, f"seat {seat}: the samples copy the true hidden state"
        if game.to_move(state) is not None:
            mover = game.to_move(state)
            sample = game.sample_from_view(game.view(state, mover), mover, random.Random(seed))
            play_to_the_end(game, sample, players, random.Random(seed))

    run()


def test_a_view_that_does_not_add_up_is_refused() -> None:
    """China R16: the cards in play are fixed, so a view claiming a bigger draw pile than they allow
    is refused with a ValueError rather than rebuilt into an impossible state."""
    game = get_game("china")
    view = game.view(game.setup(3, seed=1), 0)
    view["deck_size"] += 1
    with pytest.raises(ValueError, match="R16"):
        game.sample_from_view(view, 0, random.Random(0))


def test_china_pending_place_names_the_provinces_the_first_piece_leaves_open() -> None:
    """R30, R31: after a first piece the second must share one of its provinces and may not enter a
    province that was empty at turn start; the place decision's ``provinces`` and ``blocked`` say
    which, read here from the public views before and after the first piece."""
    game = get_game("china")
    checked = 0
    for seed in range(6):
        state = game.setup(3 + seed % 3, {"fortifications": seed % 2 == 1}, seed=seed)
        rng = random.Random(seed)
        while game.to_move(state) is not None:
            before = game.view(state, None)
            action = rng.choice(game.legal_actions(state))
            game.apply(state, action)
            after = game.view(state, None)
            if action["type"] != "place" or after["phase"] != "place" or before["phase"] != "turn":
                continue
            if action["piece"] == "house":
                provinces = [PROVINCES[p] for p in SPACE_PROVINCES[SPACE_INDEX[action["target"]]]]
            else:
                provinces = [action["target"]]
            board = before["board"]
            occupied = {
                PROVINCES[p] for s, _ in board["houses"].items() for p in SPACE_PROVINCES[SPACE_INDEX[s]]
            }
            occupied |= {name for name, seals in board["seals"].items() if any(seals)}
            assert after["pending"]["provinces"] == provinces
            assert after["pending"]["blocked"] == [p for p in provinces if p not in occupied]
            checked += 1
    assert checked > 20, "too few first pieces followed by a place decision to say anything"


def test_taj_mahal_pending_palace_names_what_the_withdrawal_took() -> None:
    """R38, R42, R44: a regular palace takes the bonus tile of its city, scored with the palaces at the
    end of the withdrawal; the palace decision's ``bonus_taken`` and ``placed`` say what it took so far,
    read here from the public board at the withdrawal and now."""
    game = get_game("taj_mahal")
    checked = taken = 0
    for seed in range(6):
        state = game.setup(3 + seed % 3, seed=seed)
        rng = random.Random(seed)
        start: dict[str, Any] | None = None
        while game.to_move(state) is not None:
            action = rng.choice(game.legal_actions(state))
            if action["type"] == "withdraw":
                start = game.view(state, None)
            game.apply(state, action)
            now = game.view(state, None)
            if now["pending"] is None or now["pending"]["decision"] not in ("palace", "crown"):
                continue
            assert start is not None
            gone = [
                start["bonus_tiles"][city]["id"]
                for city in start["bonus_tiles"]
                if city not in now["bonus_tiles"]
            ]
            assert sorted(b["id"] for b in now["pending"]["bonus_taken"]) == sorted(gone)
            assert now["pending"]["placed"] == (now["palaces"] != start["palaces"])
            checked += 1
            taken += bool(gone)
    assert checked > 10 and taken > 0, "too few palace decisions (with a bonus tile taken) to say anything"


def test_year_of_dragon_views_show_the_releases_every_seat_still_owes() -> None:
    """R40: the month's event fixes the persons each seat must release (its ``month_event`` event tells
    everybody), and the seats release in turn order; while they do, every view shows each seat's
    remaining debt: the event's figure less the releases that seat has made since."""
    game = get_game("year_of_dragon")
    checked = 0
    for seed in range(4):
        state = game.setup(2 + seed, {"reveal_played_card": seed % 2 == 0}, seed=seed)
        rng = random.Random(seed)
        owed: list[int] = []
        while game.to_move(state) is not None:
            action = rng.choice(game.legal_actions(state))
            events = game.apply(state, action)
            for ev in events:
                if ev["type"] == "month_event":
                    owed = list(ev["owed"])
                elif ev["type"] == "action" and ev["action"]["type"] == "release":
                    owed[ev["seat"]] -= 1
            view = game.view(state, None)
            if view["phase"] != "release":
                assert all("owed" not in p for p in view["players"])
                continue
            assert [p["owed"] for p in view["players"]] == owed
            assert view["pending"]["owed"] == owed[view["to_move"]]
            checked += 1
    assert checked > 5, "too few release decisions to say anything"


def test_confucius_views_show_the_stack_content_played_rewards_and_final_resolutions() -> None:
    """R15, R88: the face-down officials are the tiles neither on the board nor replaced (both public);
    R69: a played reward card leaves the game in view of all; R101: a resolution is final when its
    ``ministry_resolution`` event says so.  The views say the same, checked against the public
    events of random games."""
    game = get_game("confucius")
    finals = 0
    for seed in range(3):
        state = game.setup(3 + seed, {"advanced": seed > 0}, seed=seed)
        rng = random.Random(seed)
        replaced: list[int] = []
        played: list[str] = []
        final = False
        while game.to_move(state) is not None:
            action = rng.choice(game.legal_actions(state))
            for ev in game.apply(state, action):
                if ev["type"] == "candidate_placed" and ev["replaced"] > 0:
                    replaced.append(ev["replaced"])
                elif ev["type"] == "ministry_resolution":
                    final = ev["final"]
                elif ev["type"] == "action" and ev["action"]["type"].startswith("reward_"):
                    kind = ev["action"]["type"].removeprefix("reward_")
                    played.append(ev["action"]["card"] if kind == "bribery" else kind)
            view = game.view(state, None)
            faces = [s["tile"] for m in view["ministries"] for s in m["spaces"] if isinstance(s["tile"], int)]
            assert sorted(view["official_stack_costs"] + faces + replaced) == sorted(OFFICIAL_COSTS)
            assert view["reward_cards_played"] == sorted(played, key=REWARDS.index)
            if view["pending"] is not None and view["pending"]["decision"] == "give_influence":
                assert view["pending"]["final_resolution"] == final
                finals += final
    assert finals > 0, "no final resolution asked for a decision: the test says nothing"
