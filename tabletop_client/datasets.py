"""``tabletop dataset``: all-bot matches played on the server's workers, kept as match records with a
datasheet saying what they are and how they were made.

    tabletop dataset --game china --levels hard,hard,hard --matches 200 --out data/china-hard

This side creates the matches (with an app key when given: the app's private matches) and waits for
them; the server's bot workers play every seat.  Each finished match's full record
(``GET /v1/matches/{id}/record``, format ``tabletop-record/1``, as bots take nothing back: the deal's seed,
every decision, the result) is appended to ``records.ndjson.part`` as soon as it is read, so memory stays flat
however many matches there are; at the end it becomes ``records.ndjson``, and ``datasheet.json`` and
``datasheet.md`` are written beside it (a run that fails leaves the ``.part`` file, never a file that looks
whole).  ``research.records``
turns the records into the adapters' trajectories (docs/research.md).

A few matches are in play at once (``parallel``): enough to keep several workers busy, few enough not
to crowd out other users of a shared server.  Records are written in the order the matches were
created, so a seed list (``seed``) gives the same file order on every run.
"""

from __future__ import annotations

import datetime
import json
import sys
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from tabletop_client.client import Client
from tabletop_client.transport import Doc

RECORDS = "records.ndjson"
DATASHEET_JSON = "datasheet.json"
DATASHEET_MD = "datasheet.md"


@dataclass
class Plan:
    """What to play: ``levels`` one bot level per seat (seat order), ``think_ms`` each seat's think
    budget (``None``: the server's default for the level), ``seed`` the first match's deal (the next
    ones count up; ``None``: the server draws each)."""

    game: str
    levels: list[str]
    matches: int
    think_ms: list[int | None] = field(default_factory=list)
    options: Doc = field(default_factory=dict)
    seed: int | None = None
    parallel: int = 4

    def seats(self) -> list[Doc]:
        seats: list[Doc] = []
        for i, level in enumerate(self.levels):
            seat: Doc = {"name": f"{level}-{i}", "kind": "bot", "level": level}
            think = self.think_ms[i] if i < len(self.think_ms) else None
            if think is not None:
                seat["think_ms"] = think
            seats.append(seat)
        return seats


def make(
    client: Client,
    plan: Plan,
    out: Path,
    token: str | None = None,
    command: list[str] | None = None,
    server: str | None = None,
    timeout: float = 3600.0,
    progress: TextIO | None = None,
) -> Doc:
    """Play ``plan`` through ``client`` (``token``: an app key, or ``None`` for public anonymous
    matches) and write the dataset into ``out``; the datasheet (also written as ``datasheet.json``).
    ``command`` and ``server`` are noted in the datasheet as how the data was made; a count of the
    matches done goes to ``progress`` (standard error by default)."""
    progress = sys.stderr if progress is None else progress
    client.game(plan.game)  # the server is there and has the game, before anything is written
    out.mkdir(parents=True, exist_ok=True)
    started = _now()
    pending: deque[str] = deque()
    made: list[Doc] = []
    created = 0
    partial = out / f"{RECORDS}.part"  # renamed once every match is in: never mistaken for a whole set
    with partial.open("w", encoding="utf-8") as records:
        while len(made) < plan.matches:
            while created < plan.matches and len(pending) < max(1, plan.parallel):
                seed = None if plan.seed is None else plan.seed + created
                doc = client.create_match(plan.game, plan.seats(), plan.options, seed=seed, token=token)
                pending.append(doc["id"])
                created += 1
            match_id = pending.popleft()
            client.wait_finished(match_id, timeout=timeout, token=token)
            record = client.record(match_id, token)  # over: the full record, seed and all
            records.write(json.dumps(record, separators=(",", ":")) + "\n")
            made.append(_summary(record))
            print(f"\r{len(made)}/{plan.matches} matches", end="", file=progress, flush=True)
    print(file=progress)
    partial.replace(out / RECORDS)
    sheet = datasheet(plan, made, started, command, server)
    (out / DATASHEET_JSON).write_text(json.dumps(sheet, indent=2) + "\n", encoding="utf-8")
    (out / DATASHEET_MD).write_text(markdown(sheet), encoding="utf-8")
    return sheet


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _summary(record: Doc) -> Doc:
    header = record["header"]
    result = record.get("result") or {}
    return {
        "match_id": header["match_id"],
        "seed": (record.get("setup") or {}).get("seed"),
        "decisions": len(record["decisions"]),
        "winner": (result.get("ranking") or [None])[0],
        "engine_version": header["engine_version"],
        "rules_version": header["rules_version"],
        "options": header.get("options", {}),
    }


