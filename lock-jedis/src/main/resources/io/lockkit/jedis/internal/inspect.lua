-- Reads a lock's owner and lease, for operators.
--
-- KEYS[1] lockKey: the lock hash (as acquire.lua)
-- (No ARGV. The name after KEYS[1] is the local below and the name in InspectScript; a unit test
-- holds them together.)
-- Returns {} when the lock is free, else {ms left on the lease, owner, hold count}
-- (hold count "0": handed over, not yet claimed).
local lockKey = KEYS[1]

local F_HOLDER = '~o'

local holder = redis.call('HGET', lockKey, F_HOLDER)
if not holder then
  return {}
end
return {redis.call('PTTL', lockKey), holder, redis.call('HGET', lockKey, holder) or '0'}
