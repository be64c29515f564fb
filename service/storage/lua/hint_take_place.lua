-- Count ARGV[1] among the hints in flight of KEYS[1] if it holds fewer than ARGV[2] once those past their
-- last moment (score) before ARGV[3] are let go; ARGV[4]: ARGV[1]'s last moment.  The hints in flight
-- with ARGV[1] if counted, else 0.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('EXPIREAT', KEYS[1], math.ceil(tonumber(last[2])))
return held + 1