def datasheet(
    plan: Plan, made: list[Doc], started: str, command: list[str] | None, server: str | None
) -> Doc:
    """The datasheet of a dataset: what is in it, how it was made, and the versions and seeds that let
    anyone check a record against the engine (``tabletop replay``)."""
    decisions = [m["decisions"] for m in made]
    wins = [sum(1 for m in made if m["winner"] == s) for s in range(len(plan.levels))]
    return {
        "format": "tabletop-dataset/1",
        "records": RECORDS,
        "record_format": "tabletop-record/1",
        "game": plan.game,
        "players": len(plan.levels),
        "options": made[0]["options"] if made else plan.options,
        "seats": [
            {"seat": i, "level": level, "think_ms": plan.think_ms[i] if i < len(plan.think_ms) else None}
            for i, level in enumerate(plan.levels)
        ],
        "matches": len(made),
        "decisions": {
            "total": sum(decisions),
            "min": min(decisions, default=0),
            "max": max(decisions, default=0),
        },
        "wins_by_seat": wins,
        "engine_versions": sorted({m["engine_version"] for m in made}),
        "rules_versions": sorted({m["rules_version"] for m in made}),
        "seeds": [m["seed"] for m in made],
        "match_ids": [m["match_id"] for m in made],
        "plan": asdict(plan),
        "server": server,
        "command": command,
        "started_at": started,
        "finished_at": _now(),
    }


def markdown(sheet: Doc) -> str:
    """``datasheet.md``: the datasheet for people (the seeds and match ids are in the JSON)."""
    seats = ", ".join(
        f"seat {s['seat']}: {s['level']}" + (f" ({s['think_ms']} ms)" if s["think_ms"] is not None else "")
        for s in sheet["seats"]
    )
    seeds = sheet["seeds"]
    shown = ", ".join(str(s) for s in seeds[:5]) + (f", ... ({len(seeds)} in all)" if len(seeds) > 5 else "")
    lines = [
        f"# Dataset: {sheet['game']}, {sheet['matches']} bot matches",
        "",
        "## What",
        "",
        f"- Records: `{sheet['records']}`, one `{sheet['record_format']}` document a line (full records: "
        "deal seed, every decision with its events, result).",
        f"- Game: `{sheet['game']}`, {sheet['players']} players, options `{json.dumps(sheet['options'])}`.",
        f"- Seats (bot levels, think budget): {seats}.",
        f"- Decisions: {sheet['decisions']['total']} in all, {sheet['decisions']['min']} to "
        f"{sheet['decisions']['max']} a match. Wins by seat: {sheet['wins_by_seat']}.",
        "",
        "## How it was made",
        "",
        "- All-bot matches created through the HTTP API and played by the server's bot workers "
        f"(server: {sheet['server'] or 'unknown'}).",
        f"- Command: `{' '.join(sheet['command'] or [])}`.",
        f"- Made {sheet['started_at']} to {sheet['finished_at']} (UTC).",
        f"- Engine version(s): {', '.join(sheet['engine_versions'])}; rules version(s): "
        f"{', '.join(sheet['rules_versions'])}.",
        f"- Seeds: {shown} (all of them, with the match ids, in `datasheet.json`).",
        "",
        "## Use",
        "",
        "`tabletop replay` checks a record against the engine; `research.records.trajectories(record)` gives",
        "each seat's observations, legal actions, actions and returns as the OpenSpiel and PettingZoo",
        'adapters see them (docs/research.md, "Datasets and trajectories").',
        "",
    ]
    return "\n".join(lines)
