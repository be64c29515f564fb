"""Which waiter caps a waiting client (a long-poll, an NDJSON or SSE stream) counts against.

A cap per address is meant for anonymous clients; a backend that proxies its users with an app key
would meet it at once (one address, thousands of waiters), and every player behind one NAT would share
it.  So a caller with credentials is counted by what the credential names instead: an app key by its
app, a player token by its app (the app's players together) and by its player.  Each of these is
checked in every API process (:class:`service.live.LiveEvents` keeps the counts), like the address cap.
"""

from __future__ import annotations

from service.config import Config
from service.live import Quotas
from service.matches.identity import APP, PLAYER, Caller


def waiter_quotas(caller: Caller, address: str, config: Config) -> Quotas:
    """The (key, cap) pairs a waiter of ``caller`` from ``address`` counts against (see
    :meth:`service.live.LiveEvents.subscribe`); a seat token or no token: the address's."""
    if caller.kind == APP and caller.app is not None:
        return [(f"app:{caller.app}", config.max_waiters_per_app)]
    if caller.kind == PLAYER and caller.app is not None and caller.player_key is not None:
        return [
            (f"app:{caller.app}", config.max_waiters_per_app),
            (f"player:{caller.player_key}", config.max_waiters_per_player),
        ]
    return [(f"addr:{address}", config.max_waiters_per_address)]
