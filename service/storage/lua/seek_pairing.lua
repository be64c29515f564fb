-- Shared by the pairing scripts.  KEYS: the pool's parts in seeks.py's _POOL_PARTS order.  A seek's
-- compat record: ``p`` player key, ``t`` terms (hash of options, rated, time control), ``r`` its
-- rating, ``lo``/``hi`` the opponents' rating range (absent: open-ended), ``b`` a bot player's seek,
-- ``ab`` a seek that allows bots to fill its seats, ``at`` when they may come, ``lv`` the built-in
-- level it asks for and ``bp`` whether bot players may come to it (absent in seeks posted before
-- issue 42: any level, bot players welcome).
local K_SEEKS, K_STATUS, K_COMPAT, K_OPEN, K_EXPIRY = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local K_BOTWAIT, K_PAIRINGS, K_UNFINISHED = KEYS[6], KEYS[7], KEYS[8]

local function fits(a, b)  -- b's rating within a's range
  return (a.lo == nil or b.r >= a.lo) and (a.hi == nil or b.r <= a.hi)
end
local function willing(a, b, now)  -- a person meets a bot player once its bots may come, if they may be
  if b.b and not a.b then return a.ab == true and a.at <= now and a.bp ~= false end  -- bot players
  return true
end
local function agree(a, b)  -- the seeks of one fill ask for one built-in level
  return a.lv == nil or b.lv == nil or a.lv == b.lv
end
local function compatible(a, b, now)
  return a.p ~= b.p and a.t == b.t and fits(a, b) and fits(b, a) and willing(a, b, now)
    and willing(b, a, now)
end
local function bot_ready(a, now)  -- may sit with bots now
  return a.b or (a.ab == true and a.at <= now)
end

-- Group ``first`` with compatible open seeks, oldest first, up to ``need``; with ``fill`` every member
-- must be ready for bots and a short group is taken too (bots fill the rest).  Takes the group out
-- of the pool and writes its pairing; returns the pairing's JSON, or false.
local function group(first, now, need, fill, pid, limit)
  local me = cjson.decode(redis.call('HGET', K_COMPAT, first))
  if fill and not bot_ready(me, now) then return false end
  local members, records = {first}, {me}
  local ids = redis.call('ZRANGE', K_OPEN, 0, limit - 1)
  if #ids > 0 and #members < need then
    local raw = redis.call('HMGET', K_COMPAT, unpack(ids))
    for i, id in ipairs(ids) do
      if #members >= need then break end
      if id ~= first and raw[i] then
        local cand = cjson.decode(raw[i])
        if not fill or bot_ready(cand, now) then
          local ok = true
          for _, m in ipairs(records) do
            if not compatible(m, cand, now) or (fill and not agree(m, cand)) then ok = false break end
          end
          if ok then
            members[#members + 1] = id
            records[#records + 1] = cand
          end
        end
      end
    end
  end
  if #members < need and not fill then return false end
  for _, id in ipairs(members) do
    redis.call('HSET', K_STATUS, id, 'pairing:' .. pid)
    redis.call('HDEL', K_COMPAT, id)
    redis.call('ZREM', K_OPEN, id)
    redis.call('ZREM', K_EXPIRY, id)
    redis.call('ZREM', K_BOTWAIT, id)
  end
  local pairing = cjson.encode({id = pid, seeks = members, fill = need - #members, created_at = now})
  redis.call('HSET', K_PAIRINGS, pid, pairing)
  redis.call('ZADD', K_UNFINISHED, now, pid)
  return pairing
end
