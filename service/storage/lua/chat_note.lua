-- A moderation record beside a match's chat, living as the match does (service/storage/chat.py).
-- KEYS: meta, the key written (the chat hash, or the reports list)   (one hash tag: one slot)
-- ARGV: 'hset' field value | 'hdel' field | 'rpush' value max length
-- Returns 1 (written; HDEL: 1 or 0 as it removed) | -1 (no such match)
if not redis.call('HGET', KEYS[1], 'version') then
  return -1
end
local done = 1
if ARGV[1] == 'hset' then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
elseif ARGV[1] == 'hdel' then
  done = redis.call('HDEL', KEYS[2], ARGV[2])
else
  redis.call('RPUSH', KEYS[2], ARGV[2])
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
end
live_as_match(KEYS[1], {KEYS[2]})
return done
