-- Put a push subscription of a player: KEYS[1] the player's subscriptions (hash: id -> JSON);
-- ARGV[1] the id, ARGV[2] its JSON, ARGV[3] how many the player may have.
-- Returns 1 (created), 2 (replaced: the same id, i.e. the same endpoint, was there), 0 (the player has
-- ARGV[3] already: nothing written).
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 2
end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
