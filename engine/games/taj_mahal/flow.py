"""The automatic steps between decisions: the rest of a withdrawal, draws, the end of a visit, the next
visit and the end of the game.

Everything that needs no choice runs here inside ``apply`` (prizes, bonus tiles, scoring, draws, the
special-card exchange, refills, the final bonus), as does any decision whose every option leads to the
same state (X2, X8).
"""

from __future__ import annotations

from engine.core import Event, event

from . import scoring
from .components import CARD, POINTS, SPECIAL, STANDARD
from .legal import current_cities, free_cities
from .state import OVER, TAKE, TURN, State


def next_in_visit(s: State, seat: int) -> int:
    """R21/R21a: the next seat clockwise still in the visit (``seat`` itself when it is alone), or -1."""
    players, n = s.players, s.n
    for step in range(1, n + 1):
        nxt = (seat + step) % n
        if players[nxt].in_visit:
            return nxt
    return -1


def place_regular(s: State, seat: int, city: int) -> None:
    """R36, R38: a regular palace; it takes the bonus tile still lying on the city."""
    s.regular[city] = seat
    s.to_place -= 1
    s.placed = True
    bonus = s.bonus_on[city]
    if bonus >= 0:
        s.bonus_on[city] = -1
        s.bonus_taken.append(bonus)


def place_crown(s: State, seat: int, city: int) -> None:
    """R37: the crowned palace may stand beside any palace; it never takes a bonus tile (R38)."""
    s.crowned[city] = seat
    s.crown_city = city
    s.crown_pending = False
    s.placed = True


def continue_withdrawal(s: State, seat: int, events: list[Event]) -> None:
    """Step 3 (D2) until a real choice is left, then steps 4-9.

    Regular palaces come before the crowned one; the order changes nothing (X3).  When the placement
    set is forced (as many free cities as palaces, X8; fewer, X4) the engine places them itself."""
    ids = s.comp.city_ids
    if s.to_place:
        free = free_cities(s)
        if len(free) > s.to_place:
            return
        for city in free:
            place_regular(s, seat, city)
            events.append(event("palace", seat=seat, city=ids[city], crowned=False, rule="X8"))
        s.to_place = 0  # X4: palaces without a free city are skipped
    if s.crown_pending:
        cities = current_cities(s)
        if len(cities) > 1:
            return
        place_crown(s, seat, cities[0])
        events.append(event("palace", seat=seat, city=ids[cities[0]], crowned=True, rule="X8"))
    _score_withdrawal(s, seat, events)
    # Step 9 (R48): 2 cards, 1 for the last player of the visit; fewer if the display ran short (X1).
    s.to_take = 2 if any(q.in_visit for q in s.players) else 1
    s.phase = TAKE
    continue_taking(s, seat, events)


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
                draw_into_hand(s, seat, "R42", events)
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
        draw_into_hand(s, seat, "R47", events)


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


def draw_into_hand(s: State, seat: int, rule: str, events: list[Event]) -> None:
    """A secret draw (R64): only the drawer learns the card; others see that a card was drawn."""
    card = _draw(s, events)
    if card < 0:
        return
    s.players[seat].hand.append(card)
    s.gen[card] = s.reshuffles
    events.append(event("drew", [seat], seat=seat, card=s.comp.card_ids[card], rule=rule))
    events.append(event("drew", "others", seat=seat, card=None, rule=rule))


def take_card(s: State, seat: int, card: int) -> None:
    """D3: a display card goes to the hand in public view (R65), so it joins ``known``."""
    s.display.remove(card)
    p = s.players[seat]
    p.hand.append(card)
    p.known.append(card)
    s.to_take -= 1


def continue_taking(s: State, seat: int, events: list[Event]) -> None:
    """D3 until a real choice is left (X2: take all when the display holds no more than allowed),
    then step 10: the turn passes on, or the visit ends (R50)."""
    if s.to_take and len(s.display) > s.to_take:
        return
    ids = s.comp.card_ids
    for card in list(s.display[: s.to_take]):
        take_card(s, seat, card)
        events.append(event("took", seat=seat, card=ids[card], rule="X2"))
    s.to_take = 0
    nxt = next_in_visit(s, seat)
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
    deal_display(s, events)
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


def deal_display(s: State, events: list[Event]) -> None:
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


def max_decisions(players: int) -> int:
    """A proven bound on the decisions of a game (engine.core.Game.max_decisions).

    There is one visit per province (R19).  In a visit every player withdraws once (R22, R32); each
    withdrawal takes at most 2 display cards (R48, one for the last player: ``2n - 1`` take decisions)
    and draws at most one card (R47); palace decisions place one regular palace each on a free city
    of the province, plus one crowned palace (R36, R37).  Every play lays exactly one coloured card
    from the hand (R24), so the plays of the whole game are at most the cards that ever enter the
    hands: the opening hands (R14), ``3n - 1`` per visit (takes and R47 draws) and the card bonus
    tiles (R42).  Special cards only accompany a coloured card (R57).
    """
    comp, n = STANDARD, players
    visits = len(comp.province_cities)
    card_bonus = sum(v for k, v in zip(comp.bonus_kind, comp.bonus_value, strict=True) if k == CARD)
    plays: int = n * comp.hand_size[n] + visits * (3 * n - 1) + card_bonus
    palaces = max(len(cities) for cities in comp.province_cities) + 1
    return plays + visits * (n + palaces + 2 * n - 1)


def to_move(s: State) -> int | None:
    """The seat of the pending decision, ``None`` once over."""
    return None if s.phase == OVER else s.current
