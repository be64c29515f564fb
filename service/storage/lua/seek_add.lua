-- Post a seek and pair it if it can be.  ARGV: id, record JSON, compat JSON, now, players needed,
-- pairing id (used if a group forms), expires at, bots at ("": never), scan limit.
local id, now = ARGV[1], tonumber(ARGV[4])
redis.call('HSET', K_SEEKS, id, ARGV[2])
redis.call('HSET', K_STATUS, id, 'open')
redis.call('HSET', K_COMPAT, id, ARGV[3])
redis.call('ZADD', K_OPEN, now, id)
redis.call('ZADD', K_EXPIRY, ARGV[7], id)
if ARGV[8] ~= '' then redis.call('ZADD', K_BOTWAIT, ARGV[8], id) end
return group(id, now, tonumber(ARGV[5]), false, ARGV[6], tonumber(ARGV[9]))
