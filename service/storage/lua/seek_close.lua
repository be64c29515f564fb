-- Close an open seek (cancelled, or expired).  KEYS: the pool's parts; ARGV: id, status, now, tell
-- ("1": its owner is to be told).  Returns "ok", or the seek's status ("" unknown) if not open.
local id = ARGV[1]
local status = redis.call('HGET', KEYS[2], id)
if status ~= 'open' then return status or '' end
redis.call('HSET', KEYS[2], id, ARGV[2])
redis.call('HDEL', KEYS[3], id)
for i = 4, 6 do redis.call('ZREM', KEYS[i], id) end
redis.call('ZADD', KEYS[10], ARGV[3], id)
if ARGV[4] == '1' then redis.call('ZADD', KEYS[9], ARGV[3], id) end
return 'ok'
