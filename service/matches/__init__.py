"""The match domain: every operation on matches, in one style, with no HTTP in it.

:class:`Matches` (in :mod:`.operations`) is the one entry point: the HTTP layer, the workers and the
command line call its methods.  It refuses with the exceptions of :mod:`.errors` (not found, not your
decision, stale version, illegal action naming its rule...) and returns plain data; the HTTP layer maps
each refusal to a status in one table.  Beside it: seats and invitations (:mod:`.seating`), clocks
(:mod:`.clocks`), the name rule (:mod:`.names`), the bot queues (:mod:`.bots`), the lifecycle's
operations (:mod:`.lifecycle`).  The service's event types are named in :mod:`service.events`;
storage is :mod:`service.store`, the only code that talks to Redis.
"""

from service.matches.operations import Matches, Move

__all__ = ["Matches", "Move"]
