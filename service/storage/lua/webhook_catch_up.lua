-- KEYS: ep, ready, msgs.  ARGV: now, offset, batch.  The catch-up after an endpoint's recovery: up to
-- ``batch`` of the heads waiting for a later retry (from the ``offset``-th) become due now, scored by
-- when they were queued so the oldest go first (each still the head of its source: per-source order
-- holds).  A head caught up before and tried only once since is left to its own pause (a message the
-- receiver refuses for itself is not retried at the pace of the endpoint's successes).  Returns
-- ``{caught up, left waiting, more to look at (1/0)}``.
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
