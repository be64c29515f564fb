"""A whole Taj Mahal state rebuilt from one seat's view, the hidden cards then dealt by ``determinize``.

The board, the display, the discard pile, the tables, the special cards and the cards taken from the
display are public (R59, R65), and the view shows them with the seat's own hand (R64); a withdrawal
in progress shows its palaces still to place and what it already took (``pending``).  The hidden
cards are the normal cards less every card the seat sees; they are put anywhere first and
:func:`view.determinize` deals them at random, so this module holds no sampler of its own.

One refinement of ``determinize`` is lost: the true state remembers from which reshuffle of the
discard pile (R49) each secret card was drawn (``State.gen``), and the view does not say (only the
history of draws does, and not exactly once a secret card is played).  A sampled state treats every
hidden card as drawn from one pile, so a hand may get a card that was still in the discard pile when
its cards were drawn.  The standard components are assumed (a scenario's own kit is not in the view).
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Rng

from .components import SPECIAL, STANDARD
from .state import OVER, PHASE_NAMES, PLACE, TAKE, Player, State
from .view import determinize

_BONUS_INDEX = {b: i for i, b in enumerate(STANDARD.bonus_ids)}


def sample_from_view(view: dict[str, Any], seat: int, rng: random.Random, seen: Any = None) -> State:
    """A state whose ``view(state, seat)`` is ``view``, every card ``seat`` cannot see dealt with
    ``rng`` (``seen`` is not used; see the module docstring for what the history would refine)."""
    comp = STANDARD
    players = view["players"]
    n = len(players)
    card = comp.card_index

    def cards(docs: list[dict[str, Any]]) -> list[int]:
        return [card[c["id"]] for c in docs]

    s = State(comp, n, 0)
    s.visit = view["visit"]
    s.start = view["start_player"]
    s.phase = PHASE_NAMES.index(view["phase"])
    s.current = -1 if view["to_move"] is None else view["to_move"]
    s.tile_province = [-1] * len(comp.tile_goods)
    for province, tile in view["province_tiles"].items():
        s.tile_province[tile] = comp.province_ids.index(province)
    for city, bonus in view["bonus_tiles"].items():
        s.bonus_on[comp.city_index[city]] = _BONUS_INDEX[bonus["id"]]
    for city, palace in view["palaces"].items():
        c = comp.city_index[city]
        s.regular[c] = -1 if palace["regular"] is None else palace["regular"]
        s.crowned[c] = -1 if palace["crowned"] is None else palace["crowned"]
    crown = view["crowned_palace"]
    s.crown_city = -1 if crown is None else comp.city_index[crown]
    s.court = [view["court"][sym] for sym in comp.symbols]
    s.supply = [view["supply"][kind] for kind in comp.influence]
    s.unowned_specials = cards(view["specials_beside_board"])
    s.display = cards(view["display"])
    s.discard = cards(view["discard"])
    s.players = [_player(comp, entry, cards) for entry in players]
    _withdrawal(s, view["pending"])
    result = view["result"]
    s.final_bonus = None if result is None else list(result["card_bonus"])
    # The hidden cards: the normal cards (R14) less the seat's hand, the display, the discard pile,
    # the tables and the cards others were seen to take.  Dealt in card order here, at random below.
    visible = set(s.display) | set(s.discard) | set(s.players[seat].hand)
    for p in s.players:
        visible.update(p.known)
        visible.update(c for c in p.table if comp.card_kind[c] != SPECIAL)
    if view["phase"] == "over":  # R66: every hand is shown
        for p in s.players:
            visible.update(p.hand)
    pool = [c for c in comp.normal_cards if c not in visible]
    pool.reverse()
    for q, entry in enumerate(players):
        p = s.players[q]
        if q == seat or "hand" in entry:
            continue
        p.hand = list(p.known)
        for _ in range(entry["hand_size"] - len(p.specials) - len(p.known)):
            p.hand.append(pool.pop())
    if len(pool) != view["deck_size"]:
        raise ValueError("the view's cards do not add up to the deck (R14)")
    s.deck = pool
    s.rng = Rng(0)
    return determinize(s, seat, rng)


def _player(comp: Any, entry: dict[str, Any], cards: Any) -> Player:
    p = Player(len(comp.symbols), len(comp.influence), len(comp.goods))
    p.score = entry["score"]
    p.known = cards(entry["hand_public"])
    p.hand = cards(entry["hand"]) if "hand" in entry else list(p.known)
    p.specials = cards(entry["specials"])
    p.table = cards(entry["table"])
    p.counts = [entry["counts"][sym] for sym in comp.symbols]
    commitment = entry["commitment"]
    p.colour = -1 if commitment is None else comp.colours.index(commitment)
    p.in_visit = entry["in_visit"]
    p.tiles = [entry["influence_tiles"][kind] for kind in comp.influence]
    p.goods = [entry["goods"][good] for good in comp.goods]
    p.province_tiles = list(entry["province_tiles"])
    p.bonus_goods = [_BONUS_INDEX[b] for b in entry["bonus_tiles"]]
    return p


def _withdrawal(s: State, pending: dict[str, Any] | None) -> None:
    """The withdrawal in progress (R40): palaces still to place and what it already took."""
    if pending is None or s.phase == OVER:
        return
    if s.phase == PLACE:
        s.to_place = pending["left"] if pending["decision"] == "palace" else 0
        s.crown_pending = pending["crown"]
        s.placed = pending["placed"]
        s.bonus_taken = [_BONUS_INDEX[b["id"]] for b in pending["bonus_taken"]]
        # R39: the elephant's prize is this visit's province tile, already among the seat's tiles
        s.won_tile = s.visit in s.players[s.current].province_tiles
    elif s.phase == TAKE:
        s.to_take = pending["left"]
