"""Redis persistence of webhooks: an app's endpoints, the messages queued for each, their delivery log,
and the one global index the delivery lanes poll (beside :mod:`service.accounts_store`; the only code
of the feature that talks to Redis).

Key layout.  Every key of an app's webhooks carries the app's hash tag ``{a:<app>}`` (one cluster slot
per app), so each script below touches one slot and declares every key it touches:

``tt:{a:<app>}:wh:routes``       hash: endpoint id -> ``<1|0>|<types, comma-separated; empty: all>``
                                 (enabled flag and wanted types: what :meth:`WebhookStore.routes`
                                 reads in one round trip for every note of the app's players)
``tt:{a:<app>}:wh:<ep>:ep``      hash: url, types (JSON), description, status, disabled_reason,
                                 failing_since, created_at, updated_at, secret, previous_secret,
                                 previous_secret_expires_at, seq (the log's counter)
``tt:{a:<app>}:wh:<ep>:msgs``    hash: message id -> its state (flat JSON: type, source, status,
                                 attempts, next_attempt_at, ..., ``next``: the message of the same
                                 source queued after it; ``caught_up``: its attempts when a catch-up
                                 last made it due)
``tt:{a:<app>}:wh:<ep>:body``    hash: message id -> the payload, exactly the bytes signed
``tt:{a:<app>}:wh:<ep>:log``     sorted set: message id -> its number on this endpoint (the delivery log)
``tt:{a:<app>}:wh:<ep>:done``    sorted set: finished message id -> when (trimmed: :data:`KEEP_DONE`
                                 newest, none older than :data:`KEEP_SECONDS`; its message and body go too)
``tt:{a:<app>}:wh:<ep>:seen``    sorted set: message id -> when queued, the last :data:`DEDUP_SECONDS`
                                 (a note carried twice is queued once, even once its log entry is gone)
``tt:{a:<app>}:wh:<ep>:ready``   sorted set: message id -> when it is due (only heads of their source)
``tt:{a:<app>}:wh:<ep>:flight``  sorted set: message id -> when its lease ends (being delivered)
``tt:{a:<app>}:wh:<ep>:tails``   hash: source (a match id, ``c:<challenge>``...) -> its newest
                                 unfinished message

**Per-source order.**  The unfinished messages of one source form a chain (``tails`` names its last
link, each message's ``next`` the one after it); only the chain's head is ever ready or in flight, so a
receiver hears a match's notes in the order of its commits, each once the previous one is delivered or
has failed for good.

``tt:webhooks:due``  sorted set (one global key): ``<app>|<endpoint>`` -> when that endpoint may next
have work (a ready head, or a lease that ends).  It is an index, repairable: an enqueue writes it
*before* queueing (a crash in between leaves a harmless stale member, never a message no lane sees); a
lane takes a member by moving its score forward only if unchanged (:meth:`WebhookStore.take`), and
settles it afterwards the same way (:meth:`WebhookStore.settle`), re-reading the endpoint whenever it
moved the score later or dropped it, so a wake-up written meanwhile by another lane is never lost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis

#: The global index of endpoints with work (see the module).
DUE = "tt:webhooks:due"
#: Finished messages an endpoint's log keeps, at most, and for at most this long.
KEEP_DONE = 1000
KEEP_SECONDS = 3 * 24 * 3600
#: Seconds a queued message's id is remembered, so the same note carried again (an outbox drained
#: twice: the committer and the sweep, or a drain that died before its pop) is not queued again.  The
#: outbox sweep carries what a dead committer left within a minute or so; an hour is ample.
DEDUP_SECONDS = 3600

#: Endpoint hash fields holding secrets: read only to sign, never into a document.
SECRET_FIELDS = ("secret", "previous_secret")

# -- Lua ---------------------------------------------------------------------------------------------

#: Shared helpers, prepended to the scripts that need them.
_LIB = """
local function route(ep, routes, id)
  local f = redis.call('HMGET', ep, 'status', 'types_csv')
  if not f[1] then return end
  local flag = '0'
  if f[1] == 'enabled' then flag = '1' end
  redis.call('HSET', routes, id, flag .. '|' .. (f[2] or ''))
end

local function join(tails, ready, msgs, source, id, now)
  local tail = redis.call('HGET', tails, source)
  if tail and tail ~= id then
    local raw = redis.call('HGET', msgs, tail)
    if raw then
      local t = cjson.decode(raw)
      t['next'] = id
      redis.call('HSET', msgs, tail, cjson.encode(t))
      redis.call('HSET', tails, source, id)
      return
    end
  end
  redis.call('HSET', tails, source, id)
  redis.call('ZADD', ready, now, id)
end

