-- A moderator deletes one chat message (service/storage/chat.py, ChatStore.delete).
-- KEYS: meta, events, the players' messages, the spectators' messages   (one hash tag: one slot)
-- ARGV: message id, the players' channel's audience (JSON), the spectators' (JSON)
-- Removes the message and its 'chat' event, appends a 'chat_deleted' event (same audience) so clients
-- drop what they show, and publishes 'chat'.
-- Returns {1, the stored message} | {0} (no such message) | {-1} (no such match)
if not redis.call('HGET', KEYS[1], 'version') then
  return {-1}
end
for i = 3, 4 do
  local found = redis.call('ZRANGEBYSCORE', KEYS[i], ARGV[1], ARGV[1])
  if #found > 0 then
    local message = cjson.decode(found[1])
    redis.call('ZREMRANGEBYSCORE', KEYS[i], ARGV[1], ARGV[1])
    if message['event_id'] then
      redis.call('XDEL', KEYS[2], message['event_id'])
    end
    local event = '{"type":"chat_deleted","visible_to":' .. ARGV[i - 1] .. ',"message_id":' .. ARGV[1]
      .. ',"channel":"' .. message['channel'] .. '"}'
    redis.call('XADD', KEYS[2], next_event_id(KEYS[1], KEYS[2]), 'e', event)
    redis.call('PUBLISH', KEYS[2], 'chat')
    return {1, found[1]}
  end
end
return {0}
