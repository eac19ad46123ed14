-- Reads a lock's owner and lease, for operators.
--
-- KEYS[1] lock hash (as acquire.lua)
-- Returns {} when the lock is free, else {ms left on the lease, owner, hold count}
-- (hold count "0": handed over, not yet claimed).
local holder = redis.call('HGET', KEYS[1], '~o')
if not holder then
  return {}
end
return {redis.call('PTTL', KEYS[1]), holder, redis.call('HGET', KEYS[1], holder) or '0'}
