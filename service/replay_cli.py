"""``tabletop replay FILE``: replay match records through the engine and say, per record, that it
replays or where it first differs (:func:`engine.records.replay`; docs/records.md).  Both formats:
``tabletop-record/1`` and ``/2`` (with takebacks, each checked to be one the rules allow; the line then
says how many of the decisions were taken back).

FILE (``-`` for stdin) holds one record (a JSON document, pretty-printed or not) or many, one per line
(NDJSON, as ``tabletop export`` and the export endpoints write them; their ``cursor`` lines are skipped).
NDJSON is read a line at a time, so an export of any size replays in the memory of one record.

Exit status: 0 when every record replays, 1 when one does not (or is not a replayable record, or a
line is not JSON), 2 when FILE cannot be read.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator
from typing import IO, Any

from engine.records import RecordError, RecordMismatch, replay

#: Exit statuses, as every ``tabletop`` command's (see :mod:`service.cli`).
DONE, FAILED, USAGE = 0, 1, 2


def add_parser(sub: Any) -> None:
    """Register ``replay`` on the ``tabletop`` command's subparsers (see :mod:`service.cli`)."""
    parser = sub.add_parser(
        "replay",
        help="replay match records (one JSON record or NDJSON) through the engine, checking every step",
        description="Replay each full record in FILE through the engine: every decision's seat, action and "
        "events and the result must be what the engine gives. Prints one line per record. Exit status: 0 "
        "all replay, 1 a record does not, 2 FILE cannot be read.",
    )
    parser.add_argument("file", metavar="FILE", help="a record, or NDJSON of records; - for stdin")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        print(f"tabletop replay: {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return USAGE
    failed = replayed = 0
    with stream:
        for where, record in _records(stream):
            if isinstance(record, str):  # not JSON: the reason
                print(f"{where}: not a record: {record}")
                failed += 1
                continue
            name = record.get("header", {}).get("match_id", "?") if isinstance(record, dict) else "?"
            try:
                if not isinstance(record, dict):
                    raise RecordError("a record is a JSON object")
                done = replay(record)
            except RecordMismatch as exc:
                print(f"{where} {name}: MISMATCH {exc}")
                failed += 1
                continue
            except RecordError as exc:
                print(f"{where} {name}: CANNOT REPLAY: {exc}")
                failed += 1
                continue
            replayed += 1
            rules = (
                "" if done.same_rules else f" (recorded under rules {done.rules_version}; they changed since)"
            )
            undone = sum(len(t["decisions"]) for t in record.get("takebacks", []))  # a /2 record's
            taken = f" ({undone} taken back)" if undone else ""
            print(f"{where} {name}: OK, {done.decisions} decisions{taken}{rules}")
    print(f"{replayed} replayed, {failed} failed", file=sys.stderr)
    return FAILED if failed or not replayed else DONE


def _records(stream: IO[str]) -> Iterator[tuple[str, Any]]:
    """``(where, record)`` for each record of the stream (``where``: its line); a line that is not JSON
    gives the parser's message instead of a record.  A first line that is not JSON on its own means
    one pretty-printed document: the whole stream is read as that."""
    first = stream.readline()
    try:
        json.loads(first)
    except json.JSONDecodeError:
        rest = first + stream.read()
        try:
            yield "record", json.loads(rest)
        except json.JSONDecodeError as exc:
            yield "record", str(exc)
        return
    for number, line in itertools.chain([(1, first)], enumerate(stream, start=2)):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            yield f"line {number}", str(exc)
            continue
        if isinstance(record, dict) and record.get("type") == "cursor":
            continue  # an export page's last line: where the next page starts
        yield f"line {number}", record