-- Forget the oldest finished messages: those finished before ``before`` (epoch) and any beyond the
-- newest ``keep``, with their log entries and bodies.
local function trim(done, log, msgs, body, before, keep)
  local old = redis.call('ZRANGEBYSCORE', done, '-inf', '(' .. before, 'LIMIT', 0, 100)
  local extra = redis.call('ZCARD', done) - tonumber(keep)
  if extra > 0 then
    for _, o in ipairs(redis.call('ZRANGE', done, 0, extra - 1)) do old[#old + 1] = o end
  end
  for _, o in ipairs(old) do
    redis.call('ZREM', done, o)
    redis.call('ZREM', log, o)
    redis.call('HDEL', msgs, o)
    redis.call('HDEL', body, o)
  end
end

-- The earliest score (as Redis prints it: exact) of the next work: a lease ending, or a ready head
-- if there is room in flight.
local function next_due(ep, ready, flight, concurrency)
  if redis.call('HGET', ep, 'status') ~= 'enabled' then return '' end
  local best = ''
  local f = redis.call('ZRANGE', flight, 0, 0, 'WITHSCORES')
  if f[2] then best = f[2] end
  if redis.call('ZCARD', flight) < concurrency then
    local r = redis.call('ZRANGE', ready, 0, 0, 'WITHSCORES')
    if r[2] and (best == '' or tonumber(r[2]) < tonumber(best)) then best = r[2] end
  end
  return best
end
"""

#: KEYS: routes, ep.  ARGV: endpoint id, max endpoints, field/value pairs.  1 created, 0 too many.
_CREATE = (
    _LIB
    + """
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
route(KEYS[2], KEYS[1], ARGV[1])
return 1
"""
)

#: KEYS: routes, ep.  ARGV: endpoint id, a disabled reason that forbids this update ("": none),
#: field/value pairs.  1 updated, 0 no such endpoint, 2 refused (disabled for that reason).
_UPDATE = (
    _LIB
    + """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[2], 'disabled_reason') == ARGV[2] then return 2 end
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
route(KEYS[2], KEYS[1], ARGV[1])
return 1
"""
)

#: KEYS: ep.  ARGV: new secret, the old one's expiry, now.  The current secret becomes the previous
#: one (a previous one still in its grace is dropped).  1 rotated, 0 no such endpoint.
_ROTATE = """
local old = redis.call('HGET', KEYS[1], 'secret')
if not old then return 0 end
redis.call('HSET', KEYS[1], 'secret', ARGV[1], 'previous_secret', old,
  'previous_secret_expires_at', ARGV[2], 'updated_at', ARGV[3])
return 1
"""

#: KEYS: routes, then every key of the endpoint.  ARGV: endpoint id.  1 deleted, 0 no such endpoint.
_DELETE = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DEL', unpack(KEYS, 2))
return 1
"""

#: KEYS: ep, msgs, body, log, seen, ready, tails.  ARGV: message id, state JSON, body, now, forget
#: before (epoch), source.  1 queued, 0 already queued (or the endpoint is gone or disabled).
_ENQUEUE = (
    _LIB
    + """
if redis.call('HGET', KEYS[1], 'status') ~= 'enabled' then return 0 end
if redis.call('ZSCORE', KEYS[5], ARGV[1]) or redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  return 0
end
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. ARGV[5])
redis.call('ZADD', KEYS[5], ARGV[4], ARGV[1])
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[4], seq, ARGV[1])
join(KEYS[7], KEYS[6], KEYS[2], ARGV[6], ARGV[1], ARGV[4])
return 1
"""
)

#: KEYS: ep, ready, flight, msgs, body.  ARGV: now, lease seconds, concurrency, most to claim.
#: Puts back the messages whose lease ended (their lane died, or lost its reply), then moves up to
#: ``concurrency - in flight`` due heads into flight with a lease.  Returns ``{"off"}`` for an
#: endpoint gone or disabled, else ``{"on", next due ("": none), url, secret, previous secret,
#: its expiry, failing since, then per message: id, state JSON, body, lease}``.
_CLAIM = (
    _LIB
    + """
local ep = redis.call('HMGET', KEYS[1], 'status', 'url', 'secret', 'previous_secret',
  'previous_secret_expires_at', 'failing_since')
if ep[1] ~= 'enabled' then return {'off'} end
local now = tonumber(ARGV[1])
local concurrency = tonumber(ARGV[3])
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
  redis.call('ZREM', KEYS[3], id)
  local raw = redis.call('HGET', KEYS[4], id)
  if raw then
    local s = cjson.decode(raw)
    s['error'] = 'no outcome recorded before the lease ended (the delivering worker stopped?)'
    s['next_attempt_at'] = now
    redis.call('HSET', KEYS[4], id, cjson.encode(s))
    redis.call('ZADD', KEYS[2], now, id)
  end
end
local out = {'on', '', ep[2], ep[3], ep[4] or '', ep[5] or '', ep[6] or ''}
local room = concurrency - redis.call('ZCARD', KEYS[3])
if room > tonumber(ARGV[4]) then room = tonumber(ARGV[4]) end
if room > 0 then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, room)) do
    redis.call('ZREM', KEYS[2], id)
    local raw = redis.call('HGET', KEYS[4], id)
    if raw then
      local lease = tostring(now + tonumber(ARGV[2]))
      redis.call('ZADD', KEYS[3], lease, id)
      local s = cjson.decode(raw)
      s['attempts'] = s['attempts'] + 1
      s['last_attempt_at'] = now
      s['next_attempt_at'] = cjson.null
      raw = cjson.encode(s)
      redis.call('HSET', KEYS[4], id, raw)
      out[#out + 1] = id
      out[#out + 1] = raw
      out[#out + 1] = redis.call('HGET', KEYS[5], id) or ''
      out[#out + 1] = lease
    end
  end
end
out[2] = next_due(KEYS[1], KEYS[2], KEYS[3], concurrency)
return out
"""
)

