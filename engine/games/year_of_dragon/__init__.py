"""In the Year of the Dragon (Stefan Feld, 2007), base game, 2-5 players: RULES.md is the specification."""

from .game import YearOfDragon

GAME = YearOfDragon()
