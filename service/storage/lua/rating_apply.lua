-- Rate one match, all or nothing.  KEYS: ratings, rated, seq, board:people, board:bots, then the
-- history list of each rater written (in the order of the writes).  ARGV: match id, now (its mark's
-- score), prune the rated marks scored before this, history length, number of checks C, C pairs
-- (rater, expected record; "" = none), then 6 items per write: rater, new record, its old board member
-- ("" = none), its new board member, its board (4: people, 5: bots), its history entry (a JSON object,
-- which the script numbers with the match's ``seq``).
-- Returns {1, seq} (applied), {0} (rated before), {-1, rater} (that rating changed since it was read).
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return {0} end
local checks = tonumber(ARGV[5])
for i = 0, checks - 1 do
  local rater = ARGV[6 + 2 * i]
  local current = redis.call('HGET', KEYS[1], rater) or ''
  if current ~= ARGV[7 + 2 * i] then return {-1, rater} end
end
local seq = redis.call('INCR', KEYS[3])
local first = 6 + 2 * checks
local n = 0
for w = first, #ARGV, 6 do
  n = n + 1
  redis.call('HSET', KEYS[1], ARGV[w], ARGV[w + 1])
  if ARGV[w + 2] ~= '' then
    redis.call('ZREM', KEYS[4], ARGV[w + 2])
    redis.call('ZREM', KEYS[5], ARGV[w + 2])
  end
  redis.call('ZADD', KEYS[tonumber(ARGV[w + 4])], 0, ARGV[w + 3])
  local history = KEYS[5 + n]
  redis.call('LPUSH', history, '{"seq":' .. seq .. ',' .. string.sub(ARGV[w + 5], 2))
  redis.call('LTRIM', history, 0, tonumber(ARGV[4]) - 1)
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3])
return {1, seq}
