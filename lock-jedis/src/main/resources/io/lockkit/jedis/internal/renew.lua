-- Sets the lease of an owner's hold, if the owner still holds the lock.
--
-- KEYS[1] lock hash, KEYS[2] fence (as acquire.lua)
-- ARGV[1] owner
-- ARGV[2] lease (ms)
-- ARGV[3] fence retention (ms)
-- Returns 1 when renewed, 0 when the owner no longer holds the lock.
local count = redis.call('HGET', KEYS[1], ARGV[1])
if not count or count == '0' then
  return 0
end
local lease = tonumber(ARGV[2])
redis.call('PEXPIRE', KEYS[1], lease)
redis.call('PEXPIRE', KEYS[2], lease + tonumber(ARGV[3]))
return 1
