-- Rewrite chat messages in place (a player's erasure: service/storage/chat.py, ChatStore.rewrite).
-- KEYS: events, the channel's messages   (one hash tag: one slot)
-- ARGV: per message: id, stored JSON as read, new JSON, its event id ("" for none)
-- A message changed or deleted since it was read is left alone (its event too).
-- Returns how many were rewritten.
local done = 0
for i = 1, #ARGV, 4 do
  if redis.call('ZREM', KEYS[2], ARGV[i + 1]) == 1 then
    redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i + 2])
    if ARGV[i + 3] ~= '' then
      redis.call('XDEL', KEYS[1], ARGV[i + 3])
    end
    done = done + 1
  end
end
return done
