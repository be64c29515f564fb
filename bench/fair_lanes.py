"""Fair lanes benchmark (issue 42, point 2): one app floods the thinking lane while another app plays, and
what the other app feels: its bot decisions, its timeouts and its hints, unloaded then loaded, in one run.

    python -m bench.fair_lanes                  # X floods 30 hard matches at 2,000 ms a decision
    python -m bench.fair_lanes --quick          # the smoke test's size (8 matches at 1,000 ms)

In one run this bench starts a private Redis, ``tabletop serve`` (one gunicorn process, the admin token
set) and ``--workers`` ``tabletop worker`` processes (every lane, the clock keeper and the sweeps: what
production runs); the operator creates two apps, X and Y (admin API).  Then two phases of ``--phase``
seconds each, with the same processes:

1. unloaded: app Y alone, three probes at once (each a thread with its own connection, app Y's key):

   * decisions: a ``--game`` match of a human seat (the probe, playing a random legal move as soon as
     it is its turn) against a ``normal`` bot; each bot decision's latency is the time from the commit
     before it (the probe's move, or the bot's previous decision) reaching the probe to the bot's
     commit reaching it (a long-poll on the match's events wakes the probe: a few milliseconds);
   * timeouts: a match of two human seats nobody plays, on a ``--clock``-second clock whose
     ``on_timeout`` is ``normal``: each timeout's lateness is the commit's ``updated_at`` minus the
     deadline the match showed (both the server's clock);
   * hints: a match of two human seats; the seat to move asks a ``normal`` hint and polls
     ``GET /v1/jobs/{id}`` every 25 ms: the answer time is from the request to the finished job; then
     it plays the hinted move (one hint a second at most);

2. loaded: app X creates ``--flood`` matches of two ``hard`` bots thinking ``--think-ms`` each, waits
   ``--settle`` seconds (the thinking lane is busy, X's turns queue), and the three probes run again.

A probe's question still unanswered when its phase ends counts at its wait so far (a lower bound,
marked ``+``).  Printed: per phase and probe the samples, p50, p99 and max; how many decisions X made
in the loaded phase; and the issue's targets against what was measured:

* Y's decision p99 loaded within 2x its unloaded p99 plus one think budget (X's ``--think-ms``: the
  decision a worker may have just begun when Y's turn comes, and cannot drop);
* Y's timeouts within 1 s of their deadline;
* Y's hints within two think budgets (the hint's own, ``normal``'s 500 ms).

The exit status is 0 when every probe measured something in both phases (whether the targets are met
is printed, not judged: run it against the code before a change for the ratio), 2 when not.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.api import Client, free_port, start_server
from bench.ladder import workers
from bench.procs import progress, stop_server
from devtools.private_redis import PrivateRedis

ADMIN_TOKEN = "bench-fair-lanes-admin-token"
#: ``normal``'s default think budget: Y's bots, timeouts and hints think this long.
NORMAL_MS = 500
#: How often the timeout probe reads its match, and the hint probe its job.
TIMEOUT_POLL, HINT_POLL = 0.05, 0.025


@dataclass
class Samples:
    """One probe's measurements in one phase, in seconds; ``cut`` holds those cut off at the phase's end
    (counted at their wait so far: lower bounds)."""

    values: list[float] = field(default_factory=list)
    cut: list[float] = field(default_factory=list)

    def add(self, value: float, *, cut: bool = False) -> None:
        self.values.append(value)
        if cut:
            self.cut.append(value)

    def mark(self, value: float) -> str:
        """``+`` when ``value`` is a lower bound: a sample cut off at least as long lies in it."""
        return "+" if any(c >= value for c in self.cut) else " "

    def quantile(self, q: int) -> float:
        if not self.values:
            return float("nan")
        if len(self.values) == 1:
            return self.values[0]
        return statistics.quantiles(self.values, n=100, method="inclusive")[q - 1]

    @property
    def p50(self) -> float:
        return self.quantile(50)

    @property
    def p99(self) -> float:
        return self.quantile(99)

    @property
    def max(self) -> float:
        return max(self.values) if self.values else float("nan")

    def cells(self) -> str:
        p99, top = self.p99, self.max
        n = len(self.values)
        return f"{n:>5} {self.p50:>7.2f} {p99:>7.2f}{self.mark(p99)} {top:>7.2f}{self.mark(top)}"


@dataclass
class Phase:
    decisions: Samples = field(default_factory=Samples)
    timeouts: Samples = field(default_factory=Samples)
    hints: Samples = field(default_factory=Samples)
    flood_decisions: int = 0


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: Client, auth: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    status, doc = client.call("POST", "/v1/matches", body, auth)
    if status != 201:
        raise RuntimeError(f"creating a match: {status} {doc}")
    return dict(doc)


def seat_tokens(doc: dict[str, Any]) -> dict[int, dict[str, str]]:
    return {t["seat"]: bearer(t["token"]) for t in doc["tokens"]}


def move(client: Client, match_id: str, auth: dict[str, str], version: int, action: Any = None) -> bool:
    """Play ``action`` (a random legal one if ``None`` or no longer legal) at ``version``."""
    status, legal = client.call("GET", f"/v1/matches/{match_id}/legal-actions", headers=auth)
    if status != 200 or not legal["actions"]:
        return False
    if action not in legal["actions"]:
        action = random.choice(legal["actions"])
    body = {"action": action, "expected_version": version}
    status, _ = client.call("POST", f"/v1/matches/{match_id}/actions", body, auth)
    return bool(status == 200)


# -- the probes: each runs until ``stop_at`` (time.monotonic) ------------------------------------------


def probe_decisions(port: int, auth: dict[str, str], game: str, stop_at: float, out: Samples) -> None:
    """A human seat (this probe, seat 0) against a ``normal`` bot: the latency of each bot decision."""
    client = Client(port, reconnect=0)
    seats = [{"name": "probe"}, {"name": "bot", "kind": "bot", "level": "normal"}]
    while time.monotonic() < stop_at:
        doc = create(client, auth, {"game": game, "seats": seats})
        mid, me = doc["id"], seat_tokens(doc)[0]
        since, last = time.monotonic(), "0-0"  # the last commit seen, and when
        version = doc["version"]
        while doc["status"] == "active" and time.monotonic() < stop_at:
            if doc["to_move"] == 0:
                if move(client, mid, me, doc["version"]):
                    since, version = time.monotonic(), doc["version"] + 1
                status, doc = client.call("GET", f"/v1/matches/{mid}", headers=me)
                continue
            wait = max(1, min(25, int(stop_at - time.monotonic())))
            status, events = client.call(
                "GET", f"/v1/matches/{mid}/events?after={last}&wait={wait}", headers=me
            )
            if status == 200:
                last = events["last_id"]
            status, doc = client.call("GET", f"/v1/matches/{mid}", headers=me)
            if doc["version"] > version:  # the bot's decisions since the last commit seen
                arrived = time.monotonic()
                count = doc["version"] - version
                out.values.extend([(arrived - since) / count] * count)
                since, version = arrived, doc["version"]
        if doc["status"] == "active" and doc["to_move"] != 0:
            out.add(time.monotonic() - since, cut=True)  # the bot's turn, unanswered at the end


def probe_timeouts(
    port: int, auth: dict[str, str], game: str, clock: int, stop_at: float, out: Samples
) -> None:
    """Two human seats nobody plays, on a clock: each timeout's lateness past its deadline."""
    client = Client(port, reconnect=0)
    control = {"per_move_seconds": clock, "on_timeout": "normal", "max_timeouts": 1000}
    seats = [{"name": "a"}, {"name": "b"}]
    doc = create(client, auth, {"game": game, "seats": seats, "time_control": control})
    mid, me = doc["id"], seat_tokens(doc)[0]
    deadlines = {doc["version"]: doc["clock"]["deadline"]}
    while time.monotonic() < stop_at:
        time.sleep(TIMEOUT_POLL)
        status, doc = client.call("GET", f"/v1/matches/{mid}", headers=me)
        if status != 200 or doc["status"] != "active":
            doc = create(client, auth, {"game": game, "seats": seats, "time_control": control})
            mid, me = doc["id"], seat_tokens(doc)[0]
            deadlines = {doc["version"]: doc["clock"]["deadline"]}
            continue
        version = doc["version"]
        if version - 1 in deadlines and version not in deadlines:
            out.add(doc["updated_at"] - deadlines[version - 1])
        deadlines.setdefault(version, doc["clock"]["deadline"])
    pending = deadlines.get(doc.get("version", -1))
    if pending is not None and time.time() > pending:
        out.add(time.time() - pending, cut=True)


