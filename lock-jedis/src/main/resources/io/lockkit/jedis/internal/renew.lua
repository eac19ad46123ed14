-- Sets the lease of holds whose owners still hold their locks: one call renews many holds.
--
-- KEYS[i] lockKey: the lock hash of the i-th hold (as acquire.lua); on a cluster all in one slot
-- ARGV[2i-1] owner: the owner of the i-th hold
-- ARGV[2i] lease: its lease (ms)
-- (The names after KEYS[..] and ARGV[..] are the locals below and the names in RenewScript; a
-- unit test holds them together.)
-- Returns a table with, per hold, 1 when renewed, 0 when the owner no longer holds the lock (or
-- has not claimed it).
local result = {}
for i = 1, #KEYS do
  local lockKey, owner, lease = KEYS[i], ARGV[2 * i - 1], ARGV[2 * i]
  local count = redis.call('HGET', lockKey, owner)
  if count and count ~= '0' then
    redis.call('PEXPIRE', lockKey, lease)
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
