"""``tabletop bot run``: run a bot's policy on a server from a shell, over HTTP.

    tabletop bot run examples.random_bot:RandomBot --url http://127.0.0.1:8000 --token tp.… \\
        --seek china:3:bots=10 --open-seeks 2 --challenges accept --state bot.state

The policy is ``module:Name`` (or ``file.py:Name``; the current directory is importable), a class
with ``decide(view, legal_actions)``.  The credential is a player token (``--token``), or an app key
and one of its players (``--app-key`` with ``--player``: a token is minted for it).  ``--state FILE``
keeps the feed's last id across runs, so a restart resumes where the last run stopped (catch-up covers
what a lost state file would miss).  Ctrl-C (or SIGTERM) stops it cleanly: moves in flight finish, open
seeks are withdrawn, and it exits 130.  Exit statuses: 0 stopped by ``--matches``, 1 refused by the
server or unreachable, 2 a usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from tabletop_client.client import Client
from tabletop_client.runner.loop import Runner
from tabletop_client.runner.policy import load_policy
from tabletop_client.runner.terms import ChallengePolicy, SeekSpec
from tabletop_client.transport import ApiError

DEFAULT_URL = "http://127.0.0.1:8000"
#: Exit statuses: done; refused or unreachable; a usage error; interrupted.
DONE, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130


def add_parser(sub: Any) -> None:
    """Register ``bot`` (``bot run``) on the ``tabletop`` command's subparsers (see :mod:`service.cli`)."""
    bot = sub.add_parser("bot", help="run a bot (your policy) on a server: feed, moves, seeks, challenges")
    actions = bot.add_subparsers(dest="action", required=True)
    run = actions.add_parser(
        "run",
        help="play a policy (module:Name) for a player until Ctrl-C",
        description="Play a policy for a player: catch up on pending decisions, away seats and open "
        "challenges, then follow the player's feed; keep seeks open; Ctrl-C withdraws them and stops.",
    )
    run.add_argument("policy", help="module:Name or file.py:Name, a class with decide(view, legal_actions)")
    url = os.environ.get("TABLETOP_URL", DEFAULT_URL)
    run.add_argument("--url", default=url, help="the API (TABLETOP_URL; %(default)s)")
    run.add_argument("--token", help="a player token with the play scope, tp.… (TABLETOP_TOKEN)")
    run.add_argument("--app-key", help="an app key, ta.…, with --player (TABLETOP_APP_KEY)")
    run.add_argument("--player", help="with --app-key: the app's player the bot plays as")
    run.add_argument("--concurrency", type=int, default=8, help="matches played at once (%(default)s)")
    run.add_argument(
        "--seek", action="append", default=[], metavar="GAME:PLAYERS[:rated][:bots[=S]]",
        help="a seek to keep open (repeat for several kinds, taken in turn), e.g. china:3:bots=10",
    )  # fmt: skip
    run.add_argument("--open-seeks", type=int, help="seeks kept open at once (default 1 with --seek)")
    run.add_argument(
        "--challenges", choices=["accept", "decline", "ignore"], default="accept",
        help="what to answer challenges (%(default)s), narrowed by the --challenge-* options",
    )  # fmt: skip
    run.add_argument("--challenge-games", help="accept only these games (comma-separated)")
    run.add_argument("--challenge-rated", choices=["yes", "no"], help="accept only rated (or unrated) ones")
    run.add_argument("--challenge-from", help="accept only these challengers (player ids, comma-separated)")
    run.add_argument("--state", type=Path, help="a file keeping the feed's last id across runs")
    run.add_argument("--matches", type=int, help="stop once this many matches ended (default: never)")
    run.add_argument("--poll", type=float, default=25.0, help="the feed's long-poll, seconds (%(default)s)")
    run.add_argument("--log-level", default="INFO", help="DEBUG logs every move (%(default)s)")
    bot.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """The command: check the line, build the runner, run it until stopped."""
    logging.basicConfig(
        level=args.log_level.upper(), stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s"
    )
    try:
        policy = load_policy(args.policy)
        challenges = _challenges(args)
        seeks = [SeekSpec.parse(text) for text in args.seek]
        open_seeks = args.open_seeks if args.open_seeks is not None else (1 if seeks else 0)
        if open_seeks and not seeks:
            raise ValueError("--open-seeks needs a --seek")
        token = _token(args)
    except (ValueError, ImportError) as exc:
        print(f"tabletop bot run: {exc}", file=sys.stderr)
        return USAGE
    except (ApiError, OSError) as exc:
        print(f"tabletop bot run: {args.url}: {exc}", file=sys.stderr)
        return FAILED
    after = args.state.read_text().strip() if args.state and args.state.exists() else "0-0"
    runner = Runner(
        args.url, token, policy, concurrency=args.concurrency, challenges=challenges, seeks=seeks,
        open_seeks=open_seeks, after=after or "0-0", poll_wait=args.poll,
    )  # fmt: skip
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        runner.run(until=None if args.matches is None else lambda r: r.stats.finished >= args.matches)
    except KeyboardInterrupt:
        print("tabletop bot run: interrupted; seeks withdrawn", file=sys.stderr)
        return INTERRUPTED
    except (ApiError, OSError) as exc:
        print(f"tabletop bot run: {args.url}: {exc}", file=sys.stderr)
        return FAILED
    finally:
        signal.signal(signal.SIGTERM, previous)
        if args.state is not None:
            args.state.write_text(runner.last_id + "\n")
    return DONE


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM stops as Ctrl-C does: cleanly


def _challenges(args: argparse.Namespace) -> ChallengePolicy | None:
    if args.challenges == "ignore":
        return None

    def names(text: str | None) -> frozenset[str] | None:
        return None if text is None else frozenset(n.strip() for n in text.split(",") if n.strip())

    rated = None if args.challenge_rated is None else args.challenge_rated == "yes"
    return ChallengePolicy(
        args.challenges == "accept", names(args.challenge_games), rated, names(args.challenge_from)
    )


def _token(args: argparse.Namespace) -> str:
    """The player token to run with: given, or minted with the app key for ``--player``."""
    token = args.token or os.environ.get("TABLETOP_TOKEN")
    key = args.app_key or os.environ.get("TABLETOP_APP_KEY")
    if args.token and args.app_key:
        raise ValueError("give --token or --app-key with --player, not both")
    if token and not args.app_key:
        return str(token)
    if key and args.player:
        api = Client(args.url)
        try:
            return str(api.mint_token(key, args.player)["token"])
        finally:
            api.close()
    raise ValueError("give --token (or TABLETOP_TOKEN), or --app-key with --player")
