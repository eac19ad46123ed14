-- Sets the lease of an owner's hold, if the owner still holds the lock.
--
-- KEYS[1] lock hash (as acquire.lua)
-- ARGV[1] owner
-- ARGV[2] lease (ms)
-- Returns 1 when renewed, 0 when the owner no longer holds the lock (or has not claimed it).
local count = redis.call('HGET', KEYS[1], ARGV[1])
if not count or count == '0' then
  return 0
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
