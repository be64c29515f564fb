-- KEYS: routes, ep.  ARGV: endpoint id, max endpoints, field/value pairs.  1 created, 0 too many.
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
route(KEYS[2], KEYS[1], ARGV[1])
return 1
