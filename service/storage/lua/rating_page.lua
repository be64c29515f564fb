-- A page of a board.  KEYS: board, ratings; ARGV: ZRANGEBYLEX start ("-" or "(<member>"), count.
-- Returns {members before the first, members with a better ordinal than the first, members, records}.
local members = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], '+', 'LIMIT', 0, tonumber(ARGV[2]))
if #members == 0 then return {0, 0, {}, {}} end
local first = members[1]
local before = redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. first)
local cut = string.find(first, ':', 1, true)
local better = redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. string.sub(first, 1, cut))
local raters = {}
for i, member in ipairs(members) do
  raters[i] = string.sub(member, string.find(member, ':', 1, true) + 1)
end
local records = redis.call('HMGET', KEYS[2], unpack(raters))
for i = 1, #records do
  if not records[i] then records[i] = '' end
end
return {before, better, members, records}
