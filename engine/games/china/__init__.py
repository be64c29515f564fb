"""China (Michael Schacht, 2005) on the Border Disputes board: houses, emissaries, ports, borders."""

from .game import China

GAME = China()
