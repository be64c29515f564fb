"""Which steps of Taj Mahal can be taken back (engine/takeback.py): what one step draws or reveals.

Hidden (R64): the normal cards in a hand that were dealt or drawn from the deck (not those taken from
the display in public view, R65, kept in ``Player.known``; special cards are public, R59) and the deck.
So a step blocks a takeback when it

- draws from the deck: a card drawn for a bonus tile or a first-turn withdrawal (R42, R47), the discard
  pile reshuffled into a new deck (R49), the next visit's display dealt (R55): random, the card hidden;
- lays a hidden hand card face up on the table (R24, R29);
- ends the game, which shows every hand (R66).

Everything else (a play of cards everybody saw taken from the display, a withdrawal and its prizes
(R32-R35), a palace placed (R36, R37), a display card taken (R48) while the visit goes on) shows nothing
new and draws nothing, and can be taken back.
"""

from __future__ import annotations

from engine.core import Action, Event
from engine.takeback import RANDOM, REVEAL, Blocker

from .components import SPECIAL
from .state import State

#: Events that draw from the face-down deck or show hidden cards, with their blocker.
_EVENTS = {
    "reshuffled": Blocker(RANDOM, "R49", "the discard pile was shuffled into a new deck"),
    "visit_started": Blocker(RANDOM, "R55", "the next visit's display was dealt from the deck"),
    "game_over": Blocker(REVEAL, "R66", "the end of the game showed every hand"),
}

_AFTER_WITHDRAWAL = (
    "R42 (a card bonus tile draws), R55 (the visit ends and the next display is dealt) or R66 (the "
    "game ends); otherwise it can be taken back"
)
#: Per action type, the reasons its step may be refused for and when (docs/api/takebacks.md); the
#: tests check every step against it.
BY_ACTION: dict[str, tuple[frozenset[str], str]] = {
    "play": (
        frozenset({REVEAL}),
        "R29 when a card was dealt or drawn face down (R64); cards taken from the display in public "
        "view (R65) and special cards (R59) show nothing",
    ),
    "withdraw": (frozenset({RANDOM, REVEAL}), "R47 when nothing was played this visit; " + _AFTER_WITHDRAWAL),
    "palace": (frozenset({RANDOM, REVEAL}), _AFTER_WITHDRAWAL),
    "crown": (frozenset({RANDOM, REVEAL}), _AFTER_WITHDRAWAL),
    "take": (
        frozenset({RANDOM, REVEAL}),
        "R55 or R66 when the visit ends with it; otherwise it can be taken back",
    ),
}


def blocker(before: State, seat: int, action: Action, after: State, events: list[Event]) -> Blocker | None:
    """What ``seat``'s ``action`` on ``before`` (and the forced steps after it) drew or revealed."""
    for ev in events:
        if ev["type"] == "drew":
            return Blocker(RANDOM, ev["rule"], "a card was drawn from the face-down deck")
        found = _EVENTS.get(ev["type"])
        if found is not None:
            return found
    if action["type"] == "play":
        comp, known = before.comp, before.players[seat].known
        for card_id in (action["card"], action["extra"]):
            if not card_id:
                continue
            card = comp.card_index[card_id]
            if comp.card_kind[card] != SPECIAL and card not in known:
                return Blocker(REVEAL, "R29", f"card {card_id} from the hidden hand was laid face up")
    return None
