-- Rewrite reports of a match's chat in place (a player's erasure: service/storage/chat.py,
-- ChatStore.rewrite_reports).
-- KEYS: the match's reports list
-- ARGV: per report: its index (from 0), the stored JSON as read, the new JSON
-- A report moved or changed since it was read (a newer report trimmed the list) is left alone.
-- Returns how many were rewritten.
local done = 0
for i = 1, #ARGV, 3 do
  local index = tonumber(ARGV[i])
  if redis.call('LINDEX', KEYS[1], index) == ARGV[i + 1] then
    redis.call('LSET', KEYS[1], index, ARGV[i + 2])
    done = done + 1
  end
end
return done
