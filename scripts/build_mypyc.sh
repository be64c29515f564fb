#!/usr/bin/env bash
# Optional build: the engine's rule modules compiled with mypyc, 1.1-2.4x the random decisions per
# second of the interpreted engine (docs/adding-a-game.md, "Speed").  The compiled copy goes to
# build/mypyc/ (git-ignored); a process uses it only when started with it first on its path and without
# the current directory in front (Python 3.11's PYTHONSAFEPATH):
#
#     scripts/build_mypyc.sh
#     PYTHONSAFEPATH=1 PYTHONPATH=build/mypyc:. .venv/bin/python -m bench.engine --game all --versus-liars-poker
#
# The sources stay the truth: rebuild after editing a compiled module (a stale build plays the old
# rules).  Which modules are compiled, and why the others are not: devtools/mypyc_build.py, whose
# --check (run by the tests) translates them as this build does, without the C compiler.  Takes a few
# CPU minutes (one large C file at -O3).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-$PWD/.venv/bin/python}"
out=build/mypyc
rm -rf "$out"
mkdir -p "$out"
cp -r engine "$out/"
find "$out" -name __pycache__ -prune -exec rm -rf {} +
mapfile -t modules < <("$python" -m devtools.mypyc_build --list)
(( ${#modules[@]} )) || { echo "devtools.mypyc_build listed no module" >&2; exit 1; }
cd "$out"
"$python" -m mypyc "${modules[@]}"
rm -rf build
echo "compiled ${#modules[@]} modules into $out (use: PYTHONSAFEPATH=1 PYTHONPATH=$out:.)"