def probe_hints(port: int, auth: dict[str, str], game: str, stop_at: float, out: Samples) -> None:
    """Two human seats; the one to move asks a ``normal`` hint, waits for it, plays it."""
    client = Client(port, reconnect=0)
    seats = [{"name": "a"}, {"name": "b"}]
    doc = create(client, auth, {"game": game, "seats": seats})
    mid, tokens = doc["id"], seat_tokens(doc)
    while time.monotonic() < stop_at:
        if doc["status"] != "active":
            doc = create(client, auth, {"game": game, "seats": seats})
            mid, tokens = doc["id"], seat_tokens(doc)
        seat = doc["to_move"]
        me = tokens[seat]
        asked = time.monotonic()
        status, job = client.call("POST", f"/v1/matches/{mid}/hint", {"level": "normal"}, me)
        if status != 202:
            raise RuntimeError(f"asking a hint: {status} {job}")
        while True:
            status, answer = client.call("GET", f"/v1/jobs/{job['id']}", headers=me)
            if status == 200 or time.monotonic() >= stop_at:
                break
            time.sleep(HINT_POLL)
        if status != 200:
            out.add(time.monotonic() - asked, cut=True)
            break
        out.add(time.monotonic() - asked)
        move(client, mid, me, doc["version"], answer.get("action"))
        time.sleep(max(0.0, asked + 1.0 - time.monotonic()))  # one hint a second at most
        status, doc = client.call("GET", f"/v1/matches/{mid}", headers=me)


