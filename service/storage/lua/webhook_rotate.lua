-- KEYS: ep.  ARGV: new secret, the old one's expiry, now.  The current secret becomes the previous
-- one (a previous one still in its grace is dropped).  1 rotated, 0 no such endpoint.
local old = redis.call('HGET', KEYS[1], 'secret')
if not old then return 0 end
redis.call('HSET', KEYS[1], 'secret', ARGV[1], 'previous_secret', old,
  'previous_secret_expires_at', ARGV[2], 'updated_at', ARGV[3])
return 1
