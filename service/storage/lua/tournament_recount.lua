-- Update the matches not over of live tournaments (only those still listed: an ended one stays out).
-- KEYS: the app's live hash.  ARGV: id, count pairs.
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
