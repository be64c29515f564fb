-- Shared by record_read.lua and record_keep.lua (joined before them): the stamp of what a match's
-- record is built from, so a kept record is served only for the very match it was built from.
-- KEYS of both: meta, events, log, record   (one hash tag: same cluster slot)
-- record_stamp(meta, build): the SHA-1 of the builder's id (`build`: the code and rules that make a
-- record, service/domain/records/keeping.py), the events' and the log's lengths and every meta field
-- (sorted, each length-prefixed): any commit, rematch offer or rewrite of the match changes it.
local function record_stamp(meta, build)
  local items = {}
  for i = 1, #meta, 2 do
    items[#items + 1] = #meta[i] .. ':' .. meta[i] .. #meta[i + 1] .. ':' .. meta[i + 1]
  end
  table.sort(items)
  return redis.sha1hex(
    #build .. ':' .. build .. redis.call('XLEN', KEYS[2]) .. ':' .. redis.call('LLEN', KEYS[3]) .. ':'
      .. table.concat(items)
  )
end