#: KEYS: ep, msgs, ready, flight, done, log, body, tails, routes.  ARGV: 1 message id, 2 lease (the
#: claim's), 3 now, 4 outcome (delivered | retry | failed | gone), 5 next attempt (retry, gone),
#: 6 response status ("": none), 7 latency ms, 8 error (""), 9 backoff, 10 endpoint id, 11 disable
#: reason ("": the endpoint has not failed long enough), 12 failing since at most (for the reason),
#: 13 keep finished messages after (epoch), 14 concurrency, 15 the reason a 410 disables the endpoint
#: with, 16 finished messages kept at most.
#: Returns ``{"ok", next due}``, or ``{"stale"}`` if the lease is no longer this delivery's (the lease
#: ended and the message went back, or the endpoint was deleted): the outcome is dropped, the message
#: is delivered again under the same id.
_RECORD = (
    _LIB
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'stale'} end
local id = ARGV[1]
local score = redis.call('ZSCORE', KEYS[4], id)
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return {'stale'} end
local raw = redis.call('HGET', KEYS[2], id)
if not raw then return {'stale'} end
redis.call('ZREM', KEYS[4], id)
local now = tonumber(ARGV[3])
local outcome = ARGV[4]
local s = cjson.decode(raw)
s['response_status'] = tonumber(ARGV[6]) or cjson.null
s['latency_ms'] = tonumber(ARGV[7]) or cjson.null
if ARGV[8] == '' then s['error'] = cjson.null else s['error'] = ARGV[8] end
s['backoff'] = tonumber(ARGV[9]) or cjson.null
if outcome == 'delivered' or outcome == 'failed' then
  s['status'] = outcome
  s['next_attempt_at'] = cjson.null
  local nxt = s['next']
  s['next'] = nil
  if type(nxt) == 'string' then
    redis.call('ZADD', KEYS[3], now, nxt)
  elseif redis.call('HGET', KEYS[8], s['source']) == id then
    redis.call('HDEL', KEYS[8], s['source'])
  end
  redis.call('HSET', KEYS[2], id, cjson.encode(s))
  redis.call('ZADD', KEYS[5], now, id)
  trim(KEYS[5], KEYS[6], KEYS[2], KEYS[7], ARGV[13], ARGV[16])
else
  s['status'] = 'pending'
  s['next_attempt_at'] = tonumber(ARGV[5])
  redis.call('HSET', KEYS[2], id, cjson.encode(s))
  redis.call('ZADD', KEYS[3], ARGV[5], id)
end
local recovered, streak = 0, 0
if outcome == 'delivered' then
  local was = redis.call('HGET', KEYS[1], 'failing_since')
  if was and was ~= '' then recovered = 1 end
  redis.call('HSET', KEYS[1], 'failing_since', '', 'last_success_at', ARGV[3])
elseif outcome == 'gone' then
  redis.call('HSET', KEYS[1], 'status', 'disabled', 'disabled_reason', ARGV[15], 'updated_at', ARGV[3])
  route(KEYS[1], KEYS[9], ARGV[10])
else
  local since = redis.call('HGET', KEYS[1], 'failing_since')
  if not since or since == '' then
    redis.call('HSET', KEYS[1], 'failing_since', ARGV[3])
  else
    streak = 1
  end
  if since and since ~= '' and ARGV[11] ~= '' and tonumber(since) <= tonumber(ARGV[12]) then
    redis.call('HSET', KEYS[1], 'status', 'disabled', 'disabled_reason', ARGV[11], 'updated_at', ARGV[3])
    route(KEYS[1], KEYS[9], ARGV[10])
  end
