-- Give a claim up (its request was refused, or failed): the key is free again.  ARGV: owner.
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
