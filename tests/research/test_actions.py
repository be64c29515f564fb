"""The stable action ids (research.actions): every legal action has one, and they never move."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.registry import GAMES
from research.actions import ActionCodec, UnencodableAction, codec
from tests.research.conftest import GAME_IDS, configurations, random_playout

#: Fingerprint and size of each game's id space.  A change here means every saved policy's ids moved:
#: only change it with a schema change, and say so in the release notes.
PINNED = {
    "china": ("5bd5b954fe2d7953", 31251),
    "confucius": ("19d0bee4b8da0ec2", 6754),
    "taj_mahal": ("8c42cb7680802a67", 1899),
    "year_of_dragon": ("2c3aa31e6bd5857f", 1214),
}


@pytest.mark.parametrize(("game_id", "players", "options"), configurations())
def test_every_legal_action_of_random_playouts_has_an_id_and_round_trips(game_id, players, options):
    game = GAMES[game_id]
    c = codec(game)
    for seed in (1, 2):
        for state in random_playout(game, players, options, seed):
            if game.to_move(state) is None:
                continue
            legal = game.legal_actions(state)
            ids = [c.encode(a) for a in legal]
            assert all(0 <= i < c.num_actions for i in ids)
            assert [c.decode(i) for i in ids] == legal
            distinct = {tuple(sorted(a.items())) for a in legal}
            assert len(set(ids)) == len(distinct)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_id_space_is_pinned(game_id):
    c = ActionCodec(GAMES[game_id])
    assert (c.fingerprint, c.num_actions) == PINNED[game_id]


def test_documented_order_types_sorted_fields_sorted_last_fastest():
    c = codec(GAMES["china"])
    # Types in sorted order: draw_deck (no field) is id 0, draw_display's four slots follow.
    assert c.decode(0) == {"type": "draw_deck"}
    assert [c.encode({"type": "draw_display", "slot": s}) for s in range(4)] == [1, 2, 3, 4]
    # place: fields pay, piece, target (sorted), target fastest.
    targets = sorted(GAMES["china"].actions["place"]["properties"]["target"]["enum"])
    first = c.encode({"type": "place", "pay": "green", "piece": "emissary", "target": targets[0]})
    assert c.encode({"type": "place", "pay": "green", "piece": "emissary", "target": targets[1]}) == first + 1
    assert c.encode({"type": "place", "pay": "green", "piece": "house", "target": targets[0]}) == first + len(
        targets
    )


def test_actions_outside_the_space_are_refused_by_name():
    c = codec(GAMES["confucius"])
    with pytest.raises(UnencodableAction, match="count"):
        c.encode({"type": "buy_junks", "count": 99})
    with pytest.raises(UnencodableAction, match="unknown action type"):
        c.encode({"type": "teleport"})
    with pytest.raises(ValueError):
        c.decode(c.num_actions)


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=200, deadline=None)
@given(fraction=st.floats(min_value=0, max_value=1, exclude_max=True))
def test_every_id_decodes_to_an_action_that_encodes_back(game_id, fraction):
    c = codec(GAMES[game_id])
    code = int(fraction * c.num_actions)
    action = c.decode(code)
    assert action["type"] in GAMES[game_id].actions
    assert c.encode(action) == code
