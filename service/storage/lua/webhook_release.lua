-- KEYS: ep, ready, flight, msgs.  ARGV: message id, lease, now.  A claimed message its lane did not send
-- (the endpoint was disabled meanwhile) goes back to wait, its attempt uncounted; 1 if it did, 0 if the
-- lease was no longer the lane's.
local score = redis.call('ZSCORE', KEYS[3], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
local raw = redis.call('HGET', KEYS[4], ARGV[1])
if not raw then return 0 end
local s = cjson.decode(raw)
s['attempts'] = math.max(0, tonumber(s['attempts']) - 1)
s['next_attempt_at'] = tonumber(ARGV[3])
redis.call('HSET', KEYS[4], ARGV[1], cjson.encode(s))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
