-- Finish a running tournament whose every match is made and over, and whose every round was paired.
-- ARGV: now, retention.  Returns 1 if finished now.
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
if redis.call('ZCARD', KEYS[5]) > 0 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'next')) <= tonumber(redis.call('HGET', KEYS[1], 'total')) then
  return 0
end
if tonumber(redis.call('HGET', KEYS[1], 'round')) < tonumber(redis.call('HGET', KEYS[1], 'rounds')) then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_at', ARGV[1])
expire_all()
return 1
