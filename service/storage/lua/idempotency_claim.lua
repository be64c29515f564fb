-- Claim a record, or read it.  KEYS: the record.  ARGV: owner, fingerprint, claim ms.  Returns
-- ``{"claimed"}``, or ``{state, fingerprint, sealed}`` of the record there.
local found = redis.call('HMGET', KEYS[1], 'state', 'fp', 'sealed')
if not found[1] then
  redis.call('HSET', KEYS[1], 'state', 'pending', 'fp', ARGV[2], 'owner', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'claimed'}
end
return {found[1], found[2] or '', found[3] or ''}
