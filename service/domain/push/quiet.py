"""Quiet hours: a window of the player's own day in which nothing is pushed (pure).

A subscription's quiet hours are a time zone (an IANA name, ``Europe/Paris``: the window follows the
player's clock through daylight saving time, which a fixed UTC offset would not) and a window of local
times, ``start`` to ``end`` (``"HH:MM"``, 24-hour; ``22:00`` to ``07:00`` crosses midnight).  A message
due inside the window waits for its end (:func:`quiet_until`); one whose TTL runs out before then is
dropped (a clock warning whose deadline falls in the night is not sent in the morning).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.domain.errors import invalid

_HHMM = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")


def check_quiet_hours(value: Any, field: str = "quiet_hours") -> dict[str, str] | None:
    """``value`` as stored (``{"time_zone", "start", "end"}``), ``None`` for none, or
    :class:`~service.domain.errors.Invalid` naming the part that is wrong."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise invalid(field, 'is {"time_zone": "Europe/Paris", "start": "22:00", "end": "07:00"} or null')
    unknown = sorted(set(value) - {"time_zone", "start", "end"})
    if unknown:
        raise invalid(f"{field}.{unknown[0]}", "unknown field (time_zone, start, end)")
    zone = value.get("time_zone")
    if not isinstance(zone, str) or not zone:
        raise invalid(f"{field}.time_zone", "an IANA time zone name is required, e.g. Europe/Paris")
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise invalid(f"{field}.time_zone", f"{zone[:60]!r} is not a known IANA time zone") from None
    for part in ("start", "end"):
        text = value.get(part)
        if not isinstance(text, str) or _HHMM.fullmatch(text) is None:
            raise invalid(f"{field}.{part}", "a local time HH:MM (24-hour, 00:00 to 23:59) is required")
    if value["start"] == value["end"]:
        raise invalid(f"{field}.end", "must differ from start (a window of no time, or of all day)")
    return {"time_zone": zone, "start": value["start"], "end": value["end"]}


def _minutes(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def quiet_until(quiet: dict[str, str] | None, at: float) -> float | None:
    """When the quiet hours around ``at`` (epoch seconds) end, or ``None`` when ``at`` is outside them."""
    if not quiet:
        return None
    zone = ZoneInfo(quiet["time_zone"])
    local = datetime.fromtimestamp(at, zone)
    now = local.hour * 60 + local.minute
    start, end = _minutes(quiet["start"]), _minutes(quiet["end"])
    inside = start <= now < end if start < end else (now >= start or now < end)
    if not inside:
        return None
    ends = local.replace(hour=end // 60, minute=end % 60, second=0, microsecond=0)
    if ends <= local:
        ends = (ends + timedelta(days=1)).replace(tzinfo=zone)  # wall-clock arithmetic: the next day's
    return ends.timestamp()
