"""Bots that play any game through the :class:`engine.core.Game` contract alone."""
