-- Add a Swiss round once the one before is over (every match made, none under way).  ARGV: round,
-- byes JSON, then number, match JSON pairs.  Returns 1 if added now, 0 if not (added by another
-- process, or not its time).
local round = tonumber(ARGV[1])
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'round')) ~= round - 1 then return 0 end
local total = tonumber(redis.call('HGET', KEYS[1], 'total'))
if tonumber(redis.call('HGET', KEYS[1], 'next')) <= total or redis.call('ZCARD', KEYS[5]) > 0 then
  return 0
end
local added = 0
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  added = added + 1
end
redis.call('HSET', KEYS[1], 'round', round, 'byes', ARGV[2], 'total', total + added)
return 1
