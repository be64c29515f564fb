"""The client that takes the credential with each call: anonymous matches, seat tokens, the operator's
admin token, and any app key or player token named per call.

Each operation is written once, in its group's module (:mod:`tabletop_client.matches`,
:mod:`~tabletop_client.accounts`, :mod:`~tabletop_client.feeds`, :mod:`~tabletop_client.matchmaking`,
:mod:`~tabletop_client.tournaments`, :mod:`~tabletop_client.webhooks`,
:mod:`~tabletop_client.records`); :class:`Client` is their sum
over one :class:`~tabletop_client.transport.Transport`.  The clients that hold one credential
(:mod:`tabletop_client.holders`) call these operations with it.
"""

from __future__ import annotations

from typing import Any

from tabletop_client.accounts import AccountCalls
from tabletop_client.matches import MatchCalls
from tabletop_client.matchmaking import MatchmakingCalls
from tabletop_client.records import RecordCalls
from tabletop_client.tournaments import TournamentCalls
from tabletop_client.transport import Transport
from tabletop_client.webhooks import WebhookCalls


class Client(MatchCalls, AccountCalls, MatchmakingCalls, TournamentCalls, WebhookCalls, RecordCalls):
    """Every call of the API, each with its credential as an argument.  One client holds one
    keep-alive connection and is not thread-safe: use one per thread."""

    def __init__(self, base_url: str, timeout: float = 60.0) -> None:
        self._http = Transport(base_url, timeout)
        self.base_url = self._http.base_url
        self.prefix = self._http.prefix

    def close(self) -> None:
        self._http.close()

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """One call the operations do not name (``/readyz``...): the status and the decoded body;
        raises :class:`~tabletop_client.ApiError` unless it is 2xx."""
        return self._http.request(method, path, body, token, headers)
