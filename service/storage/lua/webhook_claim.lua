-- KEYS: ep, ready, flight, msgs, body.  ARGV: now, lease seconds, concurrency, most to claim.
-- Puts back the messages whose lease ended (their lane died, or lost its reply), then moves up to
-- ``concurrency - in flight`` due heads into flight with a lease.  Returns ``{"off"}`` for an
-- endpoint gone or disabled, else ``{"on", next due ("": none), url, secret, previous secret,
-- its expiry, failing since, then per message: id, state JSON, body, lease}``.
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
