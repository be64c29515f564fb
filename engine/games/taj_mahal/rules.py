"""Pure rules of Taj Mahal: setup, the pending decision, legal actions and their effects.

Decisions (RULES.md §14): D1 ``play`` / ``withdraw`` on a turn; D2 ``palace`` (one per regular palace)
then ``crown`` during a withdrawal; D3 ``take`` (one per display card).  Everything else — prizes, bonus
tiles, scoring, draws, the special-card exchange, refills, the final bonus — runs automatically inside
``apply``, as does any decision whose every option leads to the same state (X2, X8).
"""

from __future__ import annotations

from typing import Any

from engine.core import (
    Action,
    Event,
    Rng,
    action_events,
    action_schema,
    check_shape,
    check_turn,
    event,
)
from engine.games.taj_mahal import scoring
from engine.games.taj_mahal.components import (
    ANY_COLOUR,
    CARD,
    COLORED,
    NO_CARD,
    POINTS,
    SPECIAL,
    TWO_POINTS,
    WHITE,
    Components,
)
from engine.games.taj_mahal.refusals import explain
from engine.games.taj_mahal.state import OVER, PLACE, TAKE, TURN, Player, State

_CARD = {"type": "string", "description": "card id, e.g. 'red-03'"}
_CITY = {"type": "string", "description": "city id of the current province"}
ACTIONS: dict[str, dict[str, Any]] = {
    "play": action_schema(
        "play",
        "R24: play one coloured card, optionally with one white or special card ('' for none)",
        card=_CARD,
        extra={"type": "string", "description": "white or special card id, or '' for none"},
    ),
    "withdraw": action_schema("withdraw", "R32: withdraw from the visit"),
    "palace": action_schema("palace", "R36: place one regular palace (D2)", city=_CITY),
    "crown": action_schema("crown", "R37: place the crowned palace (D2)", city=_CITY),
    "take": action_schema("take", "R48: take one display card (D3)", card=_CARD),
}


# --------------------------------------------------------------------------------------------------
# Setup


def setup(comp: Components, players: int, seed: int) -> State:
    """R10-R18: a fresh game on the standard board (or any kit with one province per tile)."""
    s = State(comp, players, seed)
    rng = s.rng
    place_province_tiles(s, rng)
    # R11: the Taj Mahal tile on Agra, the square tiles shuffled onto the other fortified cities.
    loose = [b for b, city in enumerate(comp.bonus_fixed_city) if city is None]
    taken = {comp.city_index[city] for city in comp.bonus_fixed_city if city is not None}
    forts = [c for c, fort in enumerate(comp.city_fortified) if fort and c not in taken]
    if len(loose) != len(forts):
        raise ValueError("setup needs one bonus tile per fortified city (R11)")
    for b, city in enumerate(comp.bonus_fixed_city):
        if city is not None:
            s.bonus_on[comp.city_index[city]] = b
    rng.shuffle(loose)
    for b, city in zip(loose, forts, strict=True):
        s.bonus_on[city] = b
    # R12, R13 are the State defaults (court full, supply 5 each, special cards beside the board).
    s.deck = list(comp.normal_cards)
    rng.shuffle(s.deck)  # R14
    for p in s.players:
        for _ in range(comp.hand_size[players]):
            p.hand.append(s.deck.pop())
    _deal_display(s, [])  # R15
    s.visit = min(t for t, province in enumerate(s.tile_province) if province >= 0)  # R17: tile 1
    s.start = s.current = rng.below(players)  # R18
    return s


def place_province_tiles(s: State, rng: Rng) -> None:
    """R10: tile 12 on Agra (fixed by the data), tiles 1-11 at random on the other provinces."""
    comp = s.comp
    province_of = {pid: i for i, pid in enumerate(comp.province_ids)}
    fixed = {number: province_of[pid] for number, pid in comp.fixed_tiles.items()}
    tiles = [t for t in range(1, len(comp.tile_goods)) if t not in fixed]
    provinces = [p for p in range(len(comp.province_ids)) if p not in fixed.values()]
    if len(tiles) != len(provinces):
        raise ValueError("setup needs exactly one province tile per province (R10)")
    rng.shuffle(tiles)
    for number, province in [*fixed.items(), *zip(tiles, provinces, strict=True)]:
        s.tile_province[number] = province


# --------------------------------------------------------------------------------------------------
# The pending decision


def to_move(s: State) -> int | None:
    return None if s.phase == OVER else s.current