def run_probes(port: int, auth: dict[str, str], args: argparse.Namespace, phase: Phase) -> None:
    stop_at = time.monotonic() + args.phase
    probes: list[Callable[[], None]] = [
        lambda: probe_decisions(port, auth, args.game, stop_at, phase.decisions),
        lambda: probe_timeouts(port, auth, args.game, args.clock, stop_at, phase.timeouts),
        lambda: probe_hints(port, auth, args.game, stop_at, phase.hints),
    ]
    threads = [threading.Thread(target=p, daemon=True) for p in probes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=args.phase + 60)


def flood(client: Client, auth: dict[str, str], args: argparse.Namespace) -> list[str]:
    """App X's matches: two ``hard`` bots each, thinking ``--think-ms`` a decision."""
    bot = {"kind": "bot", "level": "hard", "think_ms": args.think_ms}
    seats = [{"name": "x1", **bot}, {"name": "x2", **bot}]
    return [create(client, auth, {"game": args.game, "seats": seats})["id"] for _ in range(args.flood)]


def versions(client: Client, auth: dict[str, str], match_ids: list[str]) -> int:
    return sum(int(client.call("GET", f"/v1/matches/{m}", headers=auth)[1]["version"]) for m in match_ids)


def new_app(client: Client, name: str) -> dict[str, str]:
    status, app = client.call("POST", "/v1/admin/apps", {"name": name}, bearer(ADMIN_TOKEN))
    if status != 201:
        raise RuntimeError(f"creating app {name}: {status} {app}")
    return bearer(app["key"])


