-- KEYS: ep, msgs, body, log, seen, ready, tails.  ARGV: message id, state JSON, body, now, forget
-- before (epoch), source.  1 queued, 0 already queued (or the endpoint is gone or disabled).
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
