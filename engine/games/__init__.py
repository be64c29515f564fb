"""One package per game; each exposes ``GAME`` implementing :class:`engine.core.Game`."""
