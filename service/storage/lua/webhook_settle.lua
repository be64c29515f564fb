-- KEYS: due.  ARGV: member, the score the lane took it with, next due ("": none).  If the member still
-- has the lane's score, sets it to the next due (drops it for none) and returns 1 (the caller
-- re-reads the endpoint if that moved it later); else someone woke it meanwhile: keeps the earlier of
-- the two and returns 0.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
  else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
  return 1
end
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[1], 'LT', ARGV[3], ARGV[1]) end
return 0
