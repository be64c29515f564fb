-- KEYS: ep, msgs, ready, flight, done, log, body, tails, routes.  ARGV: 1 message id, 2 lease (the
-- claim's), 3 now, 4 outcome (delivered | retry | failed | gone), 5 next attempt (retry, gone),
-- 6 response status ("": none), 7 latency ms, 8 error (""), 9 backoff, 10 endpoint id, 11 disable
-- reason ("": the endpoint has not failed long enough), 12 failing since at most (for the reason),
-- 13 keep finished messages after (epoch), 14 concurrency, 15 the reason a 410 disables the endpoint
-- with, 16 finished messages kept at most.
-- Returns ``{"ok", next due}``, or ``{"stale"}`` if the lease is no longer this delivery's (the lease
-- ended and the message went back, or the endpoint was deleted): the outcome is dropped, the message
-- is delivered again under the same id.
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
