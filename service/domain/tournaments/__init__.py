"""Tournaments: created, read and cancelled (``tournaments``), run (``scheduler``), their record read
(``records``, ``standings``), and the pure rules of pairing and points (``pairing``)."""
