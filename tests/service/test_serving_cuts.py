"""service/serving.py's cheaper versions of gunicorn's per-request work (issue 30: each was a few per
cent of a health check's CPU) answer exactly what gunicorn's do."""

from __future__ import annotations

import email.utils
import ipaddress
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
