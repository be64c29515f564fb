"""What a seat may see (R64-R66), and ``determinize``, which resamples exactly what it may not.

Secret: the normal cards in a hand that were dealt or drawn from the deck (not those taken from the
display in public view), the deck order and the RNG.  Public: everything else (R65), including which
special cards each player holds (R59); all hands once the game is over (R66).
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Rng

from . import scoring
from .legal import current_cities, free_cities
from .state import OVER, PHASE_NAMES, PHASE_RULES, PLACE, TAKE, TURN, State


def view(s: State, seat: int | None) -> dict[str, Any]:
    comp = s.comp
    over = s.phase == OVER

    def cards(seq: list[int]) -> list[dict[str, Any]]:
        return [comp.card_json(c) for c in seq]

    players = []
    for i, p in enumerate(s.players):
        entry: dict[str, Any] = {
            "seat": i,
            "score": p.score,
            # Every card in hand, special cards included (R59: they are public and listed under
            # "specials"); the normal cards alone are hand_size - len(specials).
            "hand_size": len(p.hand) + len(p.specials),
            "hand_public": cards(sorted(p.known)),  # display picks everybody saw (R65)
            "specials": cards(sorted(p.specials)),  # R59
            "table": cards(p.table),
            "counts": dict(zip(comp.symbols, p.counts, strict=True)),
            "commitment": comp.colours[p.colour] if p.colour >= 0 else None,
            "in_visit": p.in_visit,
            "influence_tiles": dict(zip(comp.influence, p.tiles, strict=True)),
            "goods": dict(zip(comp.goods, p.goods, strict=True)),
            "province_tiles": list(p.province_tiles),
            "bonus_tiles": [comp.bonus_ids[b] for b in p.bonus_goods],
        }
        if seat == i or over:  # R64 own hand only; R66 all hands at the end
            entry["hand"] = cards(sorted(p.hand))
        players.append(entry)
    province = s.tile_province[s.visit]
    return {
        "game": "taj_mahal",
        "phase": PHASE_NAMES[s.phase],
        "round": s.visit,
        "visit": s.visit,
        "to_move": None if over else s.current,
        "pending": _pending(s),
        "start_player": s.start,
        "current_province": comp.province_ids[province],
        "province_tiles": {comp.province_ids[pr]: t for t, pr in enumerate(s.tile_province) if pr >= 0},
        "bonus_tiles": {comp.city_ids[c]: comp.bonus_json(b) for c, b in enumerate(s.bonus_on) if b >= 0},
        "palaces": {
            comp.city_ids[c]: {"regular": r if r >= 0 else None, "crowned": k if k >= 0 else None}
            for c, (r, k) in enumerate(zip(s.regular, s.crowned, strict=True))
            if r >= 0 or k >= 0
        },
        "crowned_palace": comp.city_ids[s.crown_city] if s.crown_city >= 0 else None,
        "court": {comp.symbols[sym]: here for sym, here in enumerate(s.court)},
        "court_province_tile": s.visit if s.court[comp.elephant] else None,
        "supply": dict(zip(comp.influence, s.supply, strict=True)),
        "specials_beside_board": cards(sorted(s.unowned_specials)),
        "display": cards(s.display),
        "deck_size": len(s.deck),
        "discard": cards(s.discard),
        "players": players,
        "result": scoring.result(s),
    }


def _pending(s: State) -> dict[str, Any] | None:
    """The decision of §14 the seat to move faces.  For D2 it lists the cities allowed, because
    which cities count as free (R36: this visit's crowned palace does not occupy one) is a rule a
    client should not have to re-implement."""
    base = {"seat": s.current}
    if s.phase == TURN:
        return {**base, "decision": "play_or_withdraw", "rule": PHASE_RULES[TURN]}
    if s.phase == PLACE:
        regular = s.to_place > 0  # regular palaces come first, the crowned one last (X3)
        cities = free_cities(s) if regular else current_cities(s)
        return {
            **base,
            "decision": "palace" if regular else "crown",
            "rule": "R36" if regular else "R37",
            "left": s.to_place,
            "crown": s.crown_pending,
            "cities": [s.comp.city_ids[c] for c in cities],
            # what this withdrawal already did, scored at its end (R42-R44): public, and a client
            # rebuilding the state from its view (sampling.py) needs it
            "placed": s.placed,
            "bonus_taken": [s.comp.bonus_json(b) for b in s.bonus_taken],
        }
    if s.phase == TAKE:
        return {**base, "decision": "take", "rule": PHASE_RULES[TAKE], "left": s.to_take}
    return None


def determinize(s: State, seat: int, rng: random.Random) -> State:
    """A clone in which the cards ``seat`` cannot see are dealt anew, and the RNG is reseeded.

    Hidden cards are the deck and the secret part of the other hands.  Everybody saw from which pile
    (reshuffle generation, ``State.gen``) each secret card was drawn, so cards are only exchanged
    within one generation: a card reshuffled into the deck never lands in a hand dealt before it.
    The result depends only on what ``seat`` knows and on ``rng``: pools are sorted before they are
    shuffled and the other hands are rebuilt in a canonical order (public cards first, then the
    secret ones by generation).
    """
    t = s.clone()
    t.rng = Rng.reseeded(rng)
    if t.phase == OVER:
        return t  # R66: nothing is hidden any more
    gen = t.gen
    current = t.reshuffles
    pools: dict[int, list[int]] = {current: list(t.deck)}
    slots: dict[int, list[int]] = {}  # seat -> generations of its secret cards, ascending
    for i, p in enumerate(t.players):
        if i == seat:
            continue
        known = set(p.known)
        secret = [c for c in p.hand if c not in known]
        for c in secret:
            pools.setdefault(gen[c], []).append(c)
            gen[c] = 0
        slots[i] = sorted(s.gen[c] for c in secret)
        p.hand = list(p.known)
    for g in sorted(pools):
        pool = pools[g]
        pool.sort()
        rng.shuffle(pool)
    t.deck = pools[current][len(pools[current]) - len(s.deck) :]
    del pools[current][len(pools[current]) - len(s.deck) :]
    for i, generations in slots.items():
        hand = t.players[i].hand
        for g in generations:
            card = pools[g].pop()
            gen[card] = g
            hand.append(card)
    return t
