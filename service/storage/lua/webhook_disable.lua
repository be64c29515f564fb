-- KEYS: routes, ep, msgs, ready, flight, done, log, body, tails.  ARGV: 1 endpoint id, 2 reason, 3 now,
-- 4 batch, 5 the error the messages fail with, 6 keep finished messages after (epoch), 7 finished
-- messages kept at most.  Disables the endpoint with ``reason`` (unless it already is, for it) and fails
-- up to ``batch`` of its unfinished messages, those in flight first (a lane's late outcome is then
-- stale), each chain's next taking its place until none is left.  Returns ``{1 if this call disabled
-- it else 0, unfinished messages left}``; ``{-1, 0}`` for no such endpoint.
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
