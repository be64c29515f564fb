-- Mark a note as queued for a push subscription, unless it (or a later note of its source) was:
-- KEYS[1] the player's marks (hash: "<subscription>|<source>" -> the newest note number queued);
-- ARGV[1] the field, ARGV[2] the note's number, ARGV[3] seconds the marks are kept after a write.
-- Returns 1 when the note is new (marked now), 0 when it was queued already (or a later one was).
local known = redis.call('HGET', KEYS[1], ARGV[1])
if known and tonumber(known) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
