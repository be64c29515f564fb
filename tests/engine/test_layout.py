"""Every game package has the same shape (docs/adding-a-game.md): a module name always holds the same role,
so a name two games use must be used by all of them, and the shared roles exist everywhere."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from engine.registry import GAMES

GAMES_DIR = Path(__file__).resolve().parents[2] / "engine" / "games"

#: The shared roles of docs/adding-a-game.md, by module name.
SHARED = {
    "__init__",
    "components",
    "state",
    "setup",
    "legal",
    "actions",
    "flow",
    "explain",
    "scoring",
    "view",
    "heuristic",
    "takeback",
    "scenario",
    "inputs",
    "outputs",
    "game",
}


def _modules(game: str) -> set[str]:
    return {p.stem for p in (GAMES_DIR / game).glob("*.py")}


def test_every_game_has_every_shared_module() -> None:
    for game in GAMES:
        assert _modules(game) >= SHARED, f"{game} lacks {sorted(SHARED - _modules(game))}"


def test_a_module_name_used_by_two_games_is_used_by_all() -> None:
    uses = Counter(name for game in GAMES for name in _modules(game))
    partial = {name: count for name, count in uses.items() if 1 < count < len(GAMES)}
    assert not partial, f"module names shared by some games only: {partial}"


def test_the_retired_names_are_gone() -> None:
    """``moves.py`` and ``refusals.py`` were the same roles as ``legal.py`` and ``explain.py``;
    ``schemas.py`` and ``contract.py`` are now ``inputs.py`` and ``outputs.py`` (names that tell the two
    kinds of schema apart); ``rules.py`` held the entry points that engine.core.GameBase now implements
    once for every game."""
    for game in GAMES:
        assert not {"moves", "refusals", "schemas", "contract", "rules"} & _modules(game), game
