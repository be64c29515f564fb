"""The ``tabletop`` command: ``serve`` the API, run a bot ``worker``, ``sweep`` for lost bot turns once,
play bot ``match``es over HTTP, run your own ``bot`` (``bot run``), write the OpenAPI ``spec``, or play an
engine ``demo``.

Every command exits :data:`DONE` when it did its work, :data:`FAILED` when the work failed (the server
or Redis refused it or could not be reached: one line on stderr says why, no traceback) and
:data:`USAGE` for a command line or a setting that cannot work, found before anything is done
(argparse's own exit status for a bad option; ``tabletop tournament`` follows the same rule)."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

#: Exit statuses (see the module).
DONE, FAILED, USAGE = 0, 1, 2
DEFAULT_SPEC = Path("openapi/openapi.json")
#: Development mode keeps its private Redis data here (append-only file), so matches survive restarts.
DEV_DATA_DIR = Path("var/redis")


def cmd_demo(args: argparse.Namespace) -> int:
    """Play one game between random bots in the terminal, printing public events."""
    from engine.core import InvalidOptions, check_players, event_visible
    from engine.registry import get_game

    game = get_game(args.game)
    try:
        check_players(game, args.players)
    except InvalidOptions as exc:
        print(f"tabletop demo: --players: {exc.message}", file=sys.stderr)
        return USAGE
    state = game.setup(args.players, None, seed=args.seed)
    rng = random.Random(args.seed)
    try:
        while game.to_move(state) is not None:
            for ev in game.apply(state, rng.choice(game.legal_actions(state))):
                if event_visible(ev, None):
                    print(json.dumps({k: v for k, v in ev.items() if k != "visible_to"}))
        print(json.dumps(game.result(state)))
        sys.stdout.flush()  # inside the try: a pipe closed early fails here, not at exit
    except BrokenPipeError:
        # The reader had enough (`tabletop demo | head`): not an error.  Python would flush stdout
        # again at exit and print a traceback, so stdout becomes /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def cmd_spec(args: argparse.Namespace) -> int:
    """Write the OpenAPI document of the registered games and the match record's JSON Schema beside it
    (no Redis needed)."""
    from engine import record_schema
    from service.config import Config
    from service.http.app import OFFLINE_REDIS_URL, create_app
    from service.http.spec import render

    text = render(create_app(Config(redis_url=OFFLINE_REDIS_URL)))
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8")
        # The match record's JSON Schema goes beside it (docs/records.md).
        Path(args.output).with_name("record.schema.json").write_text(record_schema.render(), encoding="utf-8")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the API with gunicorn; without TABLETOP_REDIS_URL, on a private Redis (development mode)."""
    # gevent patches the standard library in each server process (service.serving.Worker), after the
    # fork: this process must not import redis-py, whose names imported from ssl patching would miss.
    from devtools import private_redis as devredis
    from service import serving
    from service.config import Config

    overrides: dict[str, Any] = {}
    if args.host is not None:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    if args.connections is not None:
        overrides["max_connections"] = args.connections
    config = Config.from_env(**overrides)
    private = None
    bot_worker = None
    if not config.redis_url:
        # Webhook receivers on this machine (http://127.0.0.1:…) are what development calls: allowed
        # here, refused by default in production (issue 26 point 5).  In the environment, so the worker
        # and its delivery lane see it too; a variable the developer set wins.
        for name in ("TABLETOP_WEBHOOK_ALLOW_PRIVATE", "TABLETOP_WEBHOOK_ALLOW_HTTP"):
            os.environ.setdefault(name, "true")
        private = devredis.PrivateRedis(data_dir=str(DEV_DATA_DIR))
        config = Config.from_env(redis_url=private.start(), **overrides)
        print(f"development mode: private Redis at {config.redis_url} (data in {DEV_DATA_DIR}/)", flush=True)
        bot_worker = devredis.spawn_worker(config.redis_url)
        print(f"development mode: bot worker running beside the API (pid {bot_worker.pid})", flush=True)
    owner = os.getpid()
    try:
        serving.run(config, workers=args.workers)
    finally:
        # gunicorn forks its workers inside serving.run, and an exiting worker unwinds through here
        # too: only the process that started the Redis and the bot worker may stop them.
        if os.getpid() == owner:
            if bot_worker is not None:
                devredis.stop(bot_worker)
            if private is not None:
                private.stop()
    return 0


