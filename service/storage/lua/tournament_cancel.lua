-- Cancel a scheduled or running tournament, in constant time whatever its size: it is ``cancelled``,
-- every match not over counts as aborted (``done`` = ``total``: read so, nothing is written per
-- match), and the matches under way stay listed in ``T:active`` for the sweep to abort
-- (TournamentStore.settled).  ARGV: now, retention, reason.  Returns {"ok"} or {"over", status}.
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'scheduled' and status ~= 'running' then return {'over', status or ''} end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'finished_at', ARGV[1], 'reason', ARGV[3],
  'done', redis.call('HGET', KEYS[1], 'total'))
expire_all()
return {'ok'}
