-- Sets the lease of holds whose owners still hold their locks: one call renews many holds.
--
-- KEYS[i] lock hash of the i-th hold (as acquire.lua); on a cluster all in one slot
-- ARGV[2i-1] owner of the i-th hold
-- ARGV[2i] its lease (ms)
-- Returns a table with, per hold, 1 when renewed, 0 when the owner no longer holds the lock (or
-- has not claimed it).
local result = {}
for i = 1, #KEYS do
  local count = redis.call('HGET', KEYS[i], ARGV[2 * i - 1])
  if count and count ~= '0' then
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
