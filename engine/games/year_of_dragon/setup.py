"""Setup (R10-R14): the event row, the person supply and the players' starting material."""

from __future__ import annotations

from typing import Any

from engine.core import InvalidOptions, Rng

from .components import (
    EVENT_COUNTS,
    HAND,
    ROW_FIXED,
    ROW_SLOTS,
    START_PALACES,
    START_YUAN,
    SUPPLY,
)
from .state import COURT, State


def event_row(draws: list[int]) -> list[int]:
    """R11: the 12-slot event row (event indices) from the shuffled non-fixed tiles in draw order.

    Each tile goes to the leftmost empty slot unless it equals its left neighbour; then it skips one
    slot and the next tile fills the gap.  When the last tile must go to the last slot and equals its
    left neighbour, the two slots before the last are swapped first (the engine fallback R11 names).
    """
    row: list[int | None] = [*ROW_FIXED, *([None] * (ROW_SLOTS - len(ROW_FIXED)))]
    gap: int | None = None
    for tile in draws:
        if gap is not None:
            row[gap], gap = tile, None
            continue
        slot = row.index(None)
        if row[slot - 1] == tile:
            if slot + 1 < ROW_SLOTS:
                row[slot + 1], gap = tile, slot
                continue
            row[slot - 2], row[slot - 1] = row[slot - 1], row[slot - 2]
        row[slot] = tile
    assert None not in row
    return row  # type: ignore[return-value]  # the assert above proves no slot is None; mypy cannot narrow a list


def row_is_valid(row: list[int]) -> bool:
    """R11: fixed slots hold their tiles, every tile appears its number of times, no equal neighbours
    after the fixed slots."""
    fixed = len(ROW_FIXED)
    return (
        len(row) == ROW_SLOTS
        and tuple(row[:fixed]) == ROW_FIXED
        and all(row.count(e) == c for e, c in enumerate(EVENT_COUNTS))
        and all(row[i] != row[i + 1] for i in range(fixed, ROW_SLOTS - 1))
    )


def shuffled_draws(rng: Rng) -> list[int]:
    """The tiles R11 shuffles: every event tile except those fixed in the first slots."""
    tiles = [e for e, count in enumerate(EVENT_COUNTS) for _ in range(count)]
    for e in ROW_FIXED:
        tiles.remove(e)
    rng.shuffle(tiles)
    return tiles


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    """A fresh game at the start of the initial court (R12-R14); ``options`` are already resolved against
    the option schema (R13, R58a, R65).

    ``first_player`` -1 draws the first player from the seed (R13: the server picks at random when
    none is given; the choice is public)."""
    first_player = options["first_player"]
    if not -1 <= first_player < players:
        raise InvalidOptions(
            "first_player", f"must be a seat 0-{players - 1}, or -1 for random; got {first_player}"
        )
    s = State.__new__(State)
    rng = Rng(seed)
    s.n = players
    s.large_cost = options["large_privilege_cost"]
    s.reveal = options["reveal_played_card"]
    s.row = event_row(shuffled_draws(rng))
    s.first_player = rng.below(players) if first_player < 0 else first_player
    s.rng = rng
    s.round = 0
    s.phase = COURT
    s.order = [(s.first_player + i) % players for i in range(players)]  # R14: seat order
    s.turn = 0
    s.supply = list(SUPPLY[players])
    s.groups = []
    s.dragons = []
    s.yuan = [START_YUAN] * players
    s.rice = [0] * players
    s.fireworks = [0] * players
    s.vp = [0] * players
    s.pos = [0] * players
    s.arrival = [0] * players
    s.clock = 0
    s.small = [0] * players
    s.large = [0] * players
    s.palaces = [[(f, ()) for f in START_PALACES] for _ in range(players)]
    s.hands = [list(HAND) for _ in range(players)]
    s.played = [[] for _ in range(players)]
    s.masks = [[] for _ in range(players)]
    s.pairs = []
    s.pending = []
    s.build_left = 0
    s.owed = [0] * players
    s.last = -1
    s.final = None
    s._legal = None
    return s
