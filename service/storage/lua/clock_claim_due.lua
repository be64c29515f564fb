-- Claim up to ARGV[2] deadlines due by ARGV[1]: each is pushed ARGV[3] s later (a lease: a claimer
-- that dies leaves them to fire again), and returned.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[3]), id)
end
return due
