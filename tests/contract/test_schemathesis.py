"""Schemathesis against the app, in process, over a real Redis.

Stateless: for every operation, positive and negative requests generated from the spec, both against
unknown ids and against a live match with a valid seat token.  Stateful: sequences that follow the
spec's OpenAPI links from ``createMatch``.  No response may be a 5xx or differ from the spec (status,
content type, headers, body schema).  Bounded in examples so CI stays fast.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from service.config import Config
from service.http.app import OFFLINE_REDIS_URL, create_app
from tests.service.conftest import TEST_GAMES, make_config

EXAMPLES = 20
#: In a game API schema-valid does not mean acceptable: a well-formed move may break a rule (422) or
#: come without a version (428), a well-formed seat list may not fit the game's player counts.  Every
#: other built-in check runs.
EXCLUDED = [positive_data_acceptance]
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


def _cases() -> list[tuple[str, str, GenerationMode, bool]]:
    """(method, path, mode, live) for every operation: negative data only where the spec constrains an
    input (else there is nothing to violate), a live match only where the path names one."""
    app = create_app(Config(redis_url=OFFLINE_REDIS_URL), games=TEST_GAMES)
    paths = app.test_client().get("/openapi.json").json["paths"]
    cases = []
    for path, item in paths.items():
        for method, op in item.items():
            if method == "parameters":
                continue
            negatable = "requestBody" in op or any(
                set(p["schema"]) & {"pattern", "enum", "minimum", "maximum", "maxLength"}
                for p in op.get("parameters", [])
            )
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)[: 2 if negatable else 1]:
                for live in (False, True)[: 2 if "{match_id}" in path else 1]:
                    cases.append((method.upper(), path, mode, live))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def app(redis_url):
    # Every call comes from one address and no worker answers a hint, so the per-address bound on hints
    # in flight (tested in tests/workers/test_hint_fairness.py) would soon refuse every hint here.
    config = make_config(redis_url, max_wait_seconds=0.05, stream_max_seconds=0.3, max_hints_per_address=0)
    return create_app(config, games=TEST_GAMES)


@pytest.fixture(scope="module")
def api_schema(app):
    return schemathesis.openapi.from_wsgi("/openapi.json", app)


@pytest.fixture(scope="module")
def live_match(app):
    resp = app.test_client().post(
        "/v1/matches", json={"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]}
    )
    return resp.json["id"], resp.json["tokens"][0]["token"]


@pytest.mark.parametrize(
    ("method", "path", "mode", "live"),
    CASES,
    ids=[f"{m} {p} {mode.value}{' live' if live else ''}" for m, p, mode, live in CASES],
)
def test_operation_conforms(api_schema, live_match, method, path, mode, live):
    operation = api_schema[path][method]
    kwargs = {}
    if live:
        match_id, token = live_match
        kwargs = {"path_parameters": {"match_id": match_id}, "headers": {"Authorization": f"Bearer {token}"}}

    @given(case=operation.as_strategy(generation_mode=mode, **kwargs))
    @SETTINGS
    def run(case):
        case.call_and_validate(excluded_checks=EXCLUDED)

    run()


@pytest.fixture(scope="module")
def state_machine(app):
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    schema.config.generation.update(modes=[GenerationMode.POSITIVE])  # sequences of well-formed calls
    base = schema.as_state_machine()
    spectator = app.test_client()

    class Machine(base):
        """Sends the token of the seat to move (the links carry everything else: match id, ETag,
        the first legal action), so sequences reach real play rather than only 401s; seeds every
        new match."""

        tokens: ClassVar[dict[str, dict[int, str]]] = {}
        statuses: ClassVar[Counter] = Counter()

        def before_call(self, case):
            if case.operation.definition.raw.get("operationId") == "createMatch" and isinstance(
                case.body, dict
            ):
                # A fixed deal: hypothesis replays a sequence expecting the same responses (which
                # links fire, whose turn it is), so nothing a response depends on may be random.
                case.body["seed"] = 0
                # Human seats only: no bot worker runs here, so a bot's turn would end the sequence
                # (no token to send); creating bot seats is covered by the stateless cases.
                seats = case.body.get("seats")
                # (Open seats too: a waiting match has no decision to reach; joins are fuzzed stateless.)
                # Plain names: the name rule (service.matches.names) refuses what the schema cannot express
                # (invisible and bidirectional characters), and names are fuzzed stateless.
                if isinstance(seats, list) and all(isinstance(s, dict) for s in seats):
                    case.body["seats"] = [{"name": f"p{i}"} for i in range(len(seats))]
            match_id = (case.path_parameters or {}).get("match_id")
            if match_id in self.tokens:
                doc = spectator.get(f"/v1/matches/{match_id}").json
                token = self.tokens[match_id].get(doc["to_move"])
                if token is not None:
                    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
                    self._decide(case, doc, token)

        @staticmethod
        def _decide(case, doc, token):
            """A move the created match's link sends without a version (its other fields drawn at
            random) gets the match's version and the seat's first legal action, as a client deciding
            on the match it sees would: then a sequence reaches a committed move whichever way the
            fixed draw goes through the links, and the drawn moves are fuzzed by the stateless cases."""
            if case.operation.definition.raw.get("operationId") != "submitAction":
                return
            headers = case.headers or {}
            if "If-Match" in headers or (isinstance(case.body, dict) and "expected_version" in case.body):
                return  # decided on a version already (the legal actions' link)
            legal = spectator.get(
                f"/v1/matches/{doc['id']}/legal-actions", headers={"Authorization": f"Bearer {token}"}
            )
            if legal.status_code == 200 and legal.json["actions"]:
                case.headers = {**headers, "If-Match": f'"{legal.json["version"]}"'}
                case.body = {"action": legal.json["actions"][0]}

        def after_call(self, response, case):
            super().after_call(response, case)
            self.statuses[case.operation.definition.raw.get("operationId"), response.status_code] += 1
            if (
                case.operation.definition.raw.get("operationId") == "createMatch"
                and response.status_code == 201
            ):
                body = response.json()
                self.tokens[body["id"]] = {t["seat"]: t["token"] for t in body["tokens"]}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(
                response,
                additional_checks=additional_checks,
                excluded_checks=EXCLUDED,
                transport_kwargs=kwargs or None,
                recorder=self.recorder,  # keeps the stateful checks (use after free, availability)
            )

    return Machine


def test_stateful_sequences_follow_the_links(state_machine):
    state_machine.run(
        # Derandomized: the assertions below are about coverage (sequences reach real play), which a
        # random draw of a few dozen sequences only makes likely; a fixed draw makes it a fact.
        settings=settings(
            max_examples=2 * EXAMPLES,
            derandomize=True,
            database=None,
            stateful_step_count=8,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
    seen = state_machine.statuses
    assert seen["createMatch", 201] > 0, "no sequence created a match"
    followed = {op for (op, status) in seen if status == 200}
    assert {"getMatch", "getLegalActions", "getEvents", "getLog"} <= followed, sorted(seen.items())
    # The seat operations too: the token of the seat to move gets past 401 to a move and a hint.
    assert seen["submitAction", 200] > 0 and seen["requestHint", 202] > 0, sorted(seen.items())
