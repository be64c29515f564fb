-- KEYS: routes, ep.  ARGV: endpoint id, a disabled reason that forbids this update ("": none),
-- field/value pairs.  1 updated, 0 no such endpoint, 2 refused (disabled for that reason).
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[2], 'disabled_reason') == ARGV[2] then return 2 end
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
route(KEYS[2], KEYS[1], ARGV[1])
return 1
