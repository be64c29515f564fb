-- KEYS: ep, msgs, ready, done, tails.  ARGV: message id, now.  Queues a finished message again (same
-- id, behind its source's unfinished messages); a pending head waiting for a retry becomes due now.
-- Returns the message's state JSON, or "" if there is no such message.
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