#: ``tabletop worker --lanes``: :data:`service.domain.matches.bots.LANES`'s names (not imported: this module
#: stays clear of redis-py, see :func:`cmd_serve`; tests/workers check they agree).
WORKER_LANES = ("quick", "think", "timeouts", "hints", "push")


def _lanes(text: str) -> str:
    """``--lanes``: names of :data:`WORKER_LANES`, comma-separated, each once."""
    names = text.split(",")
    if not names or any(n not in WORKER_LANES for n in names) or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"{text!r}: name lanes among {', '.join(WORKER_LANES)}, each once")
    return text


def cmd_worker(args: argparse.Namespace) -> int:
    """Work the bot queues of the Redis in TABLETOP_REDIS_URL until stopped."""
    from service.config import Config
    from workers.worker import run

    run(Config.from_env(), burst=args.burst, lanes=tuple(args.lanes.split(",")))
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    """Re-enqueue every pending bot turn that has no live job, once: what each worker does every
    TABLETOP_SWEEP_SECONDS, for an operator after an incident or a scheduled job of its own."""
    from service.config import Config
    from service.wiring import build
    from workers.jobs import sweep_matches

    config = Config.from_env()
    if not config.redis_url:
        print("tabletop sweep: TABLETOP_REDIS_URL is not set", file=sys.stderr)
        return 2
    from service.storage.client import STORAGE_ERRORS

    try:
        print(f"sweep: enqueued {sweep_matches(build(config).matches)} bot turn(s)")
    except STORAGE_ERRORS as exc:
        print(f"tabletop sweep: Redis at TABLETOP_REDIS_URL failed: {exc}", file=sys.stderr)
        return FAILED
    return 0


def cmd_apps(args: argparse.Namespace) -> int:
    """Register, list, rotate and revoke apps on the Redis in TABLETOP_REDIS_URL: the operator's
    side of the admin API, for a shell on the cluster.  A key is printed once, never stored plain."""
    from service.config import Config
    from service.domain.errors import MatchError
    from service.storage.client import STORAGE_ERRORS
    from service.wiring import build

    config = Config.from_env()
    if not config.redis_url:
        print(
            "tabletop apps: TABLETOP_REDIS_URL is not set (against a development server, use the admin "
            "API with TABLETOP_ADMIN_TOKEN: see docs/api/apps-and-players.md)",
            file=sys.stderr,
        )
        return 2
    # The domain as the API builds it: revoking an app reaches its webhooks, tournaments, seeks and
    # challenges too (and is announced to every API process, which ends its streams).
    accounts = build(config).accounts
    try:
        if args.action == "create":
            out: Any = accounts.create_app(args.name)
        elif args.action == "list":
            out = accounts.apps()
        elif args.action == "rotate":
            out = accounts.rotate_key(args.name)
        else:
            out = accounts.revoke_app(args.name)
    except MatchError as exc:
        print(f"tabletop apps {args.action}: {exc.message}", file=sys.stderr)
        return 1
    except STORAGE_ERRORS as exc:
        print(f"tabletop apps {args.action}: Redis at TABLETOP_REDIS_URL failed: {exc}", file=sys.stderr)
        return FAILED
    print(json.dumps(out, indent=2))
    return 0


