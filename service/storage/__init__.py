"""Storage: the only code that talks to Redis.

- :mod:`service.storage.client`: the clients (timeouts, retries, the pool, replicated writes) and
  what a failing Redis raises (``STORAGE_ERRORS``);
- one store per aggregate, each documenting its keys: :mod:`service.storage.matches` (beside it
  :mod:`service.storage.clocks`, the deadline and warning indexes, and
  :mod:`service.storage.match_cache`, this process's copies of matches), :mod:`service.storage.accounts`
  (apps, players, feeds), :mod:`service.storage.ratings`, :mod:`service.storage.seeks`,
  :mod:`service.storage.challenges`, :mod:`service.storage.tournaments`, :mod:`service.storage.webhooks`,
  :mod:`service.storage.idempotency` (request records), :mod:`service.storage.hints` (hint bookkeeping)
  and :mod:`service.storage.lanes` (the bot lanes and RQ's keys, on the queue Redis);
- :mod:`service.storage.lua`: every Lua script, one ``.lua`` file each; :mod:`service.storage.replies`:
  reading Redis's replies.
"""
