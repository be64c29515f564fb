"""Record exports: an app's finished matches streamed as NDJSON records (``python -m bench.export``).

Issue 45 asks that an export of 10,000 matches stream at least 1,000 records/s.  In one run this bench
starts a private Redis and ``tabletop serve`` (``--workers`` API processes, the admin token set), then:

1. setup, through the API: the operator creates an app, the app names two players, and
   ``--templates`` matches of ``--game`` between them are played to the end with random legal moves
   (each finishing commit keeps the match's full record: the bench checks that every template's is);
2. the fast fixture: each template's keys (meta, events, action log) are copied (``DUMP``/``RESTORE``,
   pipelined) under new ids until there are ``--matches`` finished matches, each named in the app's
   finished index as a commit that finishes a match names it
   (:func:`service.storage.matches.finished_indexes`),
   so the export reads them as it reads any.  A kept record names its match, so it is not copied: the
   copies are matches whose records were never kept (as after a release that changes records);
3. the exports, timed: ``GET /v1/apps/me/records`` with ``limit`` = all of them, read line by line,
   twice.  The first builds every record at the read (and keeps it: the Redis memory that takes is
   reported); the second writes the kept records, as an export of matches that finished through the
   service does (the issue's figure).  Records/s, bytes/s and the server processes' memory growth,
   beside the baseline measured in the same run: the same records read one match at a time
   (``GET /v1/matches/{id}/record``), as an integration without the export would (over ``--baseline``
   matches).

Prints one table; ``--json`` writes the figures too.  ``--against DIR --rounds N`` runs the same bench
from another checkout (a ``git worktree`` of the code before) and this one in turn, N times each, and
prints each figure's range for both (the machine may be shared: interleaving spreads its load).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from bench.api import ROOT, Client, free_port, start_server
from bench.procs import cpu_seconds, descendants, rss_mb, stop_server
from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from service.storage.matches import finished_indexes, match_key

ADMIN_TOKEN = "bench-export-admin-token"
#: Keys of a match that its record is built from.
PARTS = ("meta", "events", "log")
#: Matches copied a pipeline.
COPY_BATCH = 500


def setup_app(port: int) -> tuple[str, dict[str, str]]:
    """An app with players ann and bob: its key and their tokens."""
    client = Client(port)
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    status, app = client.call("POST", "/v1/admin/apps", {"name": "bench-export"}, admin)
    assert status == 201, app
    key = {"Authorization": f"Bearer {app['key']}"}
    tokens = {}
    for pid in ("ann", "bob"):
        assert client.call("PUT", f"/v1/players/{pid}", {"name": pid.title()}, key)[0] == 201
        status, made = client.call("POST", f"/v1/players/{pid}/tokens", {}, key)
        assert status == 201, made
        tokens[pid] = made["token"]
    return app["key"], tokens


def play_templates(
    port: int, key: str, tokens: dict[str, str], game: str, count: int, seed: int
) -> list[str]:
    """``count`` matches of ``game`` between ann and bob, played to the end with random legal moves."""
    client, rng, ids = Client(port), random.Random(seed), []
    auth = {"Authorization": f"Bearer {key}"}
    for i in range(count):
        body = {"game": game, "seats": [{"player": "ann"}, {"player": "bob"}], "seed": seed + i}
        status, match = client.call("POST", "/v1/matches", body, auth)
        assert status == 201, match
        mid = match["id"]
        while True:
            status, doc = client.call("GET", f"/v1/matches/{mid}", None, auth)
            if doc["to_move"] is None:
                break
            who = {"Authorization": f"Bearer {tokens[doc['seats'][doc['to_move']]['player']]}"}
            status, legal = client.call("GET", f"/v1/matches/{mid}/legal-actions", None, who)
            assert status == 200, legal
            move = {"action": rng.choice(legal["actions"])}
            status, _ = client.call(
                "POST", f"/v1/matches/{mid}/actions", move, {**who, "If-Match": f'"{legal["version"]}"'}
            )
            assert status == 200
        ids.append(mid)
    return ids


def copy_matches(client: redis.Redis, app: str, templates: list[str], total: int) -> list[str]:
    """Copies of the template matches under new ids, ``total`` in all (templates included), each named
    in the app's finished index: what ``total`` finished matches leave in Redis."""
    index = finished_indexes(app, None)[0]
    dumps = {mid: [client.dump(match_key(mid, p)) for p in PARTS] for mid in templates}
    made = list(templates)
    at = time.time()
    while len(made) < total:
        pipe = client.pipeline(transaction=False)
        batch = []
        for _ in range(min(COPY_BATCH, total - len(made))):
            source = templates[len(made) % len(templates)]
            mid = f"copy{len(made):07d}"
            for part, blob in zip(PARTS, dumps[source], strict=True):
                pipe.restore(match_key(mid, part), 0, blob)
            batch.append(mid)
            made.append(mid)
        pipe.zadd(index, {mid: at + i / 1e4 for i, mid in enumerate(batch, len(made))})
        pipe.execute()
    return made


