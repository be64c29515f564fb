"""The "Receiving webhooks" page (docs/api/webhooks.md) works when copied (issue 26 point 8): its ``sh``
block registers an endpoint with curl against ``tabletop serve`` in development mode (which allows a
receiver on 127.0.0.1) and starts the page's own Python receiver, whose exact text is run here; the
delivery lane of the development server's worker delivers the ping and then a real ``your_turn``, and the
receiver verifies each with the ``standardwebhooks`` library (a forged one it refuses)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bench.api import free_port
from tabletop_client import AppClient, Client
from tests.clients.test_readme import ADMIN_TOKEN, api  # noqa: F401  (api: the fixture)
from tests.docs.pages import block

pytestmark = pytest.mark.timeout(300)
T = TypeVar("T")


def until(what: str, check: Callable[[], T | None], seconds: float = 60.0) -> T:
    """Poll ``check`` until it returns something (a deadline, never a fixed sleep)."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found is not None:
            return found
        assert time.monotonic() < deadline, f"no {what} within {seconds:.0f} s"
        time.sleep(0.1)


def test_the_webhooks_walkthrough_delivers_signed_messages_to_the_readmes_receiver(
    api: str,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    receiver = block("webhook-receiver", "python")
    assert len(receiver.splitlines()) <= 20  # "a ten-line verifying receiver", give or take imports
    (tmp_path / "receiver.py").write_text(receiver, encoding="utf-8")
    admin = Client(api)
    key = admin.create_app(ADMIN_TOKEN, "pushes")["key"]
    app = AppClient(api, key)
    for pid in ("ann", "bob"):
        app.put_player(pid, pid.title())
    port = free_port()
    env = {
        **os.environ,
        "API": api,
        "APP": f"Authorization: Bearer {key}",
        "URL": f"http://127.0.0.1:{port}/tabletop",
        "PORT": str(port),
        # `python` as a reader's shell finds it: this interpreter, which has standardwebhooks.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with out.open("w") as sink, err.open("w") as errors:
        # A session of its own: the receiver the block leaves running in the background is stopped
        # with the whole group at the end.  Output to files, which the receiver goes on writing to
        # (a pipe would stay open as long as the receiver runs).
        shell = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", "-c", block("webhooks")],
            cwd=tmp_path, env=env, stdout=sink, stderr=errors, start_new_session=True,
        )  # fmt: skip
    try:
        shell.wait(timeout=120)
        assert shell.returncode == 0, out.read_text() + err.read_text()
        lines = out.read_text().splitlines()
        created = json.loads(lines[0])
        assert created["types"] == ["your_turn", "match_over"] and created["status"] == "enabled"
        assert created["secret"] == "whsec_…" and created["id"].startswith("ep_")
        received = [line.split() for line in lines if line.startswith("msg_")]
        logged = [json.loads(line) for line in lines[1:] if line.startswith("{")]
        (ping,) = logged  # the log holds the ping alone, delivered on the receiver's 204
        assert ping["type"] == "ping" and ping["status"] == "delivered" and ping["response_status"] == 204
        assert [ping["id"], "ping", "None"] in received  # the receiver verified it (else it answers 400)
        assert {tuple(r) for r in received} == {(ping["id"], "ping", "None")}

        # A match of Ann's and Bob's: the first mover's your_turn reaches the receiver, verified.
        match = app.create_match("year_of_dragon", [{"player": "ann"}, {"player": "bob"}])

        def turn() -> list[str] | None:
            found = [line.split() for line in out.read_text().splitlines() if line.startswith("msg_")]
            return next((r for r in found if r[1:] == ["your_turn", match["id"]]), None)

        message_id = until("your_turn at the receiver", turn)[0]
        (endpoint,) = app.webhooks()

        def logged_delivered() -> dict[str, Any] | None:
            doc = app.webhook_delivery(endpoint["id"], message_id)
            return doc if doc["status"] == "delivered" else None

        shown = until("the delivery logged", logged_delivered)
        data = shown["payload"]["data"]
        assert data["match_id"] == match["id"] and data["my_turn"] is True
        assert data["player"] == ("ann", "bob")[match["to_move"]] and shown["response_status"] == 204
        assert key not in json.dumps(shown)

        # The receiver refuses what the server did not sign (its own 400, not ours to fake).
        forged = urllib.request.Request(
            env["URL"],
            data=json.dumps(shown["payload"]).encode(),
            headers={
                "webhook-id": message_id,
                "webhook-timestamp": str(int(time.time())),
                "webhook-signature": "v1,bm90IGEgc2lnbmF0dXJl",
            },
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(forged, timeout=10)
        assert refused.value.code == 400
    finally:
        with contextlib.suppress(ProcessLookupError):  # the group's processes are this test's own
            os.killpg(shell.pid, signal.SIGTERM)
        shell.wait(timeout=30)
        app.close()
        admin.close()
