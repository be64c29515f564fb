"""RQ's per-job log lines are DEBUG records: a busy worker's log at INFO is not a line per job."""

from __future__ import annotations

import logging

from workers.worker import _per_job_lines_at_debug


def record(func: str) -> logging.LogRecord:
    rec = logging.LogRecord("rq.worker", logging.INFO, "base.py", 1, "Worker w: %s", ("job",), None, func)
    return rec


def test_per_job_lines_move_to_debug_and_other_info_lines_stay():
    logger = logging.getLogger("rq.worker")
    level = logger.level
    try:
        logger.setLevel(logging.INFO)
        for func in ("dequeue_job_and_maintain_ttl", "handle_job_success", "_finalize_success"):
            rec = record(func)
            assert _per_job_lines_at_debug(rec) is False  # dropped at INFO
            assert (rec.levelno, rec.levelname) == (logging.DEBUG, "DEBUG")
        startup = record("bootstrap")
        assert _per_job_lines_at_debug(startup) is True and startup.levelno == logging.INFO
        logger.setLevel(logging.DEBUG)
        assert _per_job_lines_at_debug(record("_finalize_success")) is True  # shown when DEBUG is on
    finally:
        logger.setLevel(level)
