"""tests/conftest.py's promise, kept in a run of its own: a test that leaves a SIGTERM handler behind (as
an RQ worker run in the test process does) does not hand it to the next test, whose forked pool then
ends at once (the CI run that hung for good in ``Pool.terminate``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TESTS = '''
import multiprocessing as mp
import signal


def test_a_leaves_a_handler():
    signal.signal(signal.SIGTERM, lambda signum, frame: None)  # stop "after the job", as RQ's does


def test_b_forks_a_pool_that_terminate_ends():
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    with mp.get_context("fork").Pool(2) as pool:  # leaving the block terminates the pool
        assert pool.map(abs, [-1, -2]) == [1, 2]
'''


def test_a_handler_left_by_one_test_is_gone_before_the_next(tmp_path: Path) -> None:
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_order.py").write_text(TESTS)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--timeout", "30", str(tmp_path / "test_order.py")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout + run.stderr
