-- Create a match's keys unless it exists. KEYS: meta, state, events, outbox; ARGV: state, created
-- event, expire seconds (0: keep), outbox entry ("": none), meta field/value items.  Returns 1 if
-- created, 0 if the id was taken (a rematch created meanwhile).
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('XADD', KEYS[3], '0-1', 'e', ARGV[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
if ARGV[4] ~= '' then redis.call('RPUSH', KEYS[4], ARGV[4]) end
if tonumber(ARGV[3]) > 0 then
  for i = 1, 4 do
    redis.call('EXPIRE', KEYS[i], ARGV[3])
  end
end
return 1
