-- Close the open seeks expired by ARGV[1] (at most ARGV[2]), each to be told; returns their ids.
local ids = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('HSET', KEYS[2], id, 'expired')
  redis.call('HDEL', KEYS[3], id)
  for i = 4, 6 do redis.call('ZREM', KEYS[i], id) end
  redis.call('ZADD', KEYS[10], ARGV[1], id)
  redis.call('ZADD', KEYS[9], ARGV[1], id)
end
return ids
