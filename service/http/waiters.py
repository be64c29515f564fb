"""Which waiter caps a waiting client (a long-poll, an NDJSON or SSE stream) counts against.

A cap per address is meant for anonymous clients; a backend that proxies its users with an app key
would meet it at once (one address, thousands of waiters), and every player behind one NAT would share
it.  So a caller with credentials is counted by what the credential names instead: an app key by its
app (and, reading a player's feed, by that player), a player token by its app (the app's players
together) and by its player.  Each of these is
checked in every API process (:class:`service.live.hub.LiveEvents` keeps the counts), like the address cap.
"""

from __future__ import annotations

from service.config import Config
from service.domain.identity import APP, PLAYER, Caller
from service.live.caps import Quotas
from service.live.credentials import Credential


def waiter_quotas(caller: Caller, address: str, config: Config, player: str | None = None) -> Quotas:
    """The (key, cap) pairs a waiter of ``caller`` from ``address`` counts against (see
    :meth:`service.live.hub.LiveEvents.subscribe`); a seat token or no token: the address's.  ``player``:
    the player key of the feed waited on, which an app key reading it (``?player=``) counts against
    too, as the player's own token would: one player's waiters are capped however they come."""
    if caller.kind == APP and caller.app is not None:
        quotas = [(f"app:{caller.app}", config.max_waiters_per_app)]
        if player is not None:
            quotas.append((f"player:{player}", config.max_waiters_per_player))
        return quotas
    if caller.kind == PLAYER and caller.app is not None and caller.player_key is not None:
        return [
            (f"app:{caller.app}", config.max_waiters_per_app),
            (f"player:{caller.player_key}", config.max_waiters_per_player),
        ]
    return [(f"addr:{address}", config.max_waiters_per_address)]


def waiter_credential(caller: Caller) -> Credential | None:
    """What a waiter of ``caller`` is tagged with, so revoking the credential ends it (see
    :class:`service.live.credentials.Credential`): an app key or a player token; a seat token is not
    revocable."""
    if caller.app is None or caller.kind not in (APP, PLAYER):
        return None
    if caller.kind == APP:
        return Credential(caller.app, id=caller.credential)
    return Credential(caller.app, caller.player_key, caller.credential, caller.expires_at)