def cmd_webhooks(args: argparse.Namespace) -> int:
    """An app's webhook endpoints and their delivery log on the Redis in TABLETOP_REDIS_URL (issue 26
    point 4): what the app's own ``/v1/apps/me/webhooks`` shows, for the operator helping an integrator
    on a shell on the cluster (no app key needed there).  Never prints a secret."""
    from service.config import Config
    from service.domain.errors import MatchError
    from service.storage.client import STORAGE_ERRORS
    from service.wiring import build

    config = Config.from_env()
    if not config.redis_url:
        print("tabletop webhooks: TABLETOP_REDIS_URL is not set", file=sys.stderr)
        return 2
    hooks = build(config).webhooks
    try:
        if args.action == "list":
            out: Any = hooks.endpoints(args.app)
        elif args.action == "deliveries":
            found, cursor = hooks.deliveries(
                args.app, args.endpoint, status=args.status, before=args.before, limit=args.limit
            )
            out = {"deliveries": found, "next_cursor": cursor}
        elif args.action == "redeliver":
            out = hooks.redeliver(args.app, args.endpoint, args.message)
        else:
            out = hooks.ping(args.app, args.endpoint)
    except MatchError as exc:
        print(f"tabletop webhooks {args.action}: {exc.message}", file=sys.stderr)
        return 1
    except STORAGE_ERRORS as exc:
        print(f"tabletop webhooks {args.action}: Redis at TABLETOP_REDIS_URL failed: {exc}", file=sys.stderr)
        return FAILED
    print(json.dumps(out, indent=2))
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    """Play all-bot matches through the HTTP API and print the results table.  A lineup that cannot
    play (an unknown level, a seat count out of the game's range, no match to play) is refused before
    any request."""
    from engine.ai import LEVELS
    from engine.core import InvalidOptions, check_players
    from engine.registry import get_game
    from tabletop_client import ApiError, Client, botmatch

    levels = args.seats.split(",")
    unknown = [level for level in levels if level not in LEVELS]
    try:
        if unknown:
            raise InvalidOptions("seats", f"unknown level(s) {unknown}; the levels are {list(LEVELS)}")
        check_players(get_game(args.game), len(levels))
        if args.games < 1:
            raise InvalidOptions("games", "play at least one match")
    except InvalidOptions as exc:
        print(f"tabletop match: --{exc.field.replace('players', 'seats')}: {exc.message}", file=sys.stderr)
        return USAGE
    try:
        entries = botmatch.play(Client(args.url), args.game, levels, args.games, think_ms=args.think_ms)
    except (ApiError, OSError) as exc:  # refused by the server, or no server there (or it timed out)
        print(f"tabletop match: {args.url}: {exc}", file=sys.stderr)
        return FAILED
    print(botmatch.table(entries))
    return 0


