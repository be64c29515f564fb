"""service/serving.py's cheaper versions of gunicorn's per-request work (issue 30: each was a few per
cent of a health check's CPU) answer exactly what gunicorn's do."""

from __future__ import annotations

import email.utils
import ipaddress
import json
import subprocess
import sys
import time

import pytest
from gunicorn import util
from gunicorn.config import Config as GunicornConfig
from gunicorn.http import message

from service import serving


def test_the_date_header_is_gunicorns_for_this_second_and_for_a_given_time():
    for _ in range(3):
        before = int(time.time())
        ours = serving.http_date()
        after = int(time.time())
        assert ours in {email.utils.formatdate(t, usegmt=True) for t in (before, after)}
    assert serving.http_date(1_700_000_000.7) == serving._gunicorn_http_date(1_700_000_000.7)


@pytest.mark.parametrize(
    "allowed",
    [["127.0.0.1", "::1"], ["10.0.0.0/8"], ["*"], [], ["192.168.1.5", "2001:db8::/32"]],
)
def test_the_forwarding_check_answers_as_gunicorns(allowed):
    assert serving._gunicorn_in_allow_list is not None  # gunicorn 24 and later (the pinned floor is 23)
    networks = [ipaddress.ip_network(a) for a in allowed if a != "*"]
    for ip in ("127.0.0.1", "::1", "10.1.2.3", "192.168.1.5", "2001:db8::7", "8.8.8.8", "not an ip"):
        for _ in range(2):  # the second answer is the remembered one
            assert serving.ip_in_allow_list(ip, allowed, networks) == serving._gunicorn_in_allow_list(
                ip, allowed, networks
            ), (ip, allowed)


def test_the_errors_stream_finds_the_error_log_only_when_written(capsys):
    cfg = GunicornConfig()
    cfg.set("errorlog", "-")
    errors = serving.LazyErrors(cfg)
    assert "_errors" not in errors.__dict__  # nothing looked up for a request that writes nothing
    errors.write("a line for wsgi.errors\n")
    errors.writelines(["and another\n"])
    assert capsys.readouterr().err == "a line for wsgi.errors\nand another\n"


def test_a_server_process_uses_them(monkeypatch):
    for module, name in ((util, "http_date"), (message, "_ip_in_allow_list")):
        monkeypatch.setattr(module, name, getattr(module, name))
    from gunicorn.http import wsgi

    monkeypatch.setattr(wsgi, "Response", wsgi.Response)
    monkeypatch.setattr(wsgi, "WSGIErrorsWrapper", wsgi.WSGIErrorsWrapper)
    serving.install_per_request_cuts()
    assert util.http_date is serving.http_date
    assert message._ip_in_allow_list is serving.ip_in_allow_list
    assert wsgi.WSGIErrorsWrapper is serving.LazyErrors and wsgi.Response is serving.OneSendResponse


#: Run in a process of its own: the collector's settings are the process's.
_GC_PROBE = """
import gc, json, weakref
from gunicorn.config import Config
from service import serving

class Node:
    pass

class App:  # what gunicorn hands a worker: the app is made by ``wsgi()``
    tabletop_config = None
    def wsgi(self):
        made.extend(object() for _ in range(5000))  # what the app makes at start-up
        node = Node()
        node.cycle = node  # and garbage it leaves in a cycle
        left.append(weakref.ref(node))
        return lambda environ, start_response: []

left = []

made = []
before = gc.get_threshold()
worker = serving.Worker(0, 0, [], App(), 30, Config(), None)
assert gc.get_threshold() == before and gc.get_freeze_count() == 0  # nothing changed before the app
worker.load_wsgi()
frozen = gc.get_freeze_count()
a, b = [], []
a.append(b); b.append(a)  # a cycle made after start-up ...
del a, b
print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": frozen,
                  "collected": gc.collect(),  # ... is still collected
                  "left_alive": left[0]() is not None}))
"""


def test_a_server_process_tunes_the_cycle_collector_once_its_app_is_made():
    out = subprocess.run([sys.executable, "-c", _GC_PROBE], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["after"] == [serving.GC_YOUNG_THRESHOLD, *seen["before"][1:]]
    assert seen["before"][0] < serving.GC_YOUNG_THRESHOLD
    assert seen["frozen"] > 5000  # start-up's objects, the app's included, are out of the collector's sight
    assert seen["collected"] >= 2
    assert not seen["left_alive"]  # start-up's garbage was collected, not kept for good
