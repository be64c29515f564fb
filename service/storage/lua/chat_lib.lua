-- Helpers of the chat scripts (service/storage/chat.py); a chat script names this file first.

-- The id the next entry of the match's events stream (KEYS[2] of every chat script) gets when a chat
-- entry joins it between commits: '<version>-<n>', after every id the stream ever gave (its last
-- generated one, which a deleted entry does not lower), so the id still says which version it follows
-- and a client's 'after' cursor stays one cursor.
local function next_event_id(meta, events)
  local version = redis.call('HGET', meta, 'version')
  local last = '0-0'
  local ok, info = pcall(redis.call, 'XINFO', 'STREAM', events)
  if ok then
    for i = 1, #info, 2 do
      if info[i] == 'last-generated-id' then last = info[i + 1] end
    end
  end
  local v, n = string.match(last, '^(%d+)-(%d+)$')
  if v == version then
    return version .. '-' .. (tonumber(n) + 1)
  end
  return version .. '-1'
end

-- Give the chat keys written the match's time to live (a chat key has none of its own): a match in
-- play keeps them, an ended one drops them with itself; the commit does the same when it sets or
-- drops the match's (service/storage/lua/match_commit.lua).
local function live_as_match(meta, keys)
  local ttl = redis.call('PTTL', meta)
  if ttl > 0 then
    for _, key in ipairs(keys) do redis.call('PEXPIRE', key, ttl) end
  end
end
