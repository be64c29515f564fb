-- Answer a challenge.  KEYS: its hash.  ARGV: player id, ``accepted``/``declined``, now.  Returns
-- ``gone``; ``closed`` and the status; ``not_invited``; ``answered`` and the answer given before;
-- ``declined``; ``waiting`` (accepted, others still to answer); ``complete`` (every one accepted).
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'gone'} end
if status ~= 'open' then return {'closed', status} end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[3]) then
  return {'closed', 'expired'}
end
local field = 'answer:' .. ARGV[1]
local current = redis.call('HGET', KEYS[1], field)
if not current then return {'not_invited'} end
if current ~= 'pending' then return {'answered', current} end
redis.call('HSET', KEYS[1], field, ARGV[2])
if ARGV[2] == 'declined' then
  redis.call('HSET', KEYS[1], 'status', 'declined', 'declined_by', ARGV[1])
  return {'declined'}
end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 7) == 'answer:' and all[i + 1] ~= 'accepted' then return {'waiting'} end
end
redis.call('HSET', KEYS[1], 'status', 'accepted')
return {'complete'}
