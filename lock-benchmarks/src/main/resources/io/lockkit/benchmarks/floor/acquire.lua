-- The floor's acquire: SET NX PX, nothing else (no reentrancy, no fencing, no queue).
--
-- KEYS[1] lock key
-- ARGV[1] owner
-- ARGV[2] lease (ms)
-- Returns -1 when the owner now holds the lock, else the ms left on the holder's lease.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return -1
end
return redis.call('PTTL', KEYS[1])
