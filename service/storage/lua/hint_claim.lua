-- KEYS[1] = ARGV[2] (expiring after ARGV[3] s) if KEYS[1] is ARGV[1] ("" = unset); 1 if set, else 0.
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
