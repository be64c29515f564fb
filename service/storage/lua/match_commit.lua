-- One move of one match, all or nothing (see service/storage/matches.py, Store.commit).
-- KEYS: meta, state, events, log, outbox, the match's four chat keys (service/storage/chat.py: they
--       live and go with the match) [, idempotency record]   (one hash tag: same cluster slot)
-- ARGV: expected version, expected updated_at (the two name one committed version),
--       encoded state ("" = unchanged), log entry ("" = none),
--       expire seconds (0 = keep the keys' time to live, -1 = drop it: a waiting match started),
--       idempotency record, idempotency seconds,
--       outbox entry ("" = none: the notes for the match's players, see service/domain/feeds/feed.py),
--       number of meta field/value items, meta items..., events...
-- Publishes the new version (and '<space><seat to move>' when the meta items set it; empty for
-- nobody) and its events (one JSON document a line; the events' ids are <version>-1, <version>-2,
-- ...) on the channel named like the events stream (KEYS[3]): live readers hand them out without
-- reading the stream (service/live/).
-- Returns {1, new version} | {0, current version} (stale) | {2, stored record} (key replay) | {-1} (gone)
local found = redis.call('HMGET', KEYS[1], 'version', 'updated_at')
local current = found[1]
if not current then
  return {-1}
end
if KEYS[10] then
  local stored = redis.call('GET', KEYS[10])
  if stored then
    return {2, stored}
  end
end
if current ~= ARGV[1] or tonumber(found[2]) ~= tonumber(ARGV[2]) then
  return {0, tonumber(current)}
end
local version = tonumber(current) + 1
local nmeta = tonumber(ARGV[9])
local meta = {'version', version}
for i = 10, 9 + nmeta do
  meta[#meta + 1] = ARGV[i]
end
if ARGV[3] ~= '' then  -- a move; a change of who holds the seats leaves the state as it is
  redis.call('SET', KEYS[2], ARGV[3])
end
redis.call('HSET', KEYS[1], unpack(meta))
local head = version  -- with who is to move after it, when this commit says (a long-poll answers it)
for i = 10, 9 + nmeta, 2 do
  if ARGV[i] == 'to_move' then
    head = version .. ' ' .. ARGV[i + 1]
  end
end
local published = {head}
for i = 10 + nmeta, #ARGV do
  redis.call('XADD', KEYS[3], version .. '-' .. (i - 9 - nmeta), 'e', ARGV[i])
  published[#published + 1] = ARGV[i]
end
if ARGV[4] ~= '' then  -- the action log holds moves only
  redis.call('RPUSH', KEYS[4], ARGV[4])
end
if KEYS[10] then
  redis.call('SET', KEYS[10], ARGV[6], 'EX', ARGV[7])
end
if ARGV[8] ~= '' then  -- drained into the players' feeds after the commit (or by the workers' sweep)
  redis.call('RPUSH', KEYS[5], ARGV[8])
end
redis.call('PUBLISH', KEYS[3], table.concat(published, '\n'))
local expire = tonumber(ARGV[5])
if expire > 0 then
  for i = 1, 9 do
    redis.call('EXPIRE', KEYS[i], expire)
  end
elseif expire < 0 then
  for i = 1, 9 do
    redis.call('PERSIST', KEYS[i])
  end
end
return {1, version}
