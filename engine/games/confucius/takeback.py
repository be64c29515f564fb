"""Which steps of Confucius can be taken back (engine/takeback.py): what one step draws or reveals.

Hidden (R114-R116): the Confucius cards in hands, the reward cards in hands, the cards laid face down at
a student and those set aside at the End of Round discard; the orders of the Confucius deck, the reward
stack, the official-tile stack and the candidate stack.  So a step blocks a takeback when it

- draws or turns up something from a face-down pile (random): Confucius cards drawn (R38, R54, R55,
  R70) or the deck rebuilt from the discards (R38), a reward card drawn (R76), an official tile placed
  from the stack (R97), the next candidate turned up (R89);
- shows what a seat held hidden (reveal): cards paid (R37) or discarded for Commercial Income (R54), a
  reward card played (R69), the tutoring cards at the exam (R87), the End of Round discards (R98);
- chooses a priced action (R37): it is offered only to a hand that can pay, so choosing it tells the
  others the hand is worth the price; and the payment is played at once when the whole hand is the one
  way to pay (``flow.forced``), so whether it was tells them more.

Each of the last two only when the others could not already tell: counted against everything nobody can
place (deck, hands, face-down and set-aside cards, as ``view.determinize`` pools them), the hand surely
holds the cards shown (engine.takeback.surely_held), or every hand it may be can pay the price and
would pay it the same way (at once or by a choice).  The
known opening hands (R19) are not counted, as ``determinize`` does not count them: a payment the
opening hand alone explains still counts as revealing.

Everything else (a card laid face down for tutoring (R83, R116), cards kept at the End of Round while
others still choose (R98), the unpaid actions, passes, choices of lands, candidate spaces, influence and
Chief Minister) shows nothing new and draws nothing, and can be taken back.
"""

from __future__ import annotations

from engine.core import Action, Event
from engine.takeback import RANDOM, REVEAL, Blocker, surely_held

from .actions import PRICES, REWARD_CARD, REWARD_TYPES
from .cards import CARD_FIELDS, KINDS, VALUES, card_set, hand_size
from .components import REWARD_INDEX, REWARDS
from .ministries import space_of
from .state import State

#: Events that take something from a face-down pile, with their blocker.
_DRAWS = {
    "deck_reshuffled": Blocker(RANDOM, "R38", "the discard pile was shuffled into a new deck"),
    "reward_drawn": Blocker(RANDOM, "R76", "an Emperor's Reward card was drawn from the face-down stack"),
    "official_placed": Blocker(RANDOM, "R97", "an official tile was placed from the face-down stack"),
    "candidate_revealed": Blocker(RANDOM, "R89", "the next candidate was turned up from the face-down stack"),
    "candidate_removed": Blocker(RANDOM, "R89", "a candidate was turned up from the face-down stack"),
}
#: Events that show what a seat held hidden, with their blocker.
_SHOWS = {
    "exam_decided": Blocker(REVEAL, "R87", "the tutoring cards laid face down were revealed"),
    "cards_discarded": Blocker(REVEAL, "R98", "the cards set aside at the End of Round were revealed"),
}
#: The rule of a draw of Confucius cards, by the action that draws.
_DRAW_RULES = {"commercial_income": "R54", "tax_income": "R55", "reward_cash": "R70"}

_COURT = "R87, R89, R97, R98 when it ends Imperial Favour and the Court Phase turns or shows cards"
#: Per action type, the reasons its step may be refused for and when (docs/api/takebacks.md); the
#: tests check every step against it.
BY_ACTION: dict[str, tuple[frozenset[str], str]] = {
    **{
        kind: (frozenset({RANDOM, REVEAL}), f"R37 when its price tells what the hand is worth; {_COURT}")
        for kind in (
            "bribe_official",
            "secure_official",
            "nominate_student",
            "force_examination",
            "buy_junks",
            "start_voyage",
            "recruit_army",
            "invade_foreign_land",
            "buy_gift",
        )
    },
    **{
        kind: (frozenset({RANDOM, REVEAL}), _COURT)
        for kind in (
            "give_gift",
            "transfer_influence",
            "petition_reassign_junks",
            "petition_replace_student",
            "petition_swap_officials",
            "petition_redeploy_army",
            "petition_replace_influence",
            "no_action",
            "give_influence",
            "place_candidate",
        )
    },
    "choose_distant_land": (frozenset({RANDOM, REVEAL}), "R76 when a reward card is drawn; " + _COURT),
    "pay": (frozenset({RANDOM, REVEAL}), "R37: the cards paid, unless the hand surely held them; " + _COURT),
    "commercial_income": (frozenset({RANDOM, REVEAL}), "R54: cards drawn; the cards paid"),
    "tax_income": (frozenset({RANDOM, REVEAL}), "R55: cards drawn; " + _COURT),
    "reward_cash": (frozenset({RANDOM, REVEAL}), "R70: cards drawn; R69: the hidden reward card played"),
    **{
        kind: (frozenset({RANDOM, REVEAL}), "R69: the hidden reward card played; " + _COURT)
        for kind in (
            "reward_gift",
            "reward_extra_action",
            "reward_bribery",
            "reward_recruit_army",
            "reward_emperor_insulted",
        )
    },
    "tutor": (
        frozenset({RANDOM, REVEAL}),
        "laid face down: can be taken back, unless it was the last card and R87 reveals the exam",
    ),
    "end_tutoring": (frozenset({RANDOM, REVEAL}), "R87 when the exam is decided; " + _COURT),
    "keep_cards": (
        frozenset({RANDOM, REVEAL}),
        "set aside face down: can be taken back, unless R98 reveals the discards (the last to choose)",
    ),
    "choose_chief_minister": (frozenset(), "never: public, and nothing follows but the first turn"),
    "pass": (frozenset(), "never: public, and nothing follows but the next turn or Imperial Favour"),
}


