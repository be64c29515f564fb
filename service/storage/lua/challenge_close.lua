-- Close an open challenge (``cancelled`` or ``expired``).  KEYS: its hash; ARGV: status, now.
-- Returns "ok", or the status it has ("" unknown).
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'open' then return status or '' end
if ARGV[1] == 'cancelled' and tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[2])
then return 'expired' end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
return 'ok'
