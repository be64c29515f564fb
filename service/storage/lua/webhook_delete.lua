-- KEYS: routes, then every key of the endpoint.  ARGV: endpoint id.  1 deleted, 0 no such endpoint.
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DEL', unpack(KEYS, 2))
return 1
