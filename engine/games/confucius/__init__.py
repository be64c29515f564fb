"""Confucius (Alan Paull, 2008): rules engine.  See RULES.md beside this file."""

from .game import Confucius

GAME = Confucius()