def report(args: argparse.Namespace, unloaded: Phase, loaded: Phase) -> bool:
    """Print the table and the targets; whether every probe measured something in both phases."""
    budget = args.think_ms / 1000
    print(
        f"fair lanes: app X floods {args.flood} {args.game} matches of two `hard` bots ({args.think_ms} ms a "
        f"decision) on {args.workers} worker(s); app Y plays a `normal` bot, a {args.clock}-s clock timing "
        f"out to `normal` and `normal` hints; {args.phase:.0f} s per phase"
    )
    head = f"{'n':>5} {'p50 s':>7} {'p99 s':>8} {'max s':>8}"
    print(f"{'':<22} {'unloaded':^30} {'loaded':^30}")
    print(f"{'':<22} {head} {head}")
    rows = (
        ("Y bot decision", unloaded.decisions, loaded.decisions),
        ("Y timeout past deadline", unloaded.timeouts, loaded.timeouts),
        ("Y hint answer", unloaded.hints, loaded.hints),
    )
    for name, before, after in rows:
        print(f"{name:<22} {before.cells()} {after.cells()}")
    print(f"X decisions during the loaded phase: {loaded.flood_decisions} ('+': cut off at the phase's end)")
    bound = 2 * unloaded.decisions.p99 + budget
    hint_bound = 2 * NORMAL_MS / 1000
    checks = (
        (
            f"Y decision p99 loaded {loaded.decisions.p99:.2f} s <= 2 x unloaded "
            f"{unloaded.decisions.p99:.2f} s + one think budget {budget:.2f} s = {bound:.2f} s "
            f"(ratio loaded/unloaded p99 {loaded.decisions.p99 / unloaded.decisions.p99:.1f})",
            loaded.decisions.p99 <= bound,
        ),
        (
            f"Y timeouts within 1 s of their deadline: max {loaded.timeouts.max:.2f} s",
            loaded.timeouts.max <= 1.0,
        ),
        (
            f"Y hints within two think budgets ({hint_bound:.1f} s): max {loaded.hints.max:.2f} s",
            loaded.hints.max <= hint_bound,
        ),
    )
    for text, met in checks:
        print(f"target: {text}: {'met' if met else 'MISSED'}")
    phases = (unloaded, loaded)
    return all(len(s.values) > 0 for p in phases for s in (p.decisions, p.timeouts, p.hints))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fair_lanes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--flood", type=int, default=30, help="app X's matches (default %(default)s)")
    parser.add_argument("--think-ms", type=int, default=2000, help="X's bots' budget (default %(default)s)")
    parser.add_argument("--phase", type=float, default=60.0, help="seconds per phase (default %(default)s)")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds from X's flood to the probes")
    parser.add_argument("--clock", type=int, default=2, help="Y's timeout match's per-move seconds")
    parser.add_argument("--workers", type=int, default=1, help="tabletop worker processes (default 1)")
    parser.add_argument("--game", default="year_of_dragon")
    parser.add_argument("--quick", action="store_true", help="8 matches at 1,000 ms, 15-s phases")
    args = parser.parse_args(argv)
    if args.quick:
        args.flood, args.think_ms, args.phase, args.settle = 8, 1000, 15.0, 2.0
    unloaded, loaded = Phase(), Phase()
    with PrivateRedis() as redis_url:
        port = free_port()
        server = start_server(redis_url, port, 1, admin_token=ADMIN_TOKEN)
        try:
            client = Client(port, reconnect=1)  # a connection per call: it idles through a phase
            x, y = new_app(client, "flooder X"), new_app(client, "player Y")
            with workers(redis_url, args.workers):
                progress(f"unloaded phase: {args.phase:.0f} s")
                run_probes(port, y, args, unloaded)
                progress(f"app X floods {args.flood} matches")
                flooding = flood(client, x, args)
                time.sleep(args.settle)
                before = versions(client, x, flooding)
                progress(f"loaded phase: {args.phase:.0f} s")
                run_probes(port, y, args, loaded)
                loaded.flood_decisions = versions(client, x, flooding) - before
                progress("stopping the workers")
        finally:
            stop_server(server)
    return 0 if report(args, unloaded, loaded) else 2


if __name__ == "__main__":
    raise SystemExit(main())