end
-- The probe: an endpoint failing since before this attempt (not one failure among successes: a
-- message the receiver refuses for itself), with nothing in flight, has its earliest waiting head
-- tried again within a tenth (ARGV 17) of how long it has been failing or that head has waited,
-- whichever is longer (ARGV 18 at least, ARGV 19 at most; not before ARGV 20, a Retry-After), so
-- its return is noticed soon, whatever pauses the messages drew.
if streak == 1 and ARGV[17] ~= '' and redis.call('ZCARD', KEYS[4]) == 0
    and redis.call('HGET', KEYS[1], 'status') == 'enabled' then
  local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  local hraw = first[1] and redis.call('HGET', KEYS[2], first[1])
  if hraw then
    local h = cjson.decode(hraw)
    local since = tonumber(redis.call('HGET', KEYS[1], 'failing_since')) or now
    local queued = tonumber(h['queued_at']) or tonumber(h['created_at']) or now
    local pause = math.max(now - since, now - queued) * tonumber(ARGV[17])
    pause = math.min(math.max(pause, tonumber(ARGV[18])), tonumber(ARGV[19]))
    local at = math.floor((now + pause) * 1000 + 0.5) / 1000
    if ARGV[20] ~= '' and tonumber(ARGV[20]) > at then at = tonumber(ARGV[20]) end
    if tonumber(first[2]) > at then
      redis.call('ZADD', KEYS[3], tostring(at), first[1])
      h['next_attempt_at'] = at
      redis.call('HSET', KEYS[2], first[1], cjson.encode(h))
    end
  end
end
return {'ok', next_due(KEYS[1], KEYS[3], KEYS[4], tonumber(ARGV[14])), recovered}
"""
)

#: KEYS: ep, ready, msgs.  ARGV: now, offset, batch.  The catch-up after an endpoint's recovery: up to
#: ``batch`` of the heads waiting for a later retry (from the ``offset``-th) become due now, scored by
#: when they were queued so the oldest go first (each still the head of its source: per-source order
#: holds).  A head caught up before and tried only once since is left to its own pause (a message the
#: receiver refuses for itself is not retried at the pace of the endpoint's successes).  Returns
#: ``{caught up, left waiting, more to look at (1/0)}``.
_CATCH_UP = """
if redis.call('HGET', KEYS[1], 'status') ~= 'enabled' then return {0, 0, 0} end
local now = tonumber(ARGV[1])
local batch = tonumber(ARGV[3])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf', 'LIMIT', tonumber(ARGV[2]), batch)
local caught, left = 0, 0
for _, id in ipairs(ids) do
  local raw = redis.call('HGET', KEYS[3], id)
  local s = raw and cjson.decode(raw)
  local before = s and tonumber(s['caught_up'])
  if s and (before == nil or tonumber(s['attempts']) >= before + 2) then
    local at = tonumber(s['queued_at']) or now
    if at > now then at = now end
    redis.call('ZADD', KEYS[2], tostring(at), id)
    s['next_attempt_at'] = now
    s['caught_up'] = s['attempts']
    redis.call('HSET', KEYS[3], id, cjson.encode(s))
    caught = caught + 1
  else
    left = left + 1
  end
end
local more = 0
if #ids == batch then more = 1 end
return {caught, left, more}
"""

#: KEYS: routes, ep, msgs, ready, flight, done, log, body, tails.  ARGV: 1 endpoint id, 2 reason, 3 now,
#: 4 batch, 5 the error the messages fail with, 6 keep finished messages after (epoch), 7 finished
#: messages kept at most.  Disables the endpoint with ``reason`` (unless it already is, for it) and fails
#: up to ``batch`` of its unfinished messages, those in flight first (a lane's late outcome is then
#: stale), each chain's next taking its place until none is left.  Returns ``{1 if this call disabled
#: it else 0, unfinished messages left}``; ``{-1, 0}`` for no such endpoint.
_DISABLE = (
    _LIB
    + """
if redis.call('EXISTS', KEYS[2]) == 0 then return {-1, 0} end
local changed = 0
local f = redis.call('HMGET', KEYS[2], 'status', 'disabled_reason')
if f[1] ~= 'disabled' or f[2] ~= ARGV[2] then
  redis.call('HSET', KEYS[2], 'status', 'disabled', 'disabled_reason', ARGV[2], 'updated_at', ARGV[3])
  route(KEYS[2], KEYS[1], ARGV[1])
  changed = 1
end
local budget = tonumber(ARGV[4])
local ids = redis.call('ZRANGE', KEYS[5], 0, budget - 1)
if #ids < budget then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, budget - #ids - 1)) do ids[#ids + 1] = id end
end
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[5], id)
  redis.call('ZREM', KEYS[4], id)
  local raw = redis.call('HGET', KEYS[3], id)
  if raw then
    local s = cjson.decode(raw)
    s['status'] = 'failed'
    s['next_attempt_at'] = cjson.null
    s['error'] = ARGV[5]
    local nxt = s['next']
    s['next'] = nil
    if type(nxt) == 'string' then redis.call('ZADD', KEYS[4], ARGV[3], nxt) end
    redis.call('HSET', KEYS[3], id, cjson.encode(s))
    redis.call('ZADD', KEYS[6], ARGV[3], id)
  end