def cmd_dataset(args: argparse.Namespace) -> int:
    """Play all-bot matches on a server's workers (``--url``, or a private development server with
    ``--local``, the default) and write their records and a datasheet (:mod:`tabletop_client.datasets`).
    A lineup that cannot play is refused before any match is made."""
    from engine.ai import DEFAULT_THINK_MS, LEVELS
    from engine.core import InvalidOptions, check_players
    from engine.registry import get_game
    from tabletop_client import ApiError, Client, datasets

    levels = args.levels.split(",")
    unknown = [level for level in levels if level not in LEVELS]
    try:
        if unknown:
            raise InvalidOptions("levels", f"unknown level(s) {unknown}; the levels are {list(LEVELS)}")
        check_players(get_game(args.game), len(levels))
        if args.matches < 1:
            raise InvalidOptions("matches", "play at least one match")
        if args.parallel < 1:
            raise InvalidOptions("parallel", "keep at least one match in play")
        if args.local and args.url:
            raise InvalidOptions("local", "--local starts its own server: name no --url with it")
        options = json.loads(args.options) if args.options else {}
        if not isinstance(options, dict):
            raise InvalidOptions("options", "a JSON object of the game's options")
    except InvalidOptions as exc:
        print(f"tabletop dataset: --{exc.field.replace('players', 'levels')}: {exc.message}", file=sys.stderr)
        return USAGE
    except ValueError as exc:  # --options is not JSON
        print(f"tabletop dataset: --options: {exc}", file=sys.stderr)
        return USAGE
    think = [
        args.think_ms if args.think_ms is not None else DEFAULT_THINK_MS[level] or None for level in levels
    ]
    plan = datasets.Plan(args.game, levels, args.matches, think, options, args.seed, args.parallel)
    key = args.app_key or os.environ.get("TABLETOP_APP_KEY")
    command = ["tabletop", *(sys.argv[1:] if args.argv is None else args.argv)]
    command = [  # the datasheet notes the command line, never the key
        "***" if i and command[i - 1] == "--app-key" else "--app-key=***" if a.startswith("--app-key=") else a
        for i, a in enumerate(command)
    ]
    try:
        if args.url:
            datasets.make(Client(args.url), plan, Path(args.out), key, command, args.url)
        else:
            from devtools.local_server import served

            with served() as url:
                datasets.make(Client(url), plan, Path(args.out), key, command, "a private development server")
    except (ApiError, OSError, TimeoutError) as exc:  # refused, unreachable, or a match that never ended
        print(f"tabletop dataset: {args.url or 'local server'}: {exc}", file=sys.stderr)
        return FAILED
    print(f"{args.matches} records in {Path(args.out) / datasets.RECORDS}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from engine.registry import GAMES

    parser = argparse.ArgumentParser(prog="tabletop", description="Tabletop board game server")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="play one game between random bots in the terminal (engine only, no server): prints every "
        "public event as a JSON line, then the result",
    )
    demo.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=next(iter(sorted(GAMES)), None),
        help="game id (default %(default)s)",
    )
    demo.add_argument(
        "--players", type=int, default=3, help="player count, within the game's (default %(default)s)"
    )
    demo.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seeds the deal and the bots' picks: same seed, same game (default %(default)s)",
    )
    demo.set_defaults(func=cmd_demo)
    serve = sub.add_parser("serve", help="serve the HTTP API (TABLETOP_* environment variables configure it)")
    serve.add_argument("--host", help="bind address (default TABLETOP_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default TABLETOP_PORT or 8000)")
    serve.add_argument(
        "--workers", type=int, default=1, help="server processes (gunicorn workers, one per CPU)"
    )
    serve.add_argument(
        "--connections",
        type=int,
        help="open connections per process (default TABLETOP_MAX_CONNECTIONS or 12000); waiting clients "
        "cost memory, not threads",
    )
    serve.set_defaults(func=cmd_serve)
    worker = sub.add_parser("worker", help="play bot seats, timeouts and hints (needs TABLETOP_REDIS_URL)")
    worker.add_argument("--burst", action="store_true", help="exit once the queues are empty")
    worker.add_argument(
        "--lanes",
        default=",".join(WORKER_LANES),
        type=_lanes,
        help="the lanes to work, comma-separated, a process each (default %(default)s): quick bots and "
        "hints, thinking bots, timeouts, searching hints",
    )
    worker.set_defaults(func=cmd_worker)
    sweep = sub.add_parser("sweep", help="re-enqueue bot turns that have no live job, once")
    sweep.set_defaults(func=cmd_sweep)
    match = sub.add_parser("match", help="play all-bot matches through the HTTP API, print a results table")
    match.add_argument("--game", required=True, choices=sorted(GAMES))
    match.add_argument("--seats", required=True, help="one bot level per seat, e.g. hard,normal,easy,random")
    match.add_argument("--games", type=int, default=10, help="matches to play (seats rotate)")
    match.add_argument("--think-ms", type=int, help="think budget of every seat (default: each level's)")
    match.add_argument("--url", default="http://127.0.0.1:8000", help="the API (default %(default)s)")
    match.set_defaults(func=cmd_match)
    dataset = sub.add_parser(
        "dataset", help="play all-bot matches on the workers, write their records and a datasheet"
    )
    dataset.add_argument("--game", required=True, choices=sorted(GAMES))
    dataset.add_argument("--levels", required=True, help="one bot level per seat, e.g. hard,hard,hard")
    dataset.add_argument("--matches", type=int, default=10, help="matches to play (default %(default)s)")
    dataset.add_argument("--out", required=True, help="directory for records.ndjson and the datasheet")
    dataset.add_argument("--think-ms", type=int, help="think budget of every seat (default: each level's)")
    dataset.add_argument("--options", help="the game's options, a JSON object (default: the defaults)")
    dataset.add_argument(
        "--seed",
        type=int,
        help="first match's deal, the next count up (default: drawn); a --url server must allow seeds",
    )
    dataset.add_argument(
        "--parallel", type=int, default=4, help="matches in play at once (default %(default)s)"
    )
    dataset.add_argument("--url", help="the API to play on (default: --local)")
    dataset.add_argument("--app-key", help="an app key (or TABLETOP_APP_KEY): the app's private matches")
    dataset.add_argument(
        "--local", action="store_true", help="play on a private development server started for this command"
    )
    dataset.set_defaults(func=cmd_dataset, argv=argv)
    from service import replay_cli  # issue 45: replay records through the engine

    replay_cli.add_parser(sub)
    from tabletop_client import export_cli  # issue 45: exports of match records, with the client too

    export_cli.add_parser(sub)
    from tabletop_client import tournament_cli  # issue 31: the command's code lives with the client

    tournament_cli.add_parser(sub)
    from tabletop_client.runner import cli as bot_cli  # issue 44: the bot runner, with the client too

    bot_cli.add_parser(sub)
    apps = sub.add_parser(
        "apps", help="register, list, rotate or revoke apps (integrations); needs TABLETOP_REDIS_URL"
    )
    apps.add_argument("action", choices=["create", "list", "rotate", "revoke"])
    apps.add_argument("name", nargs="?", help="create: the app's name; rotate, revoke: its id")
    apps.set_defaults(func=cmd_apps)
    hooks = sub.add_parser(
        "webhooks",
        help="an app's webhook endpoints, their delivery log, redelivery and pings; needs TABLETOP_REDIS_URL",
    )
    hooks_sub = hooks.add_subparsers(dest="action", required=True)
    listed = hooks_sub.add_parser("list", help="the app's endpoints (never a secret)")
    listed.add_argument("app", help="the app's id")
    log = hooks_sub.add_parser("deliveries", help="an endpoint's delivery log, newest first (one page)")
    log.add_argument("app", help="the app's id")
    log.add_argument("endpoint", help="the endpoint's id")
    log.add_argument("--status", choices=["pending", "delivered", "failed"], help="only messages in it")
    log.add_argument("--before", help="the next_cursor of the last page")
    log.add_argument("--limit", type=int, default=20, help="messages per page (default %(default)s)")
    again = hooks_sub.add_parser("redeliver", help="queue a past message again (the same webhook-id)")
    again.add_argument("app", help="the app's id")
    again.add_argument("endpoint", help="the endpoint's id")
    again.add_argument("message", help="the message's id (msg_…)")
    ping = hooks_sub.add_parser("ping", help="queue a test message of type ping")
    ping.add_argument("app", help="the app's id")
    ping.add_argument("endpoint", help="the endpoint's id")
    hooks.set_defaults(func=cmd_webhooks)
    spec = sub.add_parser("spec", help="write the OpenAPI document")
    spec.add_argument("--output", "-o", default=str(DEFAULT_SPEC), help="file to write, or - for stdout")
    spec.set_defaults(func=cmd_spec)
    args = parser.parse_args(argv)
    if args.command == "apps" and args.action != "list" and not args.name:
        parser.error(f"tabletop apps {args.action} needs a {'name' if args.action == 'create' else 'app id'}")
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
