-- A pairing's match is made: its seeks are ``matched:<ARGV[2]>``, the pairing is done.  ARGV:
-- pairing id, match id, now.
local raw = redis.call('HGET', KEYS[7], ARGV[1])
if not raw then return 0 end
for _, id in ipairs(cjson.decode(raw).seeks) do
  if redis.call('HGET', KEYS[2], id) == 'pairing:' .. ARGV[1] then
    redis.call('HSET', KEYS[2], id, 'matched:' .. ARGV[2])
    redis.call('ZADD', KEYS[10], ARGV[3], id)
  end
end
redis.call('HDEL', KEYS[7], ARGV[1])
redis.call('ZREM', KEYS[8], ARGV[1])
return 1
