"""The optional mypyc build (scripts/build_mypyc.sh) keeps compiling: issue 46's engine target is met
with it, and nothing else would notice a rule module it can no longer translate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from devtools.mypyc_build import compiled_modules
from engine.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]


def test_every_game_compiles_its_rules_and_components() -> None:
    modules = compiled_modules(ROOT)
    for game_id in GAMES:
        assert f"engine/games/{game_id}/legal.py" in modules
        assert f"engine/games/{game_id}/components.py" in modules
    assert all((ROOT / m).is_file() for m in modules)
    assert not any(m.endswith(("/state.py", "/game.py", "/__init__.py")) for m in modules)


def test_mypyc_translates_the_compiled_modules() -> None:
    """mypyc's translation to C, as the build runs it, minus the C compiler (a few seconds)."""
    done = subprocess.run(
        [sys.executable, "-m", "devtools.mypyc_build", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"mypyc translates all {len(compiled_modules(ROOT))} compiled modules" in done.stdout
