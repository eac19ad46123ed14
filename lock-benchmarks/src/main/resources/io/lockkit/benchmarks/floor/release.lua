-- The floor's release: compare-and-delete, then tell waiters on the lock's channel.
--
-- KEYS[1] lock key
-- ARGV[1] owner
-- ARGV[2] wake-up channel
-- Returns 1 when the owner held the lock (now free), 0 when it did not.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '1')
  return 1
end
return 0
