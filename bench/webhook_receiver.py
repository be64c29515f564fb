"""A webhook receiver for the webhook benchmark and the reliability tests (``python -m
bench.webhook_receiver --port P [--log FILE]``).

One asyncio process speaking raw HTTP/1.1 (keep-alive, ``Content-Length`` bodies), so that what the
benchmark measures is the delivery lane and not the receiver: answering ``204`` costs it a few tens of
microseconds.  It runs as a process of its own, so a test can stop it (the receiver "down") and start it
again on the same port, and so it never shares a GIL with what it measures.

What it does with a request depends on the path's first segment, so one receiver serves healthy and
unhealthy endpoints side by side:

``/ok/...``             ``204`` at once;
``/hang/...``           never answers: holds the connection until the client closes it (a receiver
                        that accepts and hangs, the case the 5-s delivery timeout is for);
``/hang-first/...``     the first request to that exact path hangs as ``/hang``, later ones are ``/ok``
                        (a delivery that is in flight for as long as a test needs, then a healthy one);
``/status/<code>/...``  answers ``<code>`` (``?retry_after=N`` adds ``Retry-After: N``);
``/redirect/...``       ``302`` to ``?to=<url>`` (a lane must not follow it).

Every request but the control ones is recorded: arrival time (``time.time()`` once its body is read),
path, headers (lower-cased) and body, and the status it got (``None`` while hanging).  With ``--log``
each record is also appended to the file as a JSON line, flushed at once, so records outlive the
process (a test stops and restarts the receiver).  Control: ``GET /_records?after=N`` answers the
records from the ``N``-th on (``?brief=1``: only time, path, ``webhook-id`` and the payload's
``data.match_id``, ``data.version`` and ``type``, what the benchmark needs); ``GET /_count`` the
number of records.  The listening socket sets ``SO_REUSEADDR``, so a restart binds the port again at
once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any, Self
from urllib.parse import parse_qs, urlsplit

import orjson

REASONS = {200: "OK", 204: "No Content", 302: "Found", 404: "Not Found", 410: "Gone", 500: "Server Error"}
#: A request head larger than this closes the connection (nothing legitimate sends more).
MAX_HEAD = 64 * 1024


class Receiver:
    """The recording state of one receiver process."""

    def __init__(self, log: IO[str] | None) -> None:
        self.log = log
        self.records: list[dict[str, Any]] = []
        self.hung_paths: set[str] = set()

    def record(self, path: str, headers: dict[str, str], body: bytes, status: int | None) -> None:
        doc = {
            "n": len(self.records),
            "t": time.time(),
            "path": path,
            "headers": headers,
            "body": body.decode("utf-8", "replace"),
            "status": status,
        }
        self.records.append(doc)
        if self.log is not None:
            self.log.write(json.dumps(doc) + "\n")
            self.log.flush()

    def behaviour(self, target: str) -> tuple[int | None, dict[str, str]]:
        """The status to answer ``target`` with (``None``: hang) and extra headers."""
        parts = urlsplit(target)
        segments = parts.path.strip("/").split("/")
        query = parse_qs(parts.query)
        kind = segments[0]
        if kind == "hang":
            return None, {}
        if kind == "hang-first":
            if parts.path not in self.hung_paths:
                self.hung_paths.add(parts.path)
                return None, {}
            return 204, {}
        if kind == "status" and len(segments) > 1 and segments[1].isdigit():
            extra = {"Retry-After": query["retry_after"][0]} if "retry_after" in query else {}
            return int(segments[1]), extra
        if kind == "redirect":
            return 302, {"Location": query.get("to", ["/ok/redirected"])[0]}
        return 204, {}

    def control(self, target: str) -> bytes:
        parts = urlsplit(target)
        query = parse_qs(parts.query)
        if parts.path == "/_count":
            return orjson.dumps({"count": len(self.records)})
        after = int(query.get("after", ["0"])[0])
        records = self.records[after:]
        if query.get("brief"):
            return orjson.dumps([brief(r) for r in records])
        return orjson.dumps(records)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, target = lines[0].split(" ")[:2]
                headers = {}
                for line in lines[1:]:
                    if line:
                        name, _, value = line.partition(":")
                        headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                if method == "GET" and target.startswith("/_"):
                    respond(writer, 200, self.control(target), {"Content-Type": "application/json"})
                    await writer.drain()
                    continue
                status, extra = self.behaviour(target)
                self.record(urlsplit(target).path, headers, body, status)
                if status is None:  # hang: wait for the client to give up
                    while await reader.read(65536):
                        pass
                    return
                respond(writer, status, b"", extra)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()


def brief(record: dict[str, Any]) -> dict[str, Any]:
    """What the benchmark keeps of a record: when, where, which message, about which commit."""
    data: dict[str, Any] = {}
    kind = None
    try:
        payload = orjson.loads(record["body"])
        data, kind = payload.get("data") or {}, payload.get("type")
    except orjson.JSONDecodeError:
        pass
    return {
        "t": record["t"],
        "path": record["path"],
        "id": record["headers"].get("webhook-id"),
        "type": kind,
        "match_id": data.get("match_id"),
        "version": data.get("version"),
        "player": data.get("player"),
    }


def respond(writer: asyncio.StreamWriter, status: int, body: bytes, headers: dict[str, str]) -> None:
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}", f"Content-Length: {len(body)}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)


async def main_async(port: int, host: str, log_path: str | None) -> None:
    log = Path(log_path).open("a", encoding="utf-8") if log_path else None  # noqa: SIM115 (process-long)
    receiver = Receiver(log)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    server = await asyncio.start_server(receiver.serve, sock=sock, limit=MAX_HEAD, backlog=4096)
    print(f"listening {host}:{sock.getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


class ReceiverProcess:
    """The receiver as a child process on a fixed port, which :meth:`stop` and :meth:`start` again
    keep (``port=0``: a free one, chosen at the first start)."""

    def __init__(self, port: int = 0, log: Path | None = None) -> None:
        self.port = port or _free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def start(self, timeout: float = 15.0) -> Self:
        cmd = [sys.executable, "-m", "bench.webhook_receiver", "--port", str(self.port)]
        if self.log is not None:
            cmd += ["--log", str(self.log)]
        root = Path(__file__).resolve().parents[1]
        env = {**os.environ, "PYTHONPATH": str(root)}
        self.proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.count()
                return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.kill()
                    raise RuntimeError("the webhook receiver did not start") from None
                time.sleep(0.02)

    def _get(self, path: str) -> Any:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", path)
            return orjson.loads(conn.getresponse().read())
        finally:
            conn.close()

    def count(self) -> int:
        return int(self._get("/_count")["count"])

    def records(self, after: int = 0, brief: bool = False) -> list[dict[str, Any]]:
        """The records this run of the process kept (from the ``after``-th on)."""
        return list(self._get(f"/_records?after={after}" + ("&brief=1" if brief else "")))

    def logged(self) -> list[dict[str, Any]]:
        """Every record of every run of the process, from the log file."""
        if self.log is None or not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the process (``sig``, SIGKILL after 10 s): the port refuses connections until
        :meth:`start`."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--log", help="append every record to this file as a JSON line")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main_async(args.port, args.host, args.log))
    return 0


if __name__ == "__main__":
    sys.exit(main())
