"""The ``tabletop`` command."""

from __future__ import annotations

import argparse
import json
import random
import sys


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


def main(argv: list[str] | None = None) -> int:
    from engine.registry import GAMES

    parser = argparse.ArgumentParser(prog="tabletop", description="Tabletop board game server")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play one random game in the terminal (engine only)")
    demo.add_argument("--game", choices=sorted(GAMES), default=next(iter(sorted(GAMES)), None))
    demo.add_argument("--players", type=int, default=3)
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=cmd_demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