def legal_actions(s: State) -> list[Action]:
    """Every action ``apply`` accepts now (cached on the state until the next apply)."""
    legal = s._legal
    if legal is None:
        phase = s.phase
        if phase == TURN:
            legal = _turn_actions(s)
        elif phase == PLACE:
            ids = s.comp.city_ids
            if s.to_place:
                legal = [{"type": "palace", "city": ids[c]} for c in free_cities(s)]
            else:  # R37: the crowned palace may join any city
                legal = [{"type": "crown", "city": ids[c]} for c in current_cities(s)]
        elif phase == TAKE:
            ids = s.comp.card_ids
            legal = [{"type": "take", "card": ids[c]} for c in s.display]
        else:
            legal = []
        s._legal = legal
    return legal


def _turn_actions(s: State) -> list[Action]:
    """D1: withdraw (always legal, R22) or play one coloured card with at most one extra (R24-R26)."""
    comp = s.comp
    ids, kind, colour_of, effect = comp.card_ids, comp.card_kind, comp.card_colour, comp.card_effect
    p = s.players[s.current]
    legal: list[Action] = [{"type": "withdraw"}]
    extras = [ids[c] for c in p.hand if kind[c] == WHITE]
    any_colour = None
    for c in p.specials:  # R57: special cards accompany a coloured card like white ones
        extras.append(ids[c])
        if effect[c] == ANY_COLOUR:
            any_colour = ids[c]
    colour = p.colour
    for c in p.hand:
        if kind[c] != COLORED:
            continue
        cid = ids[c]
        if colour < 0 or colour_of[c] == colour:  # R25
            legal.append({"type": "play", "card": cid, "extra": NO_CARD})
            for e in extras:
                legal.append({"type": "play", "card": cid, "extra": e})
        elif any_colour is not None:  # R26: any colour with the any-colour card
            legal.append({"type": "play", "card": cid, "extra": any_colour})
    return legal


def current_cities(s: State) -> tuple[int, ...]:
    return s.comp.province_cities[s.tile_province[s.visit]]


def free_cities(s: State) -> list[int]:
    """R36: cities of the current province without a regular palace (this visit's crowned palace
    alone does not occupy a city)."""
    return [c for c in current_cities(s) if s.regular[c] < 0]


# --------------------------------------------------------------------------------------------------
# Apply


def apply(s: State, action: Action, seat: int | None = None) -> list[Event]:
    seat = check_turn(to_move(s), seat)
    kind = check_shape(ACTIONS, action)
    if action not in legal_actions(s):
        raise explain(s, action)
    s._legal = None
    if kind == "play":
        return _play(s, seat, action)
    events = action_events(seat, action)
    if kind == "withdraw":
        _withdraw(s, seat, events)
    elif kind == "palace":
        _place_regular(s, seat, s.comp.city_index[action["city"]])
        _continue_withdrawal(s, seat, events)
    elif kind == "crown":
        _place_crown(s, seat, s.comp.city_index[action["city"]])
        _continue_withdrawal(s, seat, events)
    else:
        _take(s, seat, s.comp.card_index[action["card"]])
        _continue_taking(s, seat, events)
    return events


def _play(s: State, seat: int, action: Action) -> list[Event]:
    """R24-R30: cards go face up on the player's table; the first coloured card not covered by the
    any-colour card fixes the commitment colour (R25, R26)."""
    comp = s.comp
    p = s.players[seat]
    events = action_events(seat, action)
    c = comp.card_index[action["card"]]
    _lay(s, p, c)
    sets_colour = True
    if action["extra"]:
        e = comp.card_index[action["extra"]]
        _lay(s, p, e)
        effect = comp.card_effect[e]
        if effect == TWO_POINTS:  # R27
            p.score += 2
            events.append(event("scored", seat=seat, points=2, rule="R27", reason="+2 special card"))
        sets_colour = effect != ANY_COLOUR
    if sets_colour and p.colour < 0:
        p.colour = comp.card_colour[c]
    s.current = _next_in_visit(s, seat)  # R21; alone, the same player again (R23)
    return events


def _lay(s: State, p: Player, card: int) -> None:
    """Move a card from the hand to the table (R29); it is public from now on, so its draw
    generation is forgotten (``State.gen`` only describes secret cards)."""
    comp = s.comp
    if comp.card_kind[card] == SPECIAL:
        p.specials.remove(card)
    else:
        p.hand.remove(card)
        s.gen[card] = 0
        if card in p.known:
            p.known.remove(card)
    p.table.append(card)
    counts = p.counts
    for sym in comp.card_symbols[card]:
        counts[sym] += 1


def _next_in_visit(s: State, seat: int) -> int:
    """R21/R21a: the next seat clockwise still in the visit (``seat`` itself when it is alone), or -1."""
    players, n = s.players, s.n
    for step in range(1, n + 1):
        nxt = (seat + step) % n
        if players[nxt].in_visit:
            return nxt
    return -1


# --------------------------------------------------------------------------------------------------
# Withdrawal (R40 steps 1-10)


