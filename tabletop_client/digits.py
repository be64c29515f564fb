"""Decimal numbers in text from outside (a command line, a gateway's rate-limit header): ASCII digits
only.  ``str.isdigit`` is true for ``"²"``, which ``int`` refuses, and for ``"٣"``, which it reads as 3.
(The server has the same check, ``service.digits``; the client imports nothing of the server.)"""

from __future__ import annotations


def digits(text: str) -> bool:
    """Whether ``text`` is one or more of the ASCII digits ``0``-``9``."""
    return text.isascii() and text.isdigit()
