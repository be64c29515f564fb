-- Helpers shared by the webhook scripts: a script that uses them names this file first (see
-- service/storage/lua/__init__.py), so it runs as one script with them.
local function route(ep, routes, id)
  local f = redis.call('HMGET', ep, 'status', 'types_csv')
  if not f[1] then return end
  local flag = '0'
  if f[1] == 'enabled' then flag = '1' end
  redis.call('HSET', routes, id, flag .. '|' .. (f[2] or ''))
end

local function join(tails, ready, msgs, source, id, now)
  local tail = redis.call('HGET', tails, source)
  if tail and tail ~= id then
    local raw = redis.call('HGET', msgs, tail)
    if raw then
      local t = cjson.decode(raw)
      t['next'] = id
      redis.call('HSET', msgs, tail, cjson.encode(t))
      redis.call('HSET', tails, source, id)
      return
    end
  end
  redis.call('HSET', tails, source, id)
  redis.call('ZADD', ready, now, id)
end

-- Forget the oldest finished messages: those finished before ``before`` (epoch) and any beyond the
-- newest ``keep``, with their log entries and bodies.
local function trim(done, log, msgs, body, before, keep)
  local old = redis.call('ZRANGEBYSCORE', done, '-inf', '(' .. before, 'LIMIT', 0, 100)
  local extra = redis.call('ZCARD', done) - tonumber(keep)
  if extra > 0 then
    for _, o in ipairs(redis.call('ZRANGE', done, 0, extra - 1)) do old[#old + 1] = o end
  end
  for _, o in ipairs(old) do
    redis.call('ZREM', done, o)
    redis.call('ZREM', log, o)
    redis.call('HDEL', msgs, o)
    redis.call('HDEL', body, o)
  end
end

-- The earliest score (as Redis prints it: exact) of the next work: a lease ending, or a ready head
-- if there is room in flight.
local function next_due(ep, ready, flight, concurrency)
  if redis.call('HGET', ep, 'status') ~= 'enabled' then return '' end
  local best = ''
  local f = redis.call('ZRANGE', flight, 0, 0, 'WITHSCORES')
  if f[2] then best = f[2] end
  if redis.call('ZCARD', flight) < concurrency then
    local r = redis.call('ZRANGE', ready, 0, 0, 'WITHSCORES')
    if r[2] and (best == '' or tonumber(r[2]) < tonumber(best)) then best = r[2] end
  end
  return best
end
