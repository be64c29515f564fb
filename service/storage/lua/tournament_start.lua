-- Start a scheduled tournament.  KEYS: the parts.  ARGV: now.  Returns the status after.
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'scheduled' and tonumber(redis.call('HGET', KEYS[1], 'starts_at')) <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'running')
  return 'running'
end
return status or ''
