"""Bot seats: the levels the API accepts, and the one hook where the service hands a turn to a bot.

The workers (next issue) play bot seats; the service only announces that a bot is to move.  Every write
that can leave a bot seat to move (match creation, a human's move, a bot's move) calls
:func:`bot_turn_pending` exactly once, after its commit, with the version that commit produced.
"""

from __future__ import annotations

from typing import Any

LEVELS = ("random", "easy", "normal", "hard")
DEFAULT_LEVEL = "normal"
DEFAULT_THINK_MS = 1000
MAX_THINK_MS = 60_000

#: RQ queue the bot jobs go to, and the job the hook will enqueue (by name: the service never imports
#: the workers).
QUEUE = "bots"
JOB = "workers.jobs.play_bot_turn"


def is_bot(seat: dict[str, Any]) -> bool:
    return seat["kind"] == "bot"


def bot_turn_pending(match_id: str, version: int, seat: dict[str, Any]) -> None:
    """HOOK: bot seat ``seat`` must move in ``match_id`` at ``version``.

    The bots issue enqueues ``JOB(match_id, version)`` on queue ``QUEUE`` here, with job id
    ``bot:<match_id>:<version>`` so duplicates collapse.  Until then bot seats simply wait.
    """
