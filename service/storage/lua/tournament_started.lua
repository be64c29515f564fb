-- Mark the matches ``first`` .. ``last`` made and under way (those not recorded already), and move
-- ``next`` past them.  ARGV: now, first, last.  Returns how many were marked (0: not running, or
-- another process marked them first).
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return -1 end
local first, last = tonumber(ARGV[2]), tonumber(ARGV[3])
if tonumber(redis.call('HGET', KEYS[1], 'next')) ~= first then return 0 end
if last > tonumber(redis.call('HGET', KEYS[1], 'total')) then return 0 end
local moved = 0
for n = first, last do
  if redis.call('HSETNX', KEYS[3], n, 'active') == 1 then
    redis.call('ZADD', KEYS[5], ARGV[1], n)
    moved = moved + 1
  end
end
redis.call('HSET', KEYS[1], 'next', last + 1)
return moved
