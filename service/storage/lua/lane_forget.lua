-- Forget tenant ARGV[1] of KEYS[1] (and its tag in KEYS[2]) if it was last touched before ARGV[2] and its
-- queue KEYS[3] is empty: checked and done at once, so a tenant touched meanwhile stays.
local last = redis.call('ZSCORE', KEYS[1], ARGV[1])
if last == false or tonumber(last) >= tonumber(ARGV[2]) then return 0 end
if redis.call('LLEN', KEYS[3]) > 0 then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
