"""``tabletop export``: the full records of finished matches (format ``tabletop-record/1``, ``/2`` for one
with takebacks) to a file or stdout, one a line (NDJSON): the app's, a player's or a tournament's, following
the export's cursors to the end.  Records expire with their matches (``TABLETOP_RETENTION_SECONDS``): a
nightly ``tabletop export --since <yesterday> --out records-<date>.ndjson`` archives them (docs/records.md).

The file is written as ``<out>.part`` and renamed when the export is whole, so a file that exists is
complete.  Exit status: 0 done, 1 refused or unreachable (one line on stderr), 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from tabletop_client import ApiError, Client
from tabletop_client.records import Scope

DEFAULT_URL = "http://127.0.0.1:8000"
DONE, FAILED, USAGE = 0, 1, 2


def add_parser(sub: Any) -> None:
    """Register ``export`` on the ``tabletop`` command's subparsers (see :mod:`service.cli`)."""
    parser = sub.add_parser(
        "export",
        help="write the records of finished matches (an app's, a player's, a tournament's) as NDJSON",
        description="Export the full records of finished matches, one JSON document a line, following the "
        "server's cursors to the end. Exit status: 0 done, 1 refused or unreachable, 2 a usage error.",
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("TABLETOP_URL", DEFAULT_URL),
        help="the API (TABLETOP_URL; %(default)s)",
    )
    parser.add_argument("--app-key", help="the app's key, ta.… (TABLETOP_APP_KEY)")
    parser.add_argument("--token", help="a player token, tp.… (TABLETOP_TOKEN)")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--player", help="a player's matches (with an app key: this player of the app)")
    scope.add_argument("--mine", action="store_true", help="the player token's own matches")
    scope.add_argument("--tournament", help="a tournament's matches")
    parser.add_argument("--game", help="only matches of this game")
    rated = parser.add_mutually_exclusive_group()
    rated.add_argument("--rated", action="store_true", default=None, help="only rated matches")
    rated.add_argument("--unrated", dest="rated", action="store_false", help="only unrated matches")
    parser.add_argument("--since", help="only matches finished at or after (ISO-8601 or epoch seconds)")
    parser.add_argument("--until", help="only matches finished at or before (ISO-8601 or epoch seconds)")
    parser.add_argument("--out", "-o", default="-", help="the file to write, or - for stdout (default)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    token = (
        args.app_key or args.token or os.environ.get("TABLETOP_APP_KEY") or os.environ.get("TABLETOP_TOKEN")
    )
    if not token:
        print(
            "tabletop export: give --app-key or --token (or TABLETOP_APP_KEY / TABLETOP_TOKEN)",
            file=sys.stderr,
        )
        return USAGE
    scope: Scope = "tournament" if args.tournament else "player" if args.player or args.mine else "app"
    api = Client(args.url)
    target = Path(args.out) if args.out != "-" else None
    partial = target.with_name(target.name + ".part") if target is not None else None
    try:
        records = api.export_records(
            token,
            scope,
            player=args.player,
            tournament=args.tournament,
            game=args.game,
            rated=args.rated,
            since=args.since,
            until=args.until,
        )
        if target is None or partial is None:
            count = _write(records, sys.stdout)
        else:
            with partial.open("w", encoding="utf-8") as out:
                count = _write(records, out)
            partial.replace(target)
    except ApiError as exc:
        print(f"tabletop export: {exc}", file=sys.stderr)
        return FAILED
    except OSError as exc:
        print(f"tabletop export: {args.url}: {exc}", file=sys.stderr)
        return FAILED
    finally:
        api.close()
        if partial is not None:
            partial.unlink(missing_ok=True)  # renamed when whole; a failed export leaves no file
    print(f"{count} records{'' if target is None else f' in {target}'}", file=sys.stderr)
    return DONE


def _write(records: Iterable[dict[str, Any]], out: IO[str]) -> int:
    count = 0
    for record in records:
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        count += 1
    out.flush()
    return count
