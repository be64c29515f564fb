"""The ``tabletop`` command: ``serve`` the API, write its OpenAPI ``spec``, or play an engine ``demo``."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

DEFAULT_SPEC = Path("openapi/openapi.json")
#: Development mode keeps its private Redis data here (append-only file), so matches survive restarts.
DEV_DATA_DIR = Path("var/redis")


def cmd_demo(args: argparse.Namespace) -> int:
    """Play one game between random bots in the terminal, printing public events."""
    from engine.core import event_visible
    from engine.registry import get_game

    game = get_game(args.game)
    state = game.setup(args.players, None, seed=args.seed)
    rng = random.Random(args.seed)
    while game.to_move(state) is not None:
        for ev in game.apply(state, rng.choice(game.legal_actions(state))):
            if event_visible(ev, None):
                print(json.dumps({k: v for k, v in ev.items() if k != "visible_to"}))
    print(json.dumps(game.result(state)))
    return 0


def cmd_spec(args: argparse.Namespace) -> int:
    """Write the OpenAPI document of the registered games (no Redis needed)."""
    from service.app import OFFLINE_REDIS_URL, create_app
    from service.config import Config
    from service.spec import render

    text = render(create_app(Config(redis_url=OFFLINE_REDIS_URL)))
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the API with gunicorn; without TABLETOP_REDIS_URL, on a private Redis (development mode)."""
    from service.config import Config
    from service.devredis import PrivateRedis

    overrides: dict[str, Any] = {}
    if args.host is not None:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    config = Config.from_env(**overrides)
    private = None
    if not config.redis_url:
        private = PrivateRedis(data_dir=str(DEV_DATA_DIR))
        config = Config.from_env(redis_url=private.start(), **overrides)
        print(f"development mode: private Redis at {config.redis_url} (data in {DEV_DATA_DIR}/)", flush=True)
    try:
        run_gunicorn(config, workers=args.workers, threads=args.threads)
    finally:
        if private is not None:
            private.stop()
    return 0


def run_gunicorn(config: Any, workers: int, threads: int) -> None:
    """Run the app under gunicorn's threaded workers (event streams and long-polls hold a thread)."""
    from gunicorn.app.base import BaseApplication

    from service.app import create_app

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("bind", f"{config.host}:{config.port}")
            self.cfg.set("workers", workers)
            self.cfg.set("threads", threads)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("timeout", int(config.stream_max_seconds) + 60)
            self.cfg.set("accesslog", None)

        def load(self) -> Any:
            return create_app(config)

    Server().run()


def main(argv: list[str] | None = None) -> int:
    from engine.registry import GAMES

    parser = argparse.ArgumentParser(prog="tabletop", description="Tabletop board game server")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play one random game in the terminal (engine only)")
    demo.add_argument("--game", choices=sorted(GAMES), default=next(iter(sorted(GAMES)), None))
    demo.add_argument("--players", type=int, default=3)
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=cmd_demo)
    serve = sub.add_parser("serve", help="serve the HTTP API (TABLETOP_* environment variables configure it)")
    serve.add_argument("--host", help="bind address (default TABLETOP_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default TABLETOP_PORT or 8000)")
    serve.add_argument("--workers", type=int, default=1, help="gunicorn worker processes")
    serve.add_argument("--threads", type=int, default=16, help="threads per worker (streams hold one each)")
    serve.set_defaults(func=cmd_serve)
    spec = sub.add_parser("spec", help="write the OpenAPI document")
    spec.add_argument("--output", "-o", default=str(DEFAULT_SPEC), help="file to write, or - for stdout")
    spec.set_defaults(func=cmd_spec)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
