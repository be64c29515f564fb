-- Record a match's end.  ARGV: number, ``finished``/``aborted``, result JSON ("" for aborted).
-- Returns 1 if recorded now, 0 if it was recorded before, or the tournament is not running (over:
-- its standings stay as they were; gone: nothing may bring back a part of it without its time to
-- live).
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
local n = tonumber(ARGV[1])
if n < 1 or n > tonumber(redis.call('HGET', KEYS[1], 'total')) then return 0 end
local status = redis.call('HGET', KEYS[3], n)
if status and status ~= 'active' then return 0 end
redis.call('HSET', KEYS[3], n, ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[4], n, ARGV[3]) end
redis.call('ZREM', KEYS[5], n)
redis.call('HINCRBY', KEYS[1], 'done', 1)
return 1
