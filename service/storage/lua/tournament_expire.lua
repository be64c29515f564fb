-- Expire every key of a tournament that is over after the retention (ARGV[2], seconds; 0 keeps it),
-- as a finished match's keys are (match_commit.lua).  Shared by tournament_finish and tournament_cancel.
local function expire_all()
  local keep = tonumber(ARGV[2])
  if keep > 0 then
    for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], keep) end
  end
end
