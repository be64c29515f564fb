-- Pop the head of an outbox (KEYS[1]) if it is still ARGV[1] (two drainers at once pop it once).
if redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then
  redis.call('LPOP', KEYS[1])
  return 1
end
return 0
