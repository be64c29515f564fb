-- Revoke every token of a player (KEYS[1]: its tokens hash) at once; returns their ids, so the
-- revocation can name each one (see accounts.py, Revocation).
local ids = redis.call('HKEYS', KEYS[1])
redis.call('DEL', KEYS[1])
return ids
