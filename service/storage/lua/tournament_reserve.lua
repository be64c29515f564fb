-- Reserve a new tournament in its app's caps, in one script on the app's slot.  KEYS: the app's live
-- hash.  ARGV: id, its matches, the most tournaments live, the most matches not over (0: no cap).
-- Returns ``{"ok"}``, or ``{"tournaments", live}`` / ``{"matches", not over}``: the cap it would
-- pass, and what is in use.
local max_live, max_matches = tonumber(ARGV[3]), tonumber(ARGV[4])
local live = redis.call('HLEN', KEYS[1])
if max_live > 0 and live >= max_live then return {'tournaments', live} end
local used = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do used = used + tonumber(v) end
if max_matches > 0 and used + tonumber(ARGV[2]) > max_matches then return {'matches', used} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {'ok'}
