"""Schemathesis against the app, in process, over a real Redis.

Stateless: for every operation, positive and negative requests generated from the spec, both against
unknown ids and with valid credentials: a live match with a valid seat token, or with the player token of
a player seated there; the apps' admin API with the admin token; players and tokens with an app key
naming its own live player; "me" with a player token, and with an app key naming its player; seeks and
challenges with either, an open seek of the other player's and its challenge to the player existing;
leaderboards and ratings with either; tournaments with either, one of the app's running.
Stateful: sequences that follow the spec's OpenAPI links from ``createMatch``.  No response may be a 5xx
or differ from the spec (status, content type, headers, body schema).  Bounded in examples so CI stays
fast.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import ignored_auth, positive_data_acceptance

from service.config import Config
from service.domain.identity import APP, SCOPES, Caller
from service.http.app import OFFLINE_REDIS_URL, create_app
from tests.service.conftest import TEST_GAMES, make_config

EXAMPLES = 15
ADMIN_TOKEN = "contract-admin-token"
#: The credentials a case runs with besides none at all (see :func:`credentials_for`).
SEAT, PLAYER, APP_KEY, ADMIN = "seat", "player", "app", "admin"
#: In a game API schema-valid does not mean acceptable: a well-formed move may break a rule (422) or
#: come without a version (428), a well-formed seat list may not fit the game's player counts.  Every
#: other built-in check runs.
EXCLUDED = [positive_data_acceptance]


def credentials_for(path: str) -> tuple[str, ...]:
    """The valid credentials worth sending to ``path``: the match's seat token or a seated player's
    token on a match's paths, the admin token on the admin API, an app key on its players' paths and
    on ``/v1/apps/me``, a player token (or an app key naming the player) on ``/v1/me``."""
    if "{match_id}" in path:
        return (SEAT, PLAYER)
    if path.startswith("/v1/admin/"):
        return (ADMIN,)
    if path.endswith(("/leaderboard", "/ratings")):  # an app's boards: its key or any player's token
        return (PLAYER, APP_KEY)
    if path.startswith(("/v1/players", "/v1/apps/me")):
        return (APP_KEY,)
    if path.startswith(("/v1/seeks", "/v1/challenges", "/v1/tournaments")):
        return (PLAYER, APP_KEY)
    if path.startswith("/v1/me"):
        return (PLAYER, APP_KEY)
    return ()


def _cases() -> list[tuple[str, str, GenerationMode, str]]:
    """(method, path, mode, credential) for every operation: negative data only where the spec
    constrains an input (else there is nothing to violate); no credential (``""``), and each valid one
    the path takes (:func:`credentials_for`)."""
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
                for credential in ("", *credentials_for(path)):
                    cases.append((method.upper(), path, mode, credential))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def app(redis_url):
    # Every call comes from one address and no worker answers a hint, so the per-address bound on hints
    # in flight (tested in tests/workers/test_hint_fairness.py) would soon refuse every hint here.
    config = make_config(
        redis_url,
        max_wait_seconds=0.05,
        stream_max_seconds=0.3,
        max_hints_per_address=0,
        admin_token=ADMIN_TOKEN,
    )
    return create_app(config, games=TEST_GAMES)


#: A request that breaks the schema may be refused for its size first: 413 when a generated array past
#: its ``maxItems`` (a tournament's 1,000 entrants) is also past the server's body limit.  That is a
#: refusal too, so the negative-data check counts it as one, beside schemathesis's own list.
NEGATIVE_REFUSALS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
NEGATIVE_REFUSALS.append("5xx")  # as schemathesis's own list (not_a_server_error fails a 5xx anyway)


@pytest.fixture(scope="module")
def examples() -> int:
    """Generated cases per operation, mode and credential (the cluster's copy of this module runs fewer:
    there the question is whether each operation works across slots, which a few cases answer)."""
    return EXAMPLES


@pytest.fixture(scope="module")
def api_schema(app):
    config = SchemathesisConfig.from_dict(
        {"checks": {"negative_data_rejection": {"expected-statuses": NEGATIVE_REFUSALS}}}
    )
    return schemathesis.openapi.from_wsgi("/openapi.json", app, config=config)


@dataclass
class Live:
    """What the stateless cases send with valid credentials: an anonymous live match and its seat
    token (made once), and :meth:`accounts` (made fresh for each case, as a case may revoke them)."""

    app: Any
    match_id: str
    token: str

    def accounts(self) -> dict[str, Any]:
        """A new app (made through the domain: the operator's API may be off, as on the cluster) with
        two players, ann and bob, a token each, and a private match between them; the ids a case's
        path names and the token of the player to move."""
        svc = self.app.extensions["tabletop"]
        made = svc.accounts.create_app("contract")
        key = Caller(APP, app=made["id"], scopes=frozenset(SCOPES))
        tokens = {}
        for pid in ("ann", "bob"):
            svc.accounts.put_player(key, pid, pid.title(), False)
            tokens[pid] = svc.accounts.mint_token(key, pid, ["play"], None)
        match = svc.matches.create(
            {
                "game": "high_card",
                "options": {},
                "seats": [{"kind": "human", "player": p} for p in tokens],
                # Public: a private match is 404 to a request without credentials (tested in
                # tests/service/test_accounts.py), where schemathesis' ignored_auth expects 401.
                "visibility": "public",
            },
            caller=key,
        )
        mover = ("ann", "bob")[match["to_move"]]
        # Issue 27: the other player's open seek and its challenge to the mover, so the paths naming a
        # seek or a challenge reach one the credentials may read, answer (the mover) or cancel (the key).
        other = "bob" if mover == "ann" else "ann"
        seek = svc.seeks.post(key, {"game": "high_card", "players": 2, "player": other})
        challenge = svc.challenges.create(key, {"game": "high_card", "players": [mover], "player": other})
        # Issue 26: a webhook endpoint (a public address: no DNS asked; no lane runs, nothing is sent)
        # and a message of it, for the paths naming them.
        endpoint = svc.webhooks.create(made["id"], "https://93.184.216.34/contract", None, "")
        message = svc.webhooks.ping(made["id"], endpoint["id"])
        # Issue 31: a running tournament of the app (ann and bob, one match each way), for the paths
        # naming one: read by either credential, its results exported, cancelled by the key.
        tournament = svc.tournaments.create(
            {"game": "high_card", "players": 2, "entrants": [{"player": "ann"}, {"player": "bob"}]}, key
        )
        return {
            "app_id": made["id"],
            "app_key": made["key"],
            "player_id": mover,
            "token_id": tokens[mover]["id"],
            "player_token": tokens[mover]["token"],
            "match_id": match["id"],
            "seek_id": seek["id"],
            "challenge_id": challenge["id"],
            "endpoint_id": endpoint["id"],
            "message_id": message["id"],
            "tournament_id": tournament["id"],
        }


@pytest.fixture(scope="module")
def live_match(app):
    resp = app.test_client().post(
        "/v1/matches", json={"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]}
    )
    return Live(app, resp.json["id"], resp.json["tokens"][0]["token"])


def case_overrides(path: str, credential: str, live: Live, mode: GenerationMode) -> dict[str, Any]:
    """The fixed parts of a case sent with ``credential``: its Authorization header, and the path
    parameters (and ``player``) that name what that credential may reach."""
    if credential == SEAT:
        return {"path_parameters": {"match_id": live.match_id}, "headers": bearer(live.token)}
    ids = live.accounts()
    names = {"match_id": ids["match_id"], "app_id": ids["app_id"], "player_id": ids["player_id"]}
    names.update(token_id=ids["token_id"], seek_id=ids["seek_id"], challenge_id=ids["challenge_id"])
    names.update(endpoint_id=ids["endpoint_id"], message_id=ids["message_id"])
    names["tournament_id"] = ids["tournament_id"]
    names["game_id"] = "high_card"  # (a leaderboard's; the catalogue's paths take no credentials)
    out: dict[str, Any] = {"path_parameters": {k: v for k, v in names.items() if f"{{{k}}}" in path}}
    if credential == PLAYER:
        out["headers"] = bearer(ids["player_token"])
    elif credential == ADMIN:
        out["headers"] = bearer(ADMIN_TOKEN)
    else:
        out["headers"] = bearer(ids["app_key"])
        answers = path == "/v1/challenges" or path.endswith(("/accept", "/decline"))  # they take ``player``
        if (path.startswith("/v1/me") or answers) and mode == GenerationMode.POSITIVE:  # negative: fuzzed
            out["query"] = {"player": ids["player_id"]}
    if mode == GenerationMode.POSITIVE and path == "/v1/tournaments":
        # A tournament the credential may create: a player token enters only its own player (and bots).
        entrants = [{"player": ids["player_id"]}, {"level": "random"}]
        out["valid_body"] = {"game": "high_card", "players": 2, "entrants": entrants}
    if mode == GenerationMode.POSITIVE and path in ("/v1/seeks", "/v1/challenges"):
        # Matchmaking: a game the server has (the listing's query), and a request body that gets past
        # validation to the operation itself (pairing with the other's seek, challenging the other),
        # sent beside the generated ones (see test_operation_conforms).
        other = "bob" if ids["player_id"] == "ann" else "ann"
        if path == "/v1/seeks":
            out.setdefault("query", {})["game"] = "high_card"
        body: dict[str, Any] = {"game": "high_card", "players": 2 if path == "/v1/seeks" else [other]}
        if credential == APP_KEY:
            body["player"] = ids["player_id"]
        out["valid_body"] = body
    return out


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize(
    ("method", "path", "mode", "credential"),
    CASES,
    ids=[f"{m} {p} {mode.value}{f' {c}' if c else ''}" for m, p, mode, c in CASES],
)
def test_operation_conforms(api_schema, live_match, examples, method, path, mode, credential):
    operation = api_schema[path][method]
    kwargs = case_overrides(path, credential, live_match, mode) if credential else {}
    excluded = list(EXCLUDED)
    if credential and any(p["in"] == "header" for p in operation.definition.raw.get("parameters", [])):
        # Schemathesis takes our Authorization for a generated one on an operation that declares header
        # parameters (getMyEvents: Last-Event-ID) and calls the 200 it earns "ignored auth"; without
        # credentials (the cases with credential "") the check runs.
        excluded.append(ignored_auth)

    valid = kwargs.pop("valid_body", None)
    strategy = operation.as_strategy(generation_mode=mode, **kwargs)
    if valid is not None and "requestBody" in operation.definition.raw:
        strategy = strategy | operation.as_strategy(generation_mode=mode, body=valid, **kwargs)

    @given(case=strategy)
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(case):
        case.call_and_validate(excluded_checks=excluded)

    run()


@pytest.fixture(scope="module")
def state_machine(app):
    # The matches' operations alone: the links start at createMatch and stay among them, and every other
    # operation (apps, players, seeks, challenges, webhooks...) is fuzzed stateless above; left in, they
    # would take most of the steps of a fixed draw and starve the sequences that reach play.  A match's chat
    # and takebacks stay out for the same reason (fuzzed stateless too; their sequences are tests of their
    # own: tests/service/test_chat.py, test_takebacks.py); a drawn report of a message id that no message
    # has is a 404 the resource check would take for a lost match.
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app).include(
        path_regex=r"^/v1/(matches|jobs)(?!/[^/]+/(chat|takebacks))"
    )
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
                # Plain names: the name rule (service.domain.names) refuses what the schema cannot express
                # (invisible and bidirectional characters), and names are fuzzed stateless.
                if isinstance(seats, list) and all(isinstance(s, dict) for s in seats):
                    case.body["seats"] = [{"name": f"p{i}"} for i in range(len(seats))]
                # Public: the machine reads whose turn it is as a spectator, to which a private match
                # is 404 (private matches are fuzzed stateless, with their tokens).
                case.body["visibility"] = "public"
                # Unrated: a rated match needs every seat a named player or a built-in bot (422 here).
                case.body.pop("rated", None)
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
