-- Register ARGV[1] in KEYS[1] at ARGV[2]; 1 if it was absent or last touched before ARGV[3] (the
-- workers were not listening to it), else 0.
local last = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if last == false or tonumber(last) < tonumber(ARGV[3]) then return 1 end
return 0