def _withdraw(s: State, seat: int, events: list[Event]) -> None:
    comp = s.comp
    p = s.players[seat]
    p.in_visit = False
    # Step 1 (R32, R33): every prize still in the court, decided at once against players still in.
    rivals = [q.counts for q in s.players if q.in_visit]
    won = [
        sym
        for sym, here in enumerate(s.court)
        if here and p.counts[sym] and all(r[sym] < p.counts[sym] for r in rivals)
    ]
    # Step 2 (R34, R35, R39): take the tiles and the crown; prizes are compulsory (R33a).
    s.to_place = 0
    s.crown_pending = s.won_tile = s.placed = False
    s.bonus_taken = []
    for sym in won:
        s.court[sym] = False
        if sym == comp.elephant:
            s.won_tile = True
            p.province_tiles.append(s.visit)
        elif sym == comp.grand_mogul:
            s.crown_pending = True
        else:
            p.tiles[sym] += 1
            s.to_place += 1
        events.append(event("prize", seat=seat, symbol=comp.symbols[sym], rule="R32"))
    s.phase = PLACE
    s.current = seat
    _continue_withdrawal(s, seat, events)


def _place_regular(s: State, seat: int, city: int) -> None:
    """R36, R38: a regular palace; it takes the bonus tile still lying on the city."""
    s.regular[city] = seat
    s.to_place -= 1
    s.placed = True
    bonus = s.bonus_on[city]
    if bonus >= 0:
        s.bonus_on[city] = -1
        s.bonus_taken.append(bonus)


def _place_crown(s: State, seat: int, city: int) -> None:
    """R37: the crowned palace may stand beside any palace; it never takes a bonus tile (R38)."""
    s.crowned[city] = seat
    s.crown_city = city
    s.crown_pending = False
    s.placed = True


def _continue_withdrawal(s: State, seat: int, events: list[Event]) -> None:
    """Step 3 (D2) until a real choice is left, then steps 4-9.

    Regular palaces come before the crowned one; the order changes nothing (X3).  When the placement
    set is forced (as many free cities as palaces, X8; fewer, X4) the engine places them itself."""
    ids = s.comp.city_ids
    if s.to_place:
        free = free_cities(s)
        if len(free) > s.to_place:
            return
        for city in free:
            _place_regular(s, seat, city)
            events.append(event("palace", seat=seat, city=ids[city], crowned=False, rule="X8"))
        s.to_place = 0  # X4: palaces without a free city are skipped
    if s.crown_pending:
        cities = current_cities(s)
        if len(cities) > 1:
            return
        _place_crown(s, seat, cities[0])
        events.append(event("palace", seat=seat, city=ids[cities[0]], crowned=True, rule="X8"))
    _score_withdrawal(s, seat, events)
    # Step 9 (R48): 2 cards, 1 for the last player of the visit; fewer if the display ran short (X1).
    s.to_take = 2 if any(q.in_visit for q in s.players) else 1
    s.phase = TAKE
    _continue_taking(s, seat, events)


def _score_withdrawal(s: State, seat: int, events: list[Event]) -> None:
    """Steps 4-8: bonus tiles (R42, R43), palaces (R44), province tile (R43), discard, R47 draw."""
    comp = s.comp
    p = s.players[seat]

    def score(points: int, rule: str, reason: str) -> None:
        p.score += points
        events.append(event("scored", seat=seat, points=points, rule=rule, reason=reason))

    for b in s.bonus_taken:
        kind, value = comp.bonus_kind[b], comp.bonus_value[b]
        if kind == POINTS:
            score(value, "R42", comp.bonus_ids[b])
        elif kind == CARD:
            for _ in range(value):
                _draw_into_hand(s, seat, "R42", events)
        else:
            score(scoring.gain_good(p.goods, value), "R43", comp.bonus_ids[b])
            p.bonus_goods.append(b)
    s.bonus_taken = []
    if s.placed:
        score(scoring.palace_points(comp, s, seat, s.tile_province[s.visit]), "R44", "palaces")
    if s.won_tile:
        score(sum(scoring.gain_good(p.goods, g) for g in comp.tile_goods[s.visit]), "R43", "province tile")
    # Step 7 (R46, R58): normal cards to the discard pile, special cards back to the hand.
    played = bool(p.table)
    for c in p.table:
        if comp.card_kind[c] == SPECIAL:
            p.specials.append(c)
        else:
            s.discard.append(c)
    p.table = []
    p.counts = [0] * len(p.counts)
    if not played:  # Step 8 (R47): withdrawing at once draws the top card first
        _draw_into_hand(s, seat, "R47", events)


def _draw(s: State, events: list[Event]) -> int:
    """R49: the top deck card, reshuffling the discard pile when the deck is empty; -1 if both are
    empty (X1)."""
    if not s.deck:
        if not s.discard:
            return -1
        s.deck, s.discard = s.discard, []
        s.rng.shuffle(s.deck)
        s.reshuffles += 1
        events.append(event("reshuffled", cards=len(s.deck), rule="R49"))
    return s.deck.pop()


