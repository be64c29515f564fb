"""The adapter's legal ids (issue 46): found by each action's JSON, and by the action object itself for
the prebuilt actions games share (engine.core.ActionTable), never by an object the cache does not keep
alive; every id is the codec's own."""

from __future__ import annotations

import random

import orjson
import pytest

from engine.registry import GAMES
from research.actions import codec
from research.openspiel_game import LegalIds
from tests.research.conftest import GAME_IDS


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_legal_ids_are_the_codecs_along_random_games(game_id):
    game = GAMES[game_id]
    ids = LegalIds(codec(game))
    rng = random.Random(3)
    for seed in range(3):
        state = game.setup(3, None, seed=seed)
        while game.to_move(state) is not None:
            actions = game.legal_actions(state)
            found = ids.of(actions)
            assert found == {ids.codec.encode(a): a for a in reversed(actions)}  # the first of equal ids
            game.apply(state, rng.choice(actions))
    kept = {id(action) for _, action in ids.known.values()}
    assert ids.by_object and set(ids.by_object) <= kept  # only objects the cache keeps alive


def test_an_object_is_found_by_identity_only_once_seen_twice_and_a_copy_never():
    game = GAMES["taj_mahal"]
    ids = LegalIds(codec(game))
    shared = {"type": "withdraw"}
    code = ids.codec.encode(shared)
    assert ids.of([shared]) == {code: shared} and not ids.by_object  # first sight: by its JSON
    assert ids.of([shared]) == {code: shared} and ids.by_object == {id(shared): code}
    copy = dict(shared)
    assert ids.of([copy]) == {code: copy} and id(copy) not in ids.by_object
    assert ids.of([copy, shared])[code] is copy and ids.of([shared, copy])[code] is shared  # the first


#: Each game's default options, and those that list more kinds of action: China's fortifications and
#: Confucius's petitions.
OPTIONS = [(g, None) for g in GAME_IDS] + [
    ("china", {"fortifications": True}),
    ("confucius", {"advanced": True}),
]


@pytest.mark.parametrize("players", [3, 5])
@pytest.mark.parametrize(("game_id", "options"), OPTIONS)
def test_an_action_listed_at_two_decisions_is_one_object(game_id, options, players):
    """What lets the adapter find ids by identity: every game lists one object per action, whoever
    moves and whatever their hand, so after its first sighting no listed action is serialized again.
    Two equal actions as two objects would each cost a JSON dump every step."""
    game = GAMES[game_id]
    rng = random.Random(5)
    objects: dict[bytes, object] = {}  # JSON -> the first object listed with it (kept alive)
    for seed in range(4):
        state = game.setup(players, options, seed=seed)
        while game.to_move(state) is not None:
            actions = game.legal_actions(state)
            for action in actions:
                first = objects.setdefault(orjson.dumps(action, option=orjson.OPT_SORT_KEYS), action)
                assert first is action, f"{action} listed as two objects"
            game.apply(state, rng.choice(actions))
    assert len(objects) > 20
