-- What a match record is built from (see service/storage/records.py), in one call: the match's meta hash
-- (as HGETALL gives it), its events grouped by the version that wrote them, and its action log; or,
-- asked for and still the match's, the full record kept for it (record_keep.lua) instead of the two last.
-- Runs after record_lib.lua.
-- KEYS: meta, events, log, record   (one hash tag: same cluster slot)
-- ARGV: the builder's id ("": read the parts, never a kept record), then the event types to leave out
--       (the service's own: service/events.py)
-- Returns {meta field/value list, {version, "[<event>,...]", ...}, "[<entry>,...]", stamp, kept}:
-- the events and the log are false (nil) when `kept` (the stored record) is given; `stamp` is false
-- when no builder's id was given; an empty meta for a match that is gone.  The events stay as stored
-- (JSON text, joined per version): the client writes them out as they are, or parses one array a
-- version, never one object an event.
local meta = redis.call('HGETALL', KEYS[1])
if #meta == 0 then
  return {meta, {}, '[]', false, false}
end
local stamp = false
if ARGV[1] ~= '' then
  stamp = record_stamp(meta, ARGV[1])
  local kept = redis.call('HMGET', KEYS[4], 'stamp', 'body')
  if kept[1] == stamp then
    return {meta, false, false, stamp, kept[2]}
  end
end
local skip = {}
for i = 2, #ARGV do
  skip[ARGV[i]] = true
end
local groups, order = {}, {}
for _, row in ipairs(redis.call('XRANGE', KEYS[2], '-', '+')) do
  local body = row[2][2]  -- the entry's one field, 'e'
  local kind = string.match(body, '^{"type":"([^"\\]*)"')  -- every event is written with its type first
  if kind == nil then
    kind = cjson.decode(body)['type']
  end
  if not skip[kind] then
    local version = string.match(row[1], '^(%d+)-')
    if groups[version] == nil then
      groups[version] = {}
      order[#order + 1] = version
    end
    local group = groups[version]
    group[#group + 1] = body
  end
end
local events = {}
for _, version in ipairs(order) do
  events[#events + 1] = version
  events[#events + 1] = '[' .. table.concat(groups[version], ',') .. ']'
end
return {
  meta,
  events,
  '[' .. table.concat(redis.call('LRANGE', KEYS[3], 0, -1), ',') .. ']',
  stamp,
  false,
}
