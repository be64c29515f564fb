"""Responses are serialized by orjson (service/http/json_provider.py) but must read exactly as the standard
library's JSON would, and must never fail on a value orjson refuses."""

from __future__ import annotations

import json

import pytest
from flask import Flask


@pytest.mark.parametrize(
    "value",
    [
        {"view": {"players": [{"seat": 0, "hand": [3, 5]}], "name": "Zoë ✓"}, "to_move": None},
        {"counts": {1: 2, 3: 4}},  # integer keys become strings, as json.dumps makes them
        {"lone": "\ud800"},  # orjson refuses lone surrogates: the standard encoder takes over
        {"big": 2**70},  # and integers over 64 bits
    ],
)
def test_a_response_reads_as_the_standard_encoder_would_write_it(app: Flask, value):
    with app.app_context():
        resp = app.json.response(value)
        assert resp.mimetype == "application/json"
        assert json.loads(resp.get_data()) == json.loads(json.dumps(value))
        assert json.loads(app.json.dumps(value)) == json.loads(json.dumps(value))
