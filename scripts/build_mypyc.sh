#!/usr/bin/env bash
# Optional build: the engine's rule modules compiled with mypyc, 1.4-2x the random decisions per second
# of the interpreted engine (docs/adding-a-game.md, "Speed").  The compiled copy goes to build/mypyc/
# (git-ignored); a process uses it only when started with it first on its path and without the current
# directory in front (Python 3.11's PYTHONSAFEPATH):
#
#     scripts/build_mypyc.sh
#     PYTHONSAFEPATH=1 PYTHONPATH=build/mypyc:. .venv/bin/python -m bench.engine --game all --versus-liars-poker
#
# The sources stay the truth: rebuild after editing a compiled module (a stale build plays the old
# rules).  Not compiled: engine/core.py and each game's package, game and state modules (runtime
# Protocols, __init_subclass__ and cls.__new__ are outside what mypyc compiles), and the cold modules
# (schemas, explanations, scenarios, views).  Takes a few CPU minutes (one large C file at -O3).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-$PWD/.venv/bin/python}"
out=build/mypyc
rm -rf "$out"
mkdir -p "$out"
cp -r engine "$out/"
find "$out" -name __pycache__ -prune -exec rm -rf {} +
cd "$out"
hot=(legal actions flow setup scoring heuristic payments palaces monthly_events
     cards cubes exam gifts military ministries rewards voyages components)
modules=()
for game in engine/games/*/; do
    for name in "${hot[@]}"; do
        if [[ -f "$game$name.py" ]]; then modules+=("$game$name.py"); fi
    done
done
"$python" -m mypyc "${modules[@]}"
rm -rf build
echo "compiled ${#modules[@]} modules into $out (use: PYTHONSAFEPATH=1 PYTHONPATH=$out:.)"