end
trim(KEYS[6], KEYS[7], KEYS[3], KEYS[8], ARGV[6], ARGV[7])
local left = redis.call('ZCARD', KEYS[4]) + redis.call('ZCARD', KEYS[5])
if left == 0 then redis.call('DEL', KEYS[9]) end
return {changed, left}
"""
)

#: KEYS: ep, ready, flight, msgs.  ARGV: message id, lease, now.  A claimed message its lane did not send
#: (the endpoint was disabled meanwhile) goes back to wait, its attempt uncounted; 1 if it did, 0 if the
#: lease was no longer the lane's.
_RELEASE = """
local score = redis.call('ZSCORE', KEYS[3], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
local raw = redis.call('HGET', KEYS[4], ARGV[1])
if not raw then return 0 end
local s = cjson.decode(raw)
s['attempts'] = math.max(0, tonumber(s['attempts']) - 1)
s['next_attempt_at'] = tonumber(ARGV[3])
redis.call('HSET', KEYS[4], ARGV[1], cjson.encode(s))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""

#: KEYS: ep, msgs, ready, done, tails.  ARGV: message id, now.  Queues a finished message again (same
#: id, behind its source's unfinished messages); a pending head waiting for a retry becomes due now.
#: Returns the message's state JSON, or "" if there is no such message.
_REDELIVER = (
    _LIB
    + """
local id = ARGV[1]
local raw = redis.call('HGET', KEYS[2], id)
if not raw then return '' end
local s = cjson.decode(raw)
if s['status'] == 'pending' then
  if redis.call('ZSCORE', KEYS[3], id) then
    redis.call('ZADD', KEYS[3], ARGV[2], id)
    s['next_attempt_at'] = tonumber(ARGV[2])
  end
else
  s['status'] = 'pending'
  s['next'] = nil
  s['queued_at'] = tonumber(ARGV[2])
  s['next_attempt_at'] = tonumber(ARGV[2])
  s['backoff'] = cjson.null
  redis.call('ZREM', KEYS[4], id)
  redis.call('HSET', KEYS[2], id, cjson.encode(s))
  join(KEYS[5], KEYS[3], KEYS[2], s['source'], id, ARGV[2])
  raw = redis.call('HGET', KEYS[2], id)
  return raw
end
raw = cjson.encode(s)
redis.call('HSET', KEYS[2], id, raw)
return raw
"""
)

#: KEYS: ep, ready, flight.  ARGV: concurrency.  When the endpoint may next have work ("": never).
_NEXT_DUE = (
    _LIB
    + """
return next_due(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]))
"""
)

#: KEYS: due.  ARGV: member, expected score, new score.  Moves the member to the new score if its
#: score is still the expected one (a lane taking an endpoint); 1 if moved.
_TAKE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
"""

#: KEYS: due.  ARGV: member, the score the lane took it with, next due ("": none).  If the member still
#: has the lane's score, sets it to the next due (drops it for none) and returns 1 (the caller
#: re-reads the endpoint if that moved it later); else someone woke it meanwhile: keeps the earlier of
#: the two and returns 0.
_SETTLE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
  else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
  return 1
end
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[1], 'LT', ARGV[3], ARGV[1]) end
return 0
"""


def wh_key(app: str, part: str) -> str:
    """A webhook key of the app ``app`` (the app's hash tag, like :mod:`service.accounts_store`'s)."""
    return f"tt:{{a:{app}}}:wh:{part}"


def endpoint_key(app: str, endpoint: str, part: str) -> str:
    return wh_key(app, f"{endpoint}:{part}")


#: Every per-endpoint key, for deletion.
_ENDPOINT_PARTS = ("ep", "msgs", "body", "log", "done", "seen", "ready", "flight", "tails")


def due_member(app: str, endpoint: str) -> str:
    return f"{app}|{endpoint}"


def split_member(member: str) -> tuple[str, str]:
    app, _, endpoint = member.rpartition("|")
    return app, endpoint


@dataclass(frozen=True)
class Claimed:
    """One message claimed for delivery: its id, state, payload and the lease that makes its outcome
    count."""

    id: str
    state: dict[str, Any]
    body: bytes
    lease: str


@dataclass(frozen=True)
class Claim:
    """What :meth:`WebhookStore.claim` found: the endpoint's delivery settings and the messages."""

    enabled: bool
    next_due: float | None
    url: str = ""
    secret: str = ""
    previous_secret: str = ""
    previous_secret_expires_at: float | None = None
    failing_since: float | None = None
    messages: tuple[Claimed, ...] = ()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _number(value: Any) -> float | None:
    text = _text(value) if value is not None else ""
    return float(text) if text else None


class WebhookStore:
    """The webhooks of every app over the service's Redis client (a cluster client works too: every
    script's keys share one app's slot, or are the one due index)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._create = client.register_script(_CREATE)
        self._update = client.register_script(_UPDATE)
        self._delete = client.register_script(_DELETE)
        self._rotate = client.register_script(_ROTATE)
        self._enqueue = client.register_script(_ENQUEUE)
        self._claim = client.register_script(_CLAIM)
        self._record = client.register_script(_RECORD)
        self._redeliver = client.register_script(_REDELIVER)
        self._next_due = client.register_script(_NEXT_DUE)
        self._take = client.register_script(_TAKE)
        self._settle = client.register_script(_SETTLE)
        self._catch_up = client.register_script(_CATCH_UP)
        self._disable = client.register_script(_DISABLE)
        self._release = client.register_script(_RELEASE)

    # -- endpoints ----------------------------------------------------------------------------------

    def create_endpoint(self, app: str, endpoint: str, fields: dict[str, str], max_endpoints: int) -> bool:
        """Write a new endpoint unless the app has ``max_endpoints`` already (``False``)."""
        args: list[Any] = [endpoint, max_endpoints]
        for name, value in fields.items():
            args += [name, value]
        keys = [wh_key(app, "routes"), endpoint_key(app, endpoint, "ep")]
        return bool(self._create(keys=keys, args=args))

    def update_endpoint(
        self, app: str, endpoint: str, fields: dict[str, str], *, unless_disabled_for: str = ""
    ) -> int:
        """Set some fields of an endpoint (its route follows): 1; 0 if there is no such endpoint; 2 (and
        nothing set) if it is disabled with the reason ``unless_disabled_for``."""
        args: list[Any] = [endpoint, unless_disabled_for]
        for name, value in fields.items():
            args += [name, value]
        keys = [wh_key(app, "routes"), endpoint_key(app, endpoint, "ep")]
        return int(self._update(keys=keys, args=args))

    def disable(
        self, app: str, endpoint: str, reason: str, error: str, now: float, *, batch: int = 500
    ) -> bool | None:
        """Disable an endpoint with ``reason`` and fail every unfinished message of it with ``error``
        (in batches of ``batch``, so a long backlog never holds Redis for long): nothing of it is sent
        any more.  Whether this call disabled it (``False``: it already was, for that reason; ``None``:
        no such endpoint)."""
        keys = [wh_key(app, "routes")] + [
            endpoint_key(app, endpoint, p)
            for p in ("ep", "msgs", "ready", "flight", "done", "log", "body", "tails")
        ]
        before = repr(now - KEEP_SECONDS)
        args: list[str | int] = [endpoint, reason, repr(now), batch, error, before, KEEP_DONE]
        changed, left = self._disable(keys=keys, args=args)
        first = int(changed)
        while int(left) > 0:
            _, left = self._disable(keys=keys, args=args)
        return None if first < 0 else bool(first)

    def status(self, app: str, endpoint: str) -> str | None:
        """The endpoint's status (``enabled``/``disabled``), ``None`` if there is no such endpoint."""
        raw = self.redis.hget(endpoint_key(app, endpoint, "ep"), "status")
        return _text(raw) if raw is not None else None

    def rotate_secret(self, app: str, endpoint: str, secret: str, old_expires_at: float, now: float) -> bool:
        """Make ``secret`` the endpoint's; the current one keeps signing until ``old_expires_at``."""
        keys = [endpoint_key(app, endpoint, "ep")]
        return bool(self._rotate(keys=keys, args=[secret, repr(old_expires_at), repr(now)]))

    def delete_endpoint(self, app: str, endpoint: str) -> bool:
        """Delete an endpoint with every message it had (a lane delivering one finds it gone)."""
        keys = [wh_key(app, "routes")] + [endpoint_key(app, endpoint, p) for p in _ENDPOINT_PARTS]
        return bool(self._delete(keys=keys, args=[endpoint]))

    def endpoint(self, app: str, endpoint: str) -> dict[str, str] | None:
        """The endpoint's stored fields (secrets included: callers pick what they show)."""
        raw = self.redis.hgetall(endpoint_key(app, endpoint, "ep"))
        return {_text(k): _text(v) for k, v in raw.items()} if raw else None

    def endpoint_ids(self, app: str) -> list[str]:
        return sorted(_text(e) for e in self.redis.hkeys(wh_key(app, "routes")))

    def routes(self, app: str) -> dict[str, tuple[bool, frozenset[str]]]:
        """Every endpoint of the app: whether enabled, and the types it wants (empty: all)."""
        raw = self.redis.hgetall(wh_key(app, "routes"))
        out: dict[str, tuple[bool, frozenset[str]]] = {}
        for endpoint, value in raw.items():
            flag, _, types = _text(value).partition("|")
            out[_text(endpoint)] = (flag == "1", frozenset(t for t in types.split(",") if t))
        return out

    # -- messages -----------------------------------------------------------------------------------

    def enqueue(
        self, app: str, endpoint: str, message_id: str, state: dict[str, Any], body: bytes, now: float
    ) -> bool:
        """Queue a message behind its source's unfinished ones, unless it was queued already (or the
        endpoint is gone or disabled meanwhile).  Wakes the lanes before and after (see the module)."""
        self.wake(app, endpoint, now)
        keys = [
            endpoint_key(app, endpoint, p) for p in ("ep", "msgs", "body", "log", "seen", "ready", "tails")
        ]
        args = [message_id, json.dumps(state), body, repr(now), repr(now - DEDUP_SECONDS), state["source"]]
        queued = bool(self._enqueue(keys=keys, args=args))
        if queued:
            # Again once queued: a lane that looked between the wake-up above and the script found
            # nothing and may have settled the endpoint as idle.  (The wake-up before stays: a process
            # dying between the script and this line is repaired by the next enqueue of the note.)
            self.wake_by(app, endpoint, now)
        return queued

    def message(self, app: str, endpoint: str, message_id: str) -> tuple[dict[str, Any], bytes] | None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(endpoint_key(app, endpoint, "msgs"), message_id)
        pipe.hget(endpoint_key(app, endpoint, "body"), message_id)
        state, body = pipe.execute()
        if state is None:
            return None
        return json.loads(state), body or b""

    def log_page(self, app: str, endpoint: str, before: int | None, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` of the endpoint's message ids, newest first, numbered below ``before``."""
        top = f"({before}" if before is not None else "+inf"
        rows: list[tuple[bytes, float]] = self.redis.zrevrangebyscore(  # type: ignore[assignment]
            endpoint_key(app, endpoint, "log"), top, "-inf", start=0, num=count, withscores=True
        )
        return [(_text(mid), int(score)) for mid, score in rows]

    def messages(self, app: str, endpoint: str, ids: list[str]) -> list[tuple[dict[str, Any], bytes] | None]:
        """The states and payloads of ``ids`` (``None`` for one trimmed meanwhile)."""
        if not ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(endpoint_key(app, endpoint, "msgs"), ids)
        pipe.hmget(endpoint_key(app, endpoint, "body"), ids)
        states, bodies = pipe.execute()
        return [
            (json.loads(s), b or b"") if s is not None else None for s, b in zip(states, bodies, strict=True)
        ]

    def redeliver(self, app: str, endpoint: str, message_id: str, now: float) -> dict[str, Any] | None:
        """Queue a finished message again (same id); a pending one waiting for its retry is due now.
        Its state after, or ``None`` for no such message."""
        self.wake(app, endpoint, now)
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "msgs", "ready", "done", "tails")]
        raw = self._redeliver(keys=keys, args=[message_id, repr(now)])
        text = _text(raw) if raw is not None else ""
        if text:
            self.wake_by(app, endpoint, now)  # as in enqueue: a lane may have looked in between
        return json.loads(text) if text else None

    # -- delivery -----------------------------------------------------------------------------------

    def wake(self, app: str, endpoint: str, at: float) -> None:
        """Tell the lanes the endpoint has work from ``at`` (sooner than any time they hold)."""
        self.redis.zadd(DUE, {due_member(app, endpoint): at})

    def wake_by(self, app: str, endpoint: str, at: float) -> None:
        """Tell the lanes the endpoint has work from ``at`` unless they know of earlier work already."""
        self.redis.zadd(DUE, {due_member(app, endpoint): at}, lt=True)

    def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        """Endpoints (``<app>|<endpoint>``) that may have work by ``now``, most overdue first."""
        rows: list[tuple[bytes, float]] = self.redis.zrangebyscore(  # type: ignore[assignment]
            DUE, "-inf", repr(now), start=0, num=limit, withscores=True
        )
        return [(_text(member), float(score)) for member, score in rows]

    def take(self, member: str, expected: float, until: float) -> bool:
        """Take an endpoint of the due index for this lane until ``until`` (``False``: another lane did,
        or it was woken meanwhile: it is seen again on the next look)."""
        return bool(self._take(keys=[DUE], args=[member, repr(expected), repr(until)]))

    def settle(self, member: str, taken: float, next_due: float | None, concurrency: int) -> None:
        """After a claim: set the endpoint's due time to ``next_due`` (drop it for none) if nobody woke
        it since the lane took it with ``taken``; if that moved it later, re-read the endpoint and wake it
        by what it holds now (work queued between the claim and this write)."""
        nxt = "" if next_due is None else repr(next_due)
        moved = bool(self._settle(keys=[DUE], args=[member, repr(taken), nxt]))
        if moved and (next_due is None or next_due > taken):
            app, endpoint = split_member(member)
            found = self.next_due(app, endpoint, concurrency)
            if found is not None:
                self.wake_by(app, endpoint, found)

    def next_due(self, app: str, endpoint: str, concurrency: int) -> float | None:
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "ready", "flight")]
        return _number(self._next_due(keys=keys, args=[concurrency]))

    def claim(
        self, app: str, endpoint: str, now: float, lease_seconds: float, concurrency: int, most: int
    ) -> Claim:
        """Claim up to ``most`` due messages of an endpoint (and no more than ``concurrency`` in flight in
        all), each with a lease of ``lease_seconds``; messages whose lease ended go back first."""
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "ready", "flight", "msgs", "body")]
        raw = self._claim(keys=keys, args=[repr(now), repr(lease_seconds), concurrency, most])
        if _text(raw[0]) != "on":
            return Claim(enabled=False, next_due=None)
        messages = tuple(
            Claimed(_text(raw[i]), json.loads(raw[i + 1]), bytes(raw[i + 2] or b""), _text(raw[i + 3]))
            for i in range(7, len(raw), 4)
        )
        return Claim(
            enabled=True,
            next_due=_number(raw[1]),
            url=_text(raw[2]),
            secret=_text(raw[3]),
            previous_secret=_text(raw[4]),
            previous_secret_expires_at=_number(raw[5]),
            failing_since=_number(raw[6]),
            messages=messages,
        )

    def catch_up(self, app: str, endpoint: str, now: float, *, batch: int = 500) -> int:
        """Make the endpoint's heads waiting for a later retry due now, oldest first (see
        ``_CATCH_UP``), in batches of ``batch``; how many became due."""
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "ready", "msgs")]
        offset = total = 0
        while True:
            caught, left, more = self._catch_up(keys=keys, args=[repr(now), offset, batch])
            total += int(caught)
            offset += int(left)
            if not int(more):
                return total

    def release(self, app: str, endpoint: str, message: Claimed, now: float) -> bool:
        """Put a claimed message that was not sent back to wait, its attempt uncounted (``False``: its
        lease was no longer the lane's)."""
        keys = [endpoint_key(app, endpoint, p) for p in ("ep", "ready", "flight", "msgs")]
        return bool(self._release(keys=keys, args=[message.id, message.lease, repr(now)]))

    def record(
        self,
        app: str,
        endpoint: str,
        message: Claimed,
        *,
        now: float,
        outcome: str,
        next_attempt_at: float | None,
        response_status: int | None,
        latency_ms: float | None,
        error: str | None,
        backoff: float | None,
        disable_reason: str,
        failing_before: float,
        concurrency: int,
        gone_reason: str,
        probe: tuple[float, float, float, float | None] | None = None,
    ) -> tuple[bool, float | None, bool]:
        """Record one attempt's outcome (``delivered``, ``retry``, ``failed``, ``gone``): whether it
        counted (``False``: the lease was no longer this delivery's), the endpoint's next due time, and
        whether this delivery ended a failing streak (the endpoint answers again: time to catch up).

        ``probe`` (fraction, shortest, longest pause, not before): after a failure with nothing else in
        flight, the endpoint's earliest waiting message is tried again within that fraction of how long
        the endpoint has failed or the message has waited (see ``_RECORD``)."""
        keys = [
            endpoint_key(app, endpoint, p)
            for p in ("ep", "msgs", "ready", "flight", "done", "log", "body", "tails")
        ] + [wh_key(app, "routes")]
        args = [
            message.id,
            message.lease,
            repr(now),
            outcome,
            "" if next_attempt_at is None else repr(next_attempt_at),
            "" if response_status is None else response_status,
            "" if latency_ms is None else repr(round(latency_ms, 1)),
            error or "",
            "" if backoff is None else repr(backoff),
            endpoint,
            disable_reason,
            repr(failing_before),
            repr(now - KEEP_SECONDS),
            concurrency,
            gone_reason,
            KEEP_DONE,
        ]
        if probe is None:
            args += ["", "", "", ""]
        else:
            fraction, shortest, longest, not_before = probe
            args += [
                repr(fraction),
                repr(shortest),
                repr(longest),
                "" if not_before is None else repr(not_before),
            ]
        raw = self._record(keys=keys, args=args)
        if _text(raw[0]) != "ok":
            return False, None, False
        return True, _number(raw[1]), bool(int(raw[2]))
