-- What a match record is built from (see service/storage/records.py), in one call: the match's meta hash
-- (as HGETALL gives it), its events grouped by the version that wrote them, and its action log.
-- KEYS: meta, events, log   (one hash tag: same cluster slot)
-- ARGV: event types to leave out (the service's own: service/events.py)
-- Returns {meta field/value list, {version, "[<event>,...]", version, "[<event>,...]", ...}, "[<entry>,...]"};
-- an empty meta for a match that is gone.  The events stay as stored (JSON text, joined per version):
-- the client writes them out as they are, or parses one array a version, never one object an event.
local skip = {}
for _, kind in ipairs(ARGV) do
  skip[kind] = true
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
  redis.call('HGETALL', KEYS[1]),
  events,
  '[' .. table.concat(redis.call('LRANGE', KEYS[3], 0, -1), ',') .. ']',
}
