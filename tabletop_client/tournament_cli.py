"""``tabletop tournament``: run a tournament on a Tabletop server (or follow one) from a shell, over HTTP.

    tabletop tournament --url http://127.0.0.1:8000 --app-key "$KEY" --game taj_mahal --players 3 \\
        --entrant level:easy --entrant level:random --entrant level:normal@100 --entrant player:ann \\
        --results out.csv --chart standings.png

An entrant is ``level:LEVEL`` (a built-in bot; ``level:LEVEL@MS`` gives it ``MS`` milliseconds a
decision instead of its level's default), or ``player:ID``, either with ``:NAME`` after it.
It creates the tournament (``POST /v1/tournaments``), shows a progress bar of matches done of all
while the server plays it, prints the standings when it is over, and writes the export (CSV or JSON,
by the file's suffix) and a chart of each entrant's points round by round when asked.  ``--follow ID``
does the same for a tournament created before (by this command or anyone of the app).  The exit
status says how it ended: 0 finished, 1 cancelled (or refused by the server), 2 a usage error.

It lives with the Python client, not the server: it speaks HTTP only (``tabletop_client.Client``), so
it runs wherever the client does.  ``rich`` draws the bar and the table; ``matplotlib`` (the
``charts`` extra: ``pip install 'tabletop[charts]'``) is imported only for ``--chart``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from tabletop_client import ApiError, Client, Doc
from tabletop_client.digits import digits

DEFAULT_URL = "http://127.0.0.1:8000"
#: The built-in bot levels (the server validates them too; the client imports nothing of the server).
LEVELS = ("random", "easy", "normal", "hard")
CHARTS_HINT = (
    "--chart needs matplotlib, which is not installed: pip install 'tabletop[charts]' "
    "(or pip install 'matplotlib>=3.8')"
)
#: Exit statuses: finished; cancelled or refused; a usage error (argparse's own); interrupted.
FINISHED, CANCELLED, USAGE, INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """A command line that cannot work (an entrant that is neither a level nor a player...)."""


def add_parser(sub: Any) -> None:
    """Register ``tournament`` on the ``tabletop`` command's subparsers (see :mod:`service.cli`)."""
    parser = sub.add_parser(
        "tournament",
        help="run a round robin or Swiss tournament on a server (or follow one): a progress bar, the "
        "standings at the end, the results export and a standings chart",
        description="Create a tournament (or --follow one), show its progress, print the standings at the "
        "end; write the export (--results) and a chart of the points over the rounds (--chart). Exit "
        "status: 0 finished, 1 cancelled or refused, 2 a usage error.",
    )
    server = parser.add_argument_group("server")
    server.add_argument(
        "--url",
        default=os.environ.get("TABLETOP_URL", DEFAULT_URL),
        help="the API (TABLETOP_URL; %(default)s)",
    )
    who = server.add_mutually_exclusive_group()
    who.add_argument("--app-key", default=None, help="the app's key, ta.… (TABLETOP_APP_KEY)")
    who.add_argument(
        "--token", default=None, help="a player token with the play scope, tp.… (TABLETOP_TOKEN)"
    )
    event = parser.add_argument_group("a new tournament")
    event.add_argument("--game", help="the game id (e.g. taj_mahal)")
    event.add_argument("--players", type=int, help="seats per match, within the game's counts")
    event.add_argument(
        "--entrant",
        action="append",
        default=[],
        metavar="KIND:ID[@MS][:NAME]",
        help="level:easy (a built-in bot: random, easy, normal, hard) or player:ann (a player of the app, "
        "who plays with its own token); a level may carry its bot's thinking budget per decision in "
        "milliseconds, level:hard@100 (default: the level's); an optional :NAME shows it under that "
        "name. Repeat it, in entry order (the last tie-break).",
    )
    event.add_argument("--name", help="the tournament's name")
    event.add_argument("--format", choices=["round_robin", "swiss"], default="round_robin")
    event.add_argument("--rounds", type=int, help="swiss: the number of rounds (required there)")
    event.add_argument(
        "--matches-per-pairing",
        type=int,
        help="matches each group plays (default: the seats per match in a round robin, 1 in a swiss)",
    )
    event.add_argument("--options", help='the game options as a JSON object, e.g. \'{"variant": "x"}\'')
    event.add_argument(
        "--time-control",
        help="per_move_seconds=30[,budget_seconds=600,increment_seconds=5,on_timeout=easy,max_timeouts=3], "
        "or a JSON object",
    )
    event.add_argument("--rated", action="store_true", help="rate its matches")
    event.add_argument("--starts-at", type=float, help="when to start, epoch seconds (default: now)")
    event.add_argument("--parallel", type=int, help="matches in flight at most (default: the server's)")
    parser.add_argument(
        "--follow", metavar="ID", help="follow an existing tournament instead of creating one"
    )
    out = parser.add_argument_group("output")
    out.add_argument("--results", type=Path, metavar="FILE", help="write the export: FILE.csv or FILE.json")
    out.add_argument(
        "--chart", type=Path, metavar="FILE.png", help="draw the points over the rounds (matplotlib)"
    )
    out.add_argument(
        "--interval", type=float, default=1.0, help="seconds between reads of the tournament (%(default)s)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The command: check the line, create (or find) the tournament, follow it to its end."""
    from rich.console import Console

    out, err = Console(), Console(stderr=True)
    try:
        token = _credential(args)
        request = None if args.follow else tournament_request(args)
        _check_outputs(args)
    except UsageError as exc:
        err.print(f"tabletop tournament: {exc}", style="red", markup=False, highlight=False)
        return USAGE
    api = Client(args.url)
    try:
        if request is not None:
            doc = create(api, token, request)
            err.print(
                f"tournament {doc['id']} {doc['status']}: {doc['progress']['total']} matches "
                f"(follow it again with: tabletop tournament --follow {doc['id']})",
                markup=False,
                highlight=False,
            )
        else:
            doc = api.tournament(token, args.follow)
        doc = follow(api, token, doc, args.interval, err)
        out.print(standings_table(doc))
        if args.results is not None:
            write_results(api, token, doc["id"], args.results)
            err.print(f"results written to {args.results}", markup=False, highlight=False)
        if args.chart is not None:
            draw_chart(doc, args.chart)
            err.print(f"chart written to {args.chart}", markup=False, highlight=False)
    except ApiError as exc:
        err.print(f"tabletop tournament: {exc}", style="red", markup=False, highlight=False)
        return CANCELLED
    except KeyboardInterrupt:
        err.print("interrupted: the tournament goes on on the server (--follow ID to watch it again)")
        return INTERRUPTED
    finally:
        api.close()
    if doc["status"] != "finished":
        err.print(f"tournament {doc['id']} was {doc['status']}", style="red", markup=False, highlight=False)
        return CANCELLED
    return FINISHED


def create(api: Client, token: str, request: Doc) -> Doc:
    """``POST /v1/tournaments`` under an ``Idempotency-Key``: a connection that drops before the answer
    is tried again once with the same key, which answers the tournament made, never a second one."""
    key = str(uuid.uuid4())
    try:
        return api.create_tournament(token, **request, idempotency_key=key)
    except OSError:
        return api.create_tournament(token, **request, idempotency_key=key)


def _credential(args: argparse.Namespace) -> str:
    token = (
        args.app_key or args.token or os.environ.get("TABLETOP_APP_KEY") or os.environ.get("TABLETOP_TOKEN")
    )
    if not token:
        raise UsageError("give --app-key or --token (or TABLETOP_APP_KEY / TABLETOP_TOKEN)")
    return str(token)


def parse_entrant(text: str) -> Doc:
    """``level:easy``, ``level:hard@100`` (100 ms a decision), ``player:ann``, any of them with
    ``:NAME`` -> an entrant of the request.  The budget rides on the level, not after a colon, so a
    name may be anything, digits included (a player id may hold ``@``: it is read whole)."""
    kind, _, rest = text.partition(":")
    value, _, name = rest.partition(":")
    at, budget = "", ""
    if kind == "level":
        value, at, budget = value.partition("@")
    if kind not in ("level", "player") or not value:
        raise UsageError(
            f"--entrant {text!r}: expected level:LEVEL[@THINK_MS] or player:ID (then :NAME if you like)"
        )
    if kind == "level" and value not in LEVELS:
        raise UsageError(f"--entrant {text!r}: the levels are {', '.join(LEVELS)}")
    entrant: Doc = {kind: value}
    if at:
        if not digits(budget):
            raise UsageError(f"--entrant {text!r}: @THINK_MS is whole milliseconds, e.g. level:hard@100")
        entrant["think_ms"] = int(budget)
    if name:
        entrant["name"] = name
    return entrant


def parse_time_control(text: str) -> Doc:
    """``per_move_seconds=30,increment_seconds=5`` (numbers as numbers) or a JSON object."""
    if text.lstrip().startswith("{"):
        found = _json_object("--time-control", text)
        return found
    control: Doc = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise UsageError(f"--time-control {text!r}: expected key=value pairs, e.g. per_move_seconds=30")
        control[key.strip()] = int(value) if digits(value.strip()) else value.strip()
    return control


def _json_object(flag: str, text: str) -> Doc:
    try:
        found = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{flag}: not JSON ({exc})") from None
    if not isinstance(found, dict):
        raise UsageError(f"{flag}: expected a JSON object")
    return found


def tournament_request(args: argparse.Namespace) -> Doc:
    """The ``POST /v1/tournaments`` body of the command line (its optional fields only when given: the
    server applies its defaults)."""
    if not args.game or args.players is None or not args.entrant:
        raise UsageError("a new tournament needs --game, --players and --entrant (or --follow ID)")
    # What the server would refuse for the line alone is refused here, before anything is made (exit 2).
    if args.format == "swiss" and args.rounds is None:
        raise UsageError("--format swiss needs --rounds N (a Swiss tournament plays a set number of rounds)")
    if args.rounds is not None and args.rounds < 1:
        raise UsageError(f"--rounds {args.rounds}: at least 1")
    request: Doc = {
        "game": args.game,
        "players": args.players,
        "entrants": [parse_entrant(e) for e in args.entrant],
        "format": args.format,
    }
    more = {
        "name": args.name,
        "rounds": args.rounds,
        "matches_per_pairing": args.matches_per_pairing,
        "options": _json_object("--options", args.options) if args.options else None,
        "time_control": parse_time_control(args.time_control) if args.time_control else None,
        "rated": True if args.rated else None,
        "starts_at": args.starts_at,
        "parallel": args.parallel,
    }
    request.update({k: v for k, v in more.items() if v is not None})
    return request


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse outputs that cannot be written before any tournament is made (not after an hour's play)."""
    if args.results is not None and args.results.suffix.lower() not in (".csv", ".json"):
        raise UsageError(f"--results {args.results}: name a .csv or a .json file")
    if args.chart is not None:
        try:
            import matplotlib  # noqa: F401  (only whether it is there)
        except ImportError:
            raise UsageError(CHARTS_HINT) from None


def follow(api: Client, token: str, doc: Doc, interval: float, err: Any) -> Doc:
    """Read the tournament until it is over, a progress bar (on stderr) of matches done of all."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if doc["status"] in ("finished", "cancelled"):
        return doc
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("matches"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=False) as bar:
        task = bar.add_task(_describe(doc), total=doc["progress"]["total"], completed=doc["progress"]["done"])

        def show(now: Doc) -> None:
            got = now["progress"]
            bar.update(task, description=_describe(now), total=got["total"], completed=got["done"])

        return api.wait_tournament(token, doc["id"], progress=show, interval=interval)


def _describe(doc: Doc) -> str:
    got = doc["progress"]
    name = doc.get("name") or doc["id"]
    return f"{name}: {doc['status']}, round {got['round']} of {got['rounds']}"


def standings_table(doc: Doc) -> Any:
    """The final (or current) standings as a rich table."""
    from rich.table import Table

    got = doc["progress"]
    title = f"{doc.get('name') or doc['id']} ({doc['game']}, {doc['format']}): {doc['status']}"
    table = Table(title=title, caption=f"{got['done']} of {got['total']} matches")
    for header in ("Rank", "Entrant", "Points", "Played", "Wins", "Buchholz", "Seats"):
        table.add_column(header, justify="left" if header == "Entrant" else "right")
    for row in doc["standings"]:
        table.add_row(
            str(row["rank"]),
            row["name"],
            _number(row["points"]),
            str(row["played"]),
            str(row["wins"]),
            _number(row["buchholz"]),
            "/".join(str(n) for n in row["seats"]),
        )
    return table


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def write_results(api: Client, token: str, tournament_id: str, path: Path) -> None:
    """The export, as the file's suffix says: the server's CSV as it is, or its JSON document."""
    if path.suffix.lower() == ".csv":
        text = api.tournament_results(token, tournament_id, "csv")
        path.write_text(text, encoding="utf-8", newline="")
    else:
        export = api.tournament_results(token, tournament_id, "json")
        path.write_text(json.dumps(export, indent=2) + "\n", encoding="utf-8")


def points_by_round(doc: Doc) -> list[list[float]]:
    """Each entrant's points after each round (index 0: before the first, all zero), summed from the
    finished matches' points.  A Swiss bye is in the standings but in no match: an entrant's points the
    matches do not explain are spread over the rounds it sat out (each bye is worth the same)."""
    entrants = len(doc["entrants"])
    rounds = max([doc["progress"]["rounds"], *(m["round"] for m in doc["matches"])])
    gained = [[0.0] * (rounds + 1) for _ in range(entrants)]
    seen: dict[int, set[int]] = {}
    for match in doc["matches"]:
        seen.setdefault(match["round"], set()).update(match["entrants"])
        if match["points"] is None:
            continue
        for entrant, points in zip(match["entrants"], match["points"], strict=True):
            gained[entrant][match["round"]] += points
    for row in doc["standings"]:
        entrant = row["entrant"]
        unexplained = row["points"] - sum(gained[entrant])
        byes = [r for r, there in seen.items() if entrant not in there]
        if byes and abs(unexplained) > 1e-9:
            for r in byes:
                gained[entrant][r] += unexplained / len(byes)
    return [[sum(line[: r + 1]) for r in range(rounds + 1)] for line in gained]


def draw_chart(doc: Doc, path: Path) -> None:
    """A PNG of each entrant's points over the rounds, a line each, named in the legend by its final
    rank.  matplotlib is imported here only (the ``charts`` extra), with its file-only backend."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed: the chart goes to a file
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError(CHARTS_HINT) from None
    series = points_by_round(doc)
    names = {e["entrant"]: e["name"] for e in doc["entrants"]}
    figure, axes = plt.subplots(figsize=(8, 5), dpi=100)
    rounds = list(range(len(series[0]))) if series else [0]
    for row in doc["standings"]:
        entrant = row["entrant"]
        axes.plot(rounds, series[entrant], marker="o", label=f"{row['rank']}. {names[entrant]}")
    axes.set_xlabel("round")
    axes.set_ylabel("points")
    axes.set_xticks(rounds)
    axes.set_title(f"{doc.get('name') or doc['id']}: {doc['game']}, {doc['format'].replace('_', ' ')}")
    axes.grid(True, alpha=0.3)
    axes.legend(loc="upper left", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, format="png")
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    """``python -m tabletop_client.tournament_cli``: the same command without the rest of ``tabletop``."""
    parser = argparse.ArgumentParser(prog="tabletop")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["tournament", *(sys.argv[1:] if argv is None else argv)])
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
