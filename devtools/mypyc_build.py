"""Which engine modules the optional mypyc build compiles (``scripts/build_mypyc.sh``), and a check that
they still do.

The build is optional and slow (a C compiler over one large file), so nothing ran it while the rules
changed, and one nested lambda stopped it for a whole release (mypyc's internal error on
``engine/games/taj_mahal/legal.py``).  What breaks is mypyc's own translation, not the C compiler, and
the translation alone takes a few seconds: ``python -m devtools.mypyc_build --check`` runs it (the
tests do, ``tests/engine/test_mypyc_build.py``), ``--list`` prints the modules for the build script.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The role modules compiled in every game package (where the game has one): the rules on the bots'
#: hot path and the component data they read.  Not compiled: ``engine/core.py`` and each game's
#: package, ``game`` and ``state`` modules (runtime Protocols, ``__init_subclass__`` and
#: ``cls.__new__`` are outside what mypyc compiles), and the cold modules (schemas, explanations,
#: scenarios, views).
COMPILED_ROLES = (
    "legal",
    "actions",
    "flow",
    "setup",
    "scoring",
    "heuristic",
    "payments",
    "palaces",
    "monthly_events",
    "cards",
    "cubes",
    "exam",
    "gifts",
    "military",
    "ministries",
    "rewards",
    "voyages",
    "components",
)


def compiled_modules(root: Path) -> list[str]:
    """The compiled modules' paths, relative to ``root`` (the directory holding ``engine/``)."""
    return [
        f"{game.relative_to(root)}/{role}.py"
        for game in sorted((root / "engine" / "games").iterdir())
        if (game / "__init__.py").is_file()
        for role in COMPILED_ROLES
        if (game / f"{role}.py").is_file()
    ]


def check(root: Path) -> int:
    """Translate the compiled modules to C as the build would, without compiling the C; mypyc reports
    what it cannot translate (and raises on its own internal errors)."""
    from mypy.errors import CompileError
    from mypy.fscache import FileSystemCache
    from mypyc.build import generate_c, get_mypy_config
    from mypyc.options import CompilerOptions

    paths = compiled_modules(root)
    options = CompilerOptions()
    cache = FileSystemCache()
    sources, all_sources, mypy_options = get_mypy_config(paths, None, options, cache)
    try:
        generate_c(all_sources, mypy_options, [(sources, None)], cache, compiler_options=options)
    except CompileError as error:
        print("\n".join(error.messages), file=sys.stderr)
        return 1
    print(f"mypyc translates all {len(paths)} compiled modules")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--list", action="store_true", help="print the compiled modules' paths")
    action.add_argument("--check", action="store_true", help="translate them to C (no C compiler)")
    args = parser.parse_args(argv)
    root = Path.cwd()
    if args.list:
        print("\n".join(compiled_modules(root)))
        return 0
    return check(root)


if __name__ == "__main__":
    sys.exit(main())
