"""Decimal numbers in text from outside (a query parameter, a path, a webhook receiver's header): ASCII
digits only.

``str.isdigit`` is true for every Unicode digit: for ``"²"``, which ``int`` and ``float`` refuse (an
export cursor of ``²`` was a 500 where a 400 was due, found by the contract fuzzer), and for ``"٣"``,
which ``int`` reads as 3 (a cursor no page ever gave).  Every check of client text before ``int``
goes through :func:`digits`."""

from __future__ import annotations


def digits(text: str) -> bool:
    """Whether ``text`` is one or more of the ASCII digits ``0``-``9``."""
    return text.isascii() and text.isdigit()
