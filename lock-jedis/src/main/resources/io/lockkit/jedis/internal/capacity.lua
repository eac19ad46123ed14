-- Stores a name's capacity for its shared holds (an operator's change of a semaphore's size) and
-- wakes its waiters to try against it, as a release wakes them.
--
-- KEYS[1] lockKey: the lock hash (as acquire.lua; read only for whether anyone waits)
-- KEYS[2] capacityKey: the stored capacity (as shared.lua)
-- ARGV[1] capacity: the new capacity, at least 1
-- ARGV[2] channel: the lock's wake-up channel
-- ARGV[3] publishCommand: 'PUBLISH' or 'SPUBLISH'
-- (The names after KEYS[n] and ARGV[n] are the locals below and the names in CapacityScript; a
-- unit test holds them together.)
-- Returns 1. Holders over a reduced capacity keep their permits: shared.lua grants none until the
-- weights held fit. Cost: HSET, HMGET, and PUBLISH when a claim waits.
local lockKey, capacityKey = KEYS[1], KEYS[2]
local capacity, channel, publishCommand = ARGV[1], ARGV[2], ARGV[3]

local F_WAITERS, F_READERS, F_CAPACITY = '~w', '~v', 'n'

redis.call('HSET', capacityKey, F_CAPACITY, capacity)
local waiters, readers = unpack(redis.call('HMGET', lockKey, F_WAITERS, F_READERS))
if waiters or readers then
  redis.call(publishCommand, channel, '')
  redis.call('HDEL', lockKey, F_READERS)
end
return 1
