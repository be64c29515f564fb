"""Taj Mahal (Reiner Knizia, alea 2000) for 3-5 players; rules in RULES.md beside this file."""

from .game import TajMahal

GAME = TajMahal()
