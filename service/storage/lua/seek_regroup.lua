-- Try again to pair an open seek (once its bots came due: ``fill`` = "1", bots fill a short group).
-- ARGV: id, now, players needed, pairing id, scan limit, fill.  A seek no longer open leaves the
-- bot wait.
local id, now = ARGV[1], tonumber(ARGV[2])
if redis.call('HGET', K_STATUS, id) ~= 'open' then
  redis.call('ZREM', K_BOTWAIT, id)
  return false
end
local fill = ARGV[6] == '1'
local pairing = group(id, now, tonumber(ARGV[3]), fill, ARGV[4], tonumber(ARGV[5]))
if fill and not pairing then redis.call('ZREM', K_BOTWAIT, id) end
return pairing
