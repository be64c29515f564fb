-- KEYS: due.  ARGV: member, expected score, new score.  Moves the member to the new score if its
-- score is still the expected one (a lane taking an endpoint); 1 if moved.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
