-- A job of tenant ARGV[1] took ARGV[2] seconds: its start tag is its finish tag (KEYS[1]) or the lane's
-- clock (KEYS[2]) if that is later (a tenant back from idle starts now: no credit, no debt); its finish
-- tag becomes start + seconds, and the clock moves up to the start.
local clock = tonumber(redis.call('GET', KEYS[2]) or '0')
local start = math.max(tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0'), clock)
redis.call('HSET', KEYS[1], ARGV[1], string.format('%.6f', start + tonumber(ARGV[2])))
if start > clock then redis.call('SET', KEYS[2], string.format('%.6f', start)) end
return 1
