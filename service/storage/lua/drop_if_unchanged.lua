-- Drop KEYS[1]'s member ARGV[1] if its score is still ARGV[2] (nothing re-marked it since it was read):
-- how every store clears a mark in an index others may write meanwhile.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
