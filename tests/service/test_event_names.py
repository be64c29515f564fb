"""Each service event type is named once (:mod:`service.events`), and the spec shows every
one of them."""

import json
from pathlib import Path

from service import events
from service.http.schemas.events import SERVICE_EVENTS
from service.http.spec.refs import pascal

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def _names() -> set[str]:
    return {value for name, value in vars(events).items() if name.isupper() and isinstance(value, str)}


def test_every_service_event_name_has_a_schema_and_every_schema_a_name():
    """``match_over`` carries the game's result, so the spec builds it per game; the rest have one schema
    each, whose ``type`` is its name."""
    assert set(SERVICE_EVENTS) | {events.OVER} == _names()
    assert all(schema["properties"]["type"] == {"const": kind} for kind, schema in SERVICE_EVENTS.items())


def test_the_committed_spec_shows_every_service_event():
    schemas = json.loads(COMMITTED.read_text(encoding="utf-8"))["components"]["schemas"]
    for kind in _names() - {events.OVER}:
        assert schemas[f"{pascal(kind)}Event"]["properties"]["type"] == {"const": kind}
    over = [s for name, s in schemas.items() if name.endswith("MatchOverEvent")]
    assert over and all(s["properties"]["type"] == {"const": events.OVER} for s in over)
