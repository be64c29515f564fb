-- Forget matches of a cancelled tournament that the sweep has aborted.  ARGV: numbers.
if redis.call('HGET', KEYS[1], 'status') ~= 'cancelled' then return 0 end
return redis.call('ZREM', KEYS[5], unpack(ARGV))
