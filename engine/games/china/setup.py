"""Setup (R15-R20): the deck, the hands, the display, the supplies and the Emperor."""

from __future__ import annotations

from typing import Any

from engine.core import InvalidOptions, Rng

from .components import CARDS_IN_PLAY, COLOURS, DISPLAY_SIZE, EMISSARIES, HAND_SIZE, HOUSES, PROVINCES, SPACES
from .flow import begin_turn
from .state import FREE, UNUSED, State, card_counts, card_list


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    """A fresh game (R15-R20); ``options`` are already resolved against the option schema."""
    start = options["start_player"]
    if not -1 <= start < players:
        raise InvalidOptions("start_player", f"must be -1 (random) or a seat 0..{players - 1}, not {start}")
    rng = Rng(seed)
    deck = card_list(CARDS_IN_PLAY[players])
    rng.shuffle(deck)  # R16, R17
    st = State.__new__(State)
    st._legal = None
    st.n = players
    st.fortifications = options["fortifications"]
    st.start = rng.below(players) if start == -1 else start  # R19
    st.hands = [card_counts(deck.pop() for _ in range(HAND_SIZE)) for _ in range(players)]  # R17
    st.known = [[0] * len(COLOURS) for _ in range(players)]
    st.display = [deck.pop() for _ in range(DISPLAY_SIZE)]  # R18
    st.deck = deck
    st.discard = [0] * len(COLOURS)
    st.owner = [FREE] * len(SPACES)
    st.houses = [[0] * players for _ in PROVINCES]
    st.seals = [[0] * players for _ in PROVINCES]
    st.scored = [False] * len(PROVINCES)
    st.supply = [[HOUSES, EMISSARIES] for _ in range(players)]  # R15
    st.scores = [0] * players  # R20
    st.fort = [UNUSED] * players
    st.exhaustions = 0
    st.final_round = False
    st.end = ""
    st.final = None
    st.rng = rng
    st.seat = st.start  # R22
    st.turn = 0
    begin_turn(st, [])
    return st
