-- Rewrite some entries of a Stream in place (a player's feed, a match's events), keeping every id.
-- KEYS[1]: the stream.  ARGV[1]: the id of its newest entry when it was read (compare-and-set: a
-- stream written since is left alone, the caller reads it again); then pairs (entry id, new value of
-- its field "e").  A stream's entries cannot be edited, so it is rebuilt: every entry read, the key
-- dropped, every entry added again under its own id (in order, so ids stay valid and increasing).
-- Returns 1 (rewritten), 0 (the stream changed since it was read), -1 (it is gone).
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 then return -1 end
if last[1][1] ~= ARGV[1] then return 0 end
local new = {}
for i = 2, #ARGV, 2 do new[ARGV[i]] = ARGV[i + 1] end
local ttl = redis.call('PTTL', KEYS[1])
local rows = redis.call('XRANGE', KEYS[1], '-', '+')
redis.call('DEL', KEYS[1])
for _, row in ipairs(rows) do
  local id, fields = row[1], row[2]
  local out = {}
  for j = 1, #fields, 2 do
    local value = fields[j + 1]
    if fields[j] == 'e' and new[id] then value = new[id] end
    out[#out + 1] = fields[j]
    out[#out + 1] = value
  end
  redis.call('XADD', KEYS[1], id, unpack(out))
end
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
