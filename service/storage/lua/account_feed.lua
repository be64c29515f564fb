-- Feed one note.  KEYS: feed, fed, matches; ARGV: source (a match id), note number (a match's: version *
-- 1000 + n), entry JSON, max length, match sequence ("": the source is no match).  Adds the entry
-- unless that note was fed already; publishes it on
-- the feed's channel (its own name) as ``<id>\n<entry JSON>`` (see accounts.py, published_entry).  Returns
-- the entry id, or "" for a note fed before.
local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
if tonumber(ARGV[2]) <= last then return '' end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1]) end
redis.call('PUBLISH', KEYS[1], id .. '\n' .. ARGV[3])
return id
