"""Live events for waiting clients: one reader per API process, fanning each new event out to every
client of that process that waits on its *topic*: a match's events, or a player's feed.

A waiting client (an open NDJSON or SSE stream, or an events long-poll) must cost memory, not a thread
and not a Redis connection: under the gevent serving model (:mod:`service.serving`) it is a greenlet
blocked on its subscription, a few kilobytes.  The work per committed event is per process and per
seat watched, never per waiter.  The package, from the top:

* :mod:`service.live.delivery` — when a waiting client is answered: a long-poll's wait, a stream's
  batches and heartbeats;
* :mod:`service.live.hub` — the per-process hub (:class:`service.live.hub.LiveEvents`): the topics with
  waiters, the reader thread that keeps them current from Redis pub/sub; :mod:`service.live.followed`
  — what it keeps of each topic (its last events);
* :mod:`service.live.cache` — the followed matches' metas as last read, and the rule that keeps a copy
  valid;
* :mod:`service.live.guard` — revocation reaching the waiters; :mod:`service.live.credentials` — what a
  waiter was let in with;
* :mod:`service.live.fanout` — handing events out, encoded once per seat and wire form, and the direct
  streams' heartbeats; :mod:`service.live.wire` — a stream's connection the reader writes itself;
* :mod:`service.live.subscription` — one waiter's place in a topic; :mod:`service.live.caps` — how many
  may wait; :mod:`service.live.topics` — what a waiter follows; :mod:`service.live.per_process` — the
  reader's, the heartbeats' and the guard's threads, one per process;
* :mod:`service.live.shaping` — what a client gets of an event, in every form (the one home of event
  shaping, which the domain's answers use too).

The hub composes the rest; no module of the package imports the hub or delivery, and none imports
another in a cycle (the ``acyclic_siblings`` contract in ``pyproject.toml``).
"""
