"""What every test shares: each test leaves the process's signal handlers as it found them.

An RQ worker run in the test process (``LaneWorker(...).work(burst=True)``) installs its own SIGTERM and
SIGINT handlers, which ask it to stop after its job and return.  Left in place, they outlive the test:
a later test in the same xdist worker that forks (a benchmark's ``multiprocessing.Pool``) hands them to
its children, whose pool then cannot end them with SIGTERM, and the run hangs in ``Pool.terminate``.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

#: The signals whose handlers tests (or the libraries they drive) may change.
KEPT = (signal.SIGTERM, signal.SIGINT)


@pytest.fixture(autouse=True)
def _signal_handlers_restored() -> Iterator[None]:
    saved = {signum: signal.getsignal(signum) for signum in KEPT}
    yield
    for signum, handler in saved.items():
        if signal.getsignal(signum) is not handler and handler is not None:
            signal.signal(signum, handler)