def stream_export(port: int, key: str, total: int) -> tuple[int, int, float]:
    """The whole export in one call: (records, bytes, seconds)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    started = time.perf_counter()
    conn.request(
        "GET", f"/v1/apps/me/records?limit={min(total, 10_000)}", headers={"Authorization": f"Bearer {key}"}
    )
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    records = size = 0
    while line := resp.readline():
        size += len(line)
        if not line.startswith(b'{"type":"cursor"'):  # a record starts {"format":...: no parse needed
            records += 1
    elapsed = time.perf_counter() - started
    conn.close()
    return records, size, elapsed


def redis_seconds(client: redis.Redis) -> float:
    """The Redis server's CPU time so far (user and system)."""
    cpu = client.info("cpu")
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def redis_mb(client: redis.Redis) -> float:
    """The Redis server's memory in use, in MB."""
    return float(client.info("memory")["used_memory"]) / 1e6


def one_by_one(port: int, key: str, ids: list[str]) -> float:
    """Seconds to read these matches' records one request each (the baseline)."""
    client = Client(port, reconnect=0)
    auth = {"Authorization": f"Bearer {key}"}
    started = time.perf_counter()
    for mid in ids:
        status, _ = client.call("GET", f"/v1/matches/{mid}/record", None, auth)
        assert status == 200
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--matches", type=int, default=10_000, help="finished matches to export (at most 10,000)"
    )
    parser.add_argument("--templates", type=int, default=10, help="matches played through the API first")
    two = sorted(g for g in GAMES if GAMES[g].min_players <= 2 <= GAMES[g].max_players)
    parser.add_argument("--game", default="year_of_dragon", choices=two, help="a game two players play")
    parser.add_argument("--baseline", type=int, default=300, help="matches read one by one for the baseline")
    parser.add_argument("--workers", type=int, default=1, help="API processes")
    parser.add_argument("--seed", type=int, default=45)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--against", help="a checkout of the code before (a git worktree) to compare")
    parser.add_argument("--rounds", type=int, default=3, help="with --against: runs of each, in turn")
    args = parser.parse_args(argv)
    if args.against:
        same = ("matches", "templates", "game", "baseline", "workers", "seed")
        return compare(args.against, args.rounds, [f"--{k}={getattr(args, k)}" for k in same])
    with PrivateRedis() as redis_url:
        port = free_port()
        server = start_server(redis_url, port, args.workers, admin_token=ADMIN_TOKEN)
        try:
            key, tokens = setup_app(port)
            templates = play_templates(port, key, tokens, args.game, args.templates, args.seed)
            client = redis.Redis.from_url(redis_url)
            status, me = Client(port).call("GET", "/v1/apps/me", None, {"Authorization": f"Bearer {key}"})
            assert status == 200, me
            kept_at_finish = sum(bool(client.exists(match_key(mid, "record"))) for mid in templates)
            ids = copy_matches(client, me["id"], templates, args.matches)
            before, memory = rss_mb(server.pid), redis_mb(client)
            runs = []
            for _ in ("built at the read", "kept"):
                cpu, redis_cpu = cpu_seconds(descendants(server.pid)), redis_seconds(client)
                records, size, seconds = stream_export(port, key, args.matches)
                cpu, redis_cpu = cpu_seconds(descendants(server.pid)) - cpu, redis_seconds(client) - redis_cpu
                assert records == len(ids), (records, len(ids))
                runs.append((records, size, seconds, cpu, redis_cpu))
                if not runs[1:]:
                    kept_mb = redis_mb(client) - memory
            after = rss_mb(server.pid)
            base_ids = ids[: max(1, min(args.baseline, len(ids)))]
            base_seconds = one_by_one(port, key, base_ids)
        finally:
            stop_server(server)
    (records, _, cold_seconds, cold_cpu, _), (_, size, seconds, cpu, redis_cpu) = runs
    rate, base_rate, cold_rate = records / seconds, len(base_ids) / base_seconds, records / cold_seconds
    figures = {
        "game": args.game,
        "records": records,
        "seconds": round(seconds, 3),
        "records_per_s": round(rate, 1),
        "mb_per_s": round(size / seconds / 1e6, 2),
        "bytes_per_record": size // max(records, 1),
        "server_rss_growth_mb": round(after - before, 1),
        # On a shared machine the wall rate is the machine's; per CPU-second of the API, the code's.
        "server_cpu_s": round(cpu, 2),
        "records_per_server_cpu_s": round(records / cpu, 1) if cpu else None,
        "redis_cpu_s": round(redis_cpu, 2),
        # The first export, which built every record (and kept it), and what keeping them took.
        "built_records_per_s": round(cold_rate, 1),
        "built_records_per_server_cpu_s": round(records / cold_cpu, 1) if cold_cpu else None,
        "kept_redis_mb": round(kept_mb, 1),
        "kept_bytes_per_record": round(kept_mb * 1e6 / max(records, 1)),
        "templates_kept_at_finish": f"{kept_at_finish}/{len(templates)}",
        "baseline_records_per_s": round(base_rate, 1),
        "ratio_to_baseline": round(rate / base_rate, 2),
        "target_records_per_s": 1000,
    }
    print(
        f"export of {records} kept {args.game} records: {rate:,.0f} records/s ({figures['mb_per_s']} MB/s, "
        f"{figures['bytes_per_record']} B/record), server RSS +{figures['server_rss_growth_mb']} MB, "
        f"{figures['records_per_server_cpu_s']} records per CPU-second of the API processes "
        f"(Redis {figures['redis_cpu_s']} CPU-s, API {figures['server_cpu_s']} CPU-s)"
    )
    print(
        f"the first export, every record built at the read and kept: {cold_rate:,.0f} records/s "
        f"({figures['built_records_per_server_cpu_s']} per API CPU-second); keeping them took Redis "
        f"{figures['kept_redis_mb']} MB ({figures['kept_bytes_per_record']} B/record); records kept "
        f"as their match finished: {figures['templates_kept_at_finish']} of the templates"
    )
    print(
        f"baseline, one GET /record each ({len(base_ids)}): {base_rate:,.0f} records/s; "
        f"export/baseline = {figures['ratio_to_baseline']}x; target >= 1,000 records/s: "
        f"{'met' if rate >= 1000 else 'NOT met'}"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
    return figures


def compare(against: str, rounds: int, argv: list[str]) -> dict[str, list[Any]]:
    """This bench from the checkout ``against`` and from this one, in turn, ``rounds`` times each (each
    run a process of its own, its tree's code on its path): every figure's values, per checkout."""
    runs: dict[str, list[Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(rounds):
            for name, root in (("before", Path(against).resolve()), ("after", ROOT)):
                out = Path(tmp) / f"{name}{i}.json"
                env = {**os.environ, "PYTHONPATH": str(root)}
                cmd = [sys.executable, "-m", "bench.export", *argv, "--json", str(out)]
                subprocess.run(cmd, cwd=root, env=env, check=True)
                for k, v in json.loads(out.read_text()).items():
                    runs.setdefault(f"{name}.{k}", []).append(v)
    for k, values in runs.items():
        if all(isinstance(v, int | float) for v in values):
            print(f"{k}: {min(values)} - {max(values)}   {values}")
    return runs


if __name__ == "__main__":
    main(sys.argv[1:])
