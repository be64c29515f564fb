-- Put raters on a board unless rated already.  KEYS: ratings, board:people, board:bots; ARGV: per
-- rater 4 items (rater, record, board member, board: 2 people or 3 bots).  Returns how many were new.
local added = 0
for i = 1, #ARGV, 4 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('ZADD', KEYS[tonumber(ARGV[i + 3])], 0, ARGV[i + 2])
    added = added + 1
  end
end
return added
