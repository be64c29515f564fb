-- Keep a finished match's full record (see service/storage/records.py, RecordStore.keep), only if the
-- match is still what it was built from, expiring with the match.  Runs after record_lib.lua.
-- KEYS: meta, events, log, record   (one hash tag: same cluster slot)
-- ARGV: the builder's id, the stamp the read gave (record_read.lua), the record as stored
-- Returns 1 (kept) or 0 (the match is gone, or changed since the read: the record is not written).
-- The record's time to live is the meta's, to the millisecond: it goes with the match
-- (TABLETOP_RETENTION_SECONDS), and a reader finds no record without its match's meta.
local meta = redis.call('HGETALL', KEYS[1])
if #meta == 0 or record_stamp(meta, ARGV[1]) ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[4], 'stamp', ARGV[2], 'body', ARGV[3])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[4], ttl)
else
  redis.call('PERSIST', KEYS[4])
end
return 1
