"""What the stores make of Redis's replies: our clients never decode, so a reply's strings are bytes
(or, from a script's table, numbers) until a store reads them as text."""

from __future__ import annotations

from typing import Any


def decoded(value: Any) -> str:
    """A reply's value as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def scored(rows: Any) -> list[tuple[str, float]]:
    """Sorted-set rows read ``withscores``, as text and numbers."""
    return [(decoded(member), float(score)) for member, score in rows]
