-- Store the answer of the request that claimed the record.  ARGV: owner, sealed answer, seconds
-- kept.  Returns 1 if stored, 0 if the claim was lost (expired, taken by another).
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'sealed', ARGV[2])
redis.call('HDEL', KEYS[1], 'owner')
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
