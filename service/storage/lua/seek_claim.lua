-- A player's claim.  KEYS: the player's seeks hash, its bookings.  ARGV: mode (``one``: a person's one
-- open seek; ``seek``: a bot player's seek under its cap; ``book``: a bot fill's booking under the
-- cap), id (a seek id, or the booked match id), now, cap, bookings older than this are dropped,
-- count of the over matches that follow, those match ids, then the player's active match ids.
-- Returns "" when claimed (or claimed already); for ``one``, the open seek held; else "full".
local mode, id, now, cap = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
if mode == 'one' then
  local held = redis.call('HKEYS', KEYS[1])
  if #held > 0 and held[1] ~= id then return held[1] end
  redis.call('HSET', KEYS[1], id, now)
  return ''
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[5])
local over = tonumber(ARGV[6])
for i = 7, 6 + over do redis.call('ZREM', KEYS[2], ARGV[i]) end
if redis.call('HEXISTS', KEYS[1], id) == 1 or redis.call('ZSCORE', KEYS[2], id) then return '' end
local load = redis.call('HLEN', KEYS[1]) + redis.call('ZCARD', KEYS[2])
for i = 7 + over, #ARGV do
  if not redis.call('ZSCORE', KEYS[2], ARGV[i]) then load = load + 1 end
end
if load >= cap then return 'full' end
if mode == 'seek' then redis.call('HSET', KEYS[1], id, now) else redis.call('ZADD', KEYS[2], now, id) end
return ''