def _card_pool(st: State) -> list[int]:
    """Per kind, the Confucius cards a spectator cannot place (the least anybody knows)."""
    pool = [0] * len(KINDS)
    for k in st.deck:
        pool[k] += 1
    for p in range(st.n):
        for k in KINDS:
            pool[k] += st.hands[3 * p + k] + st.tutor[4 * p + 1 + k] + st.held[3 * p + k]
    return pool


def _reward_pool(st: State) -> list[int]:
    """Per reward card, the copies a spectator cannot place: the stack and every hand."""
    pool = [0] * len(REWARDS)
    for card in st.reward_deck:
        pool[card] += 1
    for hand in st.rewards:
        for card in hand:
            pool[card] += 1
    return pool


def _hands(pool: list[int], size: int) -> list[tuple[int, ...]]:
    """Every hand of ``size`` Confucius cards (counts per kind) drawn from ``pool``: what an observer
    thinks a hidden hand may be (at most a few dozen: three kinds)."""
    a, b, _ = pool
    return [
        (x, y, size - x - y)
        for x in range(min(a, size) + 1)
        for y in range(min(b, size - x) + 1)
        if size - x - y <= pool[2]
    ]


def _price_tells(pool: list[int], size: int, currency: int, price: int) -> str | None:
    """What choosing an action of this price tells about a hidden hand of ``size`` cards from ``pool``,
    or ``None`` when every possible hand would show the same: it is offered only to a hand that can pay
    (R37), and the payment is played at once when the whole hand is the one way to pay (flow.forced),
    which also shows."""
    values = VALUES[currency]
    outcomes = set()
    for hand in _hands(pool, size):
        worth = sum(k * v for k, v in zip(hand, values, strict=True))
        if worth < price:
            return f"choosing it showed the hidden hand can pay {price}"
        cheapest = min(v for k, v in zip(hand, values, strict=True) if k) if any(hand) else 0
        outcomes.add(worth - cheapest < price)  # lone: no card can be left out
    if len(outcomes) > 1:
        return "whether the payment took the whole hand showed what the hidden hand holds"
    return None


def _drawn(ev: Event) -> int:
    """How many Confucius cards a ``drew`` event took (the owner's form names them, the others' counts)."""
    if "count" in ev:
        return int(ev["count"])
    return sum(int(ev[f]) for f in CARD_FIELDS)


def _price(before: State, seat: int, action: Action) -> tuple[int, int] | None:
    """The currency and price a priced action's hand must cover (R37), ``None`` for an unpriced one."""
    kind = action["type"]
    if kind in PRICES:
        return PRICES[kind](before, seat, action)
    if kind == "reward_bribery" and before.owner[space_of(action)] >= 0:  # R73 (ii)
        return PRICES["bribe_official"](before, seat, action)
    return None


def blocker(before: State, seat: int, action: Action, after: State, events: list[Event]) -> Blocker | None:
    """What ``seat``'s ``action`` on ``before`` (one step: the decision or a forced step) drew or
    revealed."""
    kind = action["type"]
    for ev in events:
        found = _DRAWS.get(ev["type"])
        if found is not None:
            return found
        if ev["type"] == "drew" and _drawn(ev):
            return Blocker(RANDOM, _DRAW_RULES.get(kind, "R38"), "Confucius cards were drawn from the deck")
    for ev in events:
        found = _SHOWS.get(ev["type"])
        if found is not None:
            return found
    if kind in ("pay", "commercial_income"):
        shown = card_set(action)
        if any(shown) and not surely_held(_card_pool(before), hand_size(before.hands, seat), shown):
            rule = "R37" if kind == "pay" else "R54"
            return Blocker(REVEAL, rule, "Confucius cards from the hidden hand were shown")
    if kind in REWARD_TYPES:
        card = REWARD_INDEX[action["card"]] if kind == "reward_bribery" else REWARD_CARD[kind]
        played = [int(c == card) for c in range(len(REWARDS))]
        if not surely_held(_reward_pool(before), len(before.rewards[seat]), played):
            return Blocker(REVEAL, "R69", f"the hidden reward card {REWARDS[card]} was played")
    price = _price(before, seat, action)
    if price is not None:
        told = _price_tells(_card_pool(before), hand_size(before.hands, seat), *price)
        if told is not None:
            return Blocker(REVEAL, "R37", told)
    return None