def _draw_into_hand(s: State, seat: int, rule: str, events: list[Event]) -> None:
    """A secret draw (R64): only the drawer learns the card; others see that a card was drawn."""
    card = _draw(s, events)
    if card < 0:
        return
    s.players[seat].hand.append(card)
    s.gen[card] = s.reshuffles
    events.append(event("drew", [seat], seat=seat, card=s.comp.card_ids[card], rule=rule))
    events.append(event("drew", "others", seat=seat, card=None, rule=rule))


def _take(s: State, seat: int, card: int) -> None:
    """D3: a display card goes to the hand in public view (R65), so it joins ``known``."""
    s.display.remove(card)
    p = s.players[seat]
    p.hand.append(card)
    p.known.append(card)
    s.to_take -= 1


def _continue_taking(s: State, seat: int, events: list[Event]) -> None:
    """D3 until a real choice is left (X2: take all when the display holds no more than allowed),
    then step 10: the turn passes on, or the visit ends (R50)."""
    if s.to_take and len(s.display) > s.to_take:
        return
    ids = s.comp.card_ids
    for card in list(s.display[: s.to_take]):
        _take(s, seat, card)
        events.append(event("took", seat=seat, card=ids[card], rule="X2"))
    s.to_take = 0
    nxt = _next_in_visit(s, seat)
    if nxt >= 0:
        s.phase = TURN
        s.current = nxt
    else:
        _end_visit(s, events)


# --------------------------------------------------------------------------------------------------
# End of a visit, next visit, end of the game


def _end_visit(s: State, events: list[Event]) -> None:
    comp = s.comp
    for seat, p in enumerate(s.players):  # R51: two equal influence tiles buy the special card
        for t, count in enumerate(p.tiles):
            if count < 2:
                continue
            p.tiles[t] -= 2
            s.supply[t] += 2
            card = comp.special_for_type[t]
            source = _release_special(s, card)
            p.specials.append(card)
            events.append(
                event("special_card", seat=seat, card=comp.card_ids[card], source=source, rule="R51")
            )
    for city in current_cities(s):  # R52: unclaimed bonus tiles of this province leave the game
        s.bonus_on[city] = -1
    s.court[comp.elephant] = False  # R53: an unwon province tile leaves the game
    s.court[comp.grand_mogul] = True  # R54: the crown goes back to the court (after visit 12 too) ...
    s.crown_city = -1  # ... and the crowned palace stays as an ordinary palace
    nxt = next((t for t in range(s.visit + 1, len(s.tile_province)) if s.tile_province[t] >= 0), 0)
    if not nxt:
        _end_game(s, events)
        return
    # R55: start player to the left, next province, court refilled, new display, R20.
    s.start = (s.start + 1) % s.n
    s.visit = nxt
    for t in range(len(comp.influence)):
        if not s.court[t] and s.supply[t]:
            s.supply[t] -= 1
            s.court[t] = True
    s.court[comp.elephant] = True
    _deal_display(s, events)
    for p in s.players:
        p.in_visit = True
        p.colour = -1
    s.phase = TURN
    s.current = s.start
    events.append(
        event(
            "visit_started",
            visit=nxt,
            province=comp.province_ids[s.tile_province[nxt]],
            start_player=s.start,
            display=[comp.card_ids[c] for c in s.display],
            rule="R55",
        )
    )


def _release_special(s: State, card: int) -> int | None:
    """Take a special card from wherever it is (R51): beside the board (None) or a player's hand."""
    if card in s.unowned_specials:
        s.unowned_specials.remove(card)
        return None
    for seat, p in enumerate(s.players):
        if card in p.specials:
            p.specials.remove(card)
            return seat
    raise AssertionError(f"special card {card} is nowhere")  # pragma: no cover - state invariant


def _deal_display(s: State, events: list[Event]) -> None:
    """R15 / R55 step 5: 2 x players - 1 face-up cards (fewer only if deck and discard run dry, X1)."""
    for _ in range(s.comp.display_size[s.n]):
        card = _draw(s, events)
        if card < 0:
            break
        s.display.append(card)


def _end_game(s: State, events: list[Event]) -> None:
    """R60-R61: after the last visit (its R51 exchange included) every hand scores its card bonus."""
    comp = s.comp
    bonus = [scoring.card_bonus(comp, p.hand, p.specials) for p in s.players]
    for p, points in zip(s.players, bonus, strict=True):
        p.score += points
    s.final_bonus = bonus
    s.phase = OVER
    events.append(
        event(
            "game_over",
            card_bonus=bonus,
            scores=[p.score for p in s.players],
            hands=[[comp.card_ids[c] for c in p.hand] for p in s.players],
            rule="R61",
        )
    )
