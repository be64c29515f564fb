-- One chat message of one match, all or nothing (service/storage/chat.py, ChatStore.post).
-- KEYS: meta, events, chat (hash), the channel's messages (sorted set)   (one hash tag: one slot)
-- ARGV: author, now (epoch s), rate limit (messages per window), rate window (s), the message's stored
--       JSON without its id (an object), its shown JSON without its id, the stream event's audience
--       (JSON: "all" or the seats)
-- Stores the message (its id the match's next chat number), appends a 'chat' event to the events
-- stream and publishes 'chat' on the stream's channel (no version: live readers read the stream).
-- Returns {1, id, event id} | {-1} (no such match) | {-2} (author blocked) | {-3, seconds to wait}
if not redis.call('HGET', KEYS[1], 'version') then
  return {-1}
end
local author = ARGV[1]
if redis.call('HEXISTS', KEYS[3], 'block:' .. author) == 1 then
  return {-2}
end
local now, limit, window = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local start, count = now, 0
local rate = redis.call('HGET', KEYS[3], 'rate:' .. author)
if rate then
  local s, c = string.match(rate, '^(%S+) (%d+)$')
  if s and now - tonumber(s) < window then
    start, count = tonumber(s), tonumber(c)
  end
end
if count >= limit then
  return {-3, math.max(1, math.ceil(start + window - now))}
end
redis.call('HSET', KEYS[3], 'rate:' .. author, string.format('%.3f', start) .. ' ' .. (count + 1))
local id = redis.call('HINCRBY', KEYS[3], 'seq', 1)
local event_id = next_event_id(KEYS[1], KEYS[2])
local stored = '{"id":' .. id .. ',"event_id":"' .. event_id .. '",' .. string.sub(ARGV[5], 2)
local shown = '{"id":' .. id .. ',' .. string.sub(ARGV[6], 2)
redis.call('ZADD', KEYS[4], id, stored)
redis.call('XADD', KEYS[2], event_id, 'e', '{"type":"chat","visible_to":' .. ARGV[7] .. ',"message":' .. shown .. '}')
redis.call('PUBLISH', KEYS[2], 'chat')
live_as_match(KEYS[1], {KEYS[3], KEYS[4]})
return {1, id, event_id}
