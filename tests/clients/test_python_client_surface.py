"""The Python client's surface is written once (issue 43): each operation is :class:`Client`'s, and
:class:`PlayerClient` and :class:`AppClient` call it with the credential they hold.  These tests keep
the two holders from drifting from it, without a server: each holder method takes Client's parameters
less the credential (with the same defaults), and sends the very request Client's call sends."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

import pytest

from tabletop_client import AppClient, Client, PlayerClient
from tabletop_client.holders import Holder
from tabletop_client.transport import query

#: Holder methods named otherwise on Client.
ALIASES = {"tokens": "player_tokens", "ratings": "player_ratings"}
#: The holders' own calls, built of the operations rather than being one.
OWN = {"close", "find_match", "wait_turns"}
#: Client parameters a holder does not take: the credential, and what holding it settles (a player is
#: itself; a player's seat shows its name; a player's hint and export use Client's defaults).
CREDENTIALS = {"token", "key", "creator_token"}
SETTLED = {
    PlayerClient: {"player", "name", "timeout", "page"},
    AppClient: {"page"},
}
URL, CREDENTIAL = "http://127.0.0.1:9/base", "tp.credential"
#: A value for every parameter name of the operations.
VALUES: dict[str, Any] = {
    "match_id": "m1", "game": "china", "seats": [{"player": "ann"}], "options": {"o": 1}, "seed": 3,
    "seat": 1, "invite": "inv", "action": {"type": "pass"}, "version": 4, "idempotency_key": "k1",
    "after": "2-0", "wait": 5, "timeout": 600.0, "level": "easy", "think_ms": 50, "player_id": "ann",
    "name": "Ann", "bot": True, "limit": 7, "scopes": ["read"], "expires_in": 60, "token_id": "t1",
    "player": "bob", "status": "open", "my_turn": True, "cursor": "c1", "players": 2, "rated": True,
    "time_control": {"per_move_seconds": 60}, "rating_range": {"min": 1}, "bots": {"allow": True},
    "seek_id": "s1", "order": "given", "challenge_id": "ch1", "entrants": [{"level": "easy"}],
    "format": "csv", "tournament_id": "t9", "interval": 0.0, "progress": None, "pool": "bots",
    "url": "http://127.0.0.1:9/hook", "types": ["your_turn"], "description": "d", "endpoint_id": "e1",
    "before": "b1", "message_id": "w1", "include": "decision", "away": True, "heartbeats": True,
    "include_decision": True,
}  # fmt: skip
#: What the fake server answers every request with: enough for each call to read what it reads.
ANSWER = {"games": [], "apps": [], "tokens": [], "revoked": 1, "challenges": [], "webhooks": [], "events": [],
          "status": "finished", "last_id": "3-0", "matches": [], "next_cursor": None, "id": "x",
          "action": {"type": "pass"}, "progress": {}}  # fmt: skip


class _Answer:
    status = 200

    def read(self) -> bytes:
        return json.dumps(ANSWER).encode()

    def readline(self) -> bytes:
        return b""

    def close(self) -> None:
        pass


def recorded(client: Client) -> list[tuple[Any, ...]]:
    """The requests ``client`` sends from now on, each answered with :data:`ANSWER`."""
    sent: list[tuple[Any, ...]] = []

    def send(method: str, path: str, data: bytes | None, headers: dict[str, str]) -> _Answer:
        sent.append((method, path, data and json.loads(data), sorted(headers.items())))
        return _Answer()

    client._http._send = send  # type: ignore[method-assign,assignment]
    return sent


def operations(holder: type[Holder]) -> list[tuple[str, str]]:
    """Each of the holder's operation methods, with the name of Client's it calls."""
    names = [m for m in dir(holder) if not m.startswith("_") and callable(getattr(holder, m))]
    return [(m, ALIASES.get(m, m)) for m in sorted(names) if m not in OWN]


def parameters(function: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    return dict(list(inspect.signature(function).parameters.items())[1:])  # not self


@pytest.mark.parametrize("holder", [PlayerClient, AppClient])
def test_each_holder_call_takes_clients_parameters_less_the_credential(holder: type[Holder]) -> None:
    for name, target in operations(holder):
        assert hasattr(Client, target), f"{holder.__name__}.{name} has no Client operation {target}"
        mine, clients = parameters(getattr(holder, name)), parameters(getattr(Client, target))
        assert set(mine) <= set(clients), f"{holder.__name__}.{name} takes what Client's does not"
        left_out = set(clients) - set(mine) - SETTLED[holder]
        assert len(left_out) == 1 and left_out <= CREDENTIALS, (holder.__name__, name, left_out)
        for param, spec in mine.items():
            default = clients[param].default
            if holder is AppClient and param == "player":
                continue  # an app names the player it acts for: required of it, optional on Client
            if holder is PlayerClient and name == "ratings":
                continue  # a player's own ratings by default
            assert spec.default == default, f"{holder.__name__}.{name}({param}=...) defaults otherwise"


@pytest.mark.parametrize("holder", [PlayerClient, AppClient])
def test_each_holder_call_sends_what_clients_call_sends_with_the_credential(holder: type[Holder]) -> None:
    for name, target in operations(holder):
        held, plain = holder(URL, CREDENTIAL), Client(URL)
        by_holder, by_client = recorded(held.api), recorded(plain)
        mine = parameters(getattr(holder, name))
        args = {p: VALUES[p] for p, spec in mine.items() if spec.kind is not spec.VAR_KEYWORD}
        (credential,) = set(parameters(getattr(Client, target))) & CREDENTIALS
        drain(getattr(held, name)(**args))
        drain(getattr(plain, target)(**args, **{credential: CREDENTIAL}))
        assert by_holder and by_holder == by_client, f"{holder.__name__}.{name} sends otherwise than Client's"


def drain(answer: Any) -> None:
    """Read a generator's answer (results, a stream) to its end: its requests are sent as it is read."""
    if inspect.isgenerator(answer) or hasattr(answer, "__next__"):
        list(answer)


def test_a_query_leaves_out_what_was_not_given_and_writes_booleans_as_the_api_reads_them() -> None:
    assert query() == "" and query(player=None, limit=None) == ""
    assert query(player="ann", my_turn=False, limit=5, after=None) == "?player=ann&my_turn=false&limit=5"
    assert query(wait=2.5, seen=True) == "?wait=2.5&seen=true"
