-- Reads a lock's owner, hold count, lease, fencing token and live waiters, for operators: one
-- round trip, read-only (also the per-key read of a listing page, pipelined).
--
-- KEYS[1] lockKey: the lock hash (as acquire.lua)
-- KEYS[2] queueKey: the wait queue (as acquire.lua)
-- KEYS[3] deadlinesKey: the queue deadlines (as acquire.lua)
-- (No ARGV. The names after KEYS[n] are the locals below and the names in InspectScript; a unit
-- test holds them together.)
-- Returns {} when the lock is free (also a hash kept only for its last token), else
-- {ms left on the lease, owner, hold count, fencing token, waiters}: the token as the hash keeps it
-- (a string of digits: a Lua number would round it past 2^53), hold count "0" when handed
-- over and not yet claimed; waiters counts the queue entries whose deadline has not passed (a
-- waiter that died stays counted until its entry is stale, at most its retry time plus the claim
-- timeout). Cost: HMGET and PTTL; with a queue, TIME, ZRANGE and one HGET per queued owner.
local lockKey, queueKey, deadlinesKey = KEYS[1], KEYS[2], KEYS[3]

local F_HOLDER, F_TOKEN, F_WAITERS = '~o', '~t', '~w'

local holder, token, mayWait = unpack(redis.call('HMGET', lockKey, F_HOLDER, F_TOKEN, F_WAITERS))
if not holder then
  return {}
end
local waiters = 0
if mayWait then
  local time = redis.call('TIME')
  local now = time[1] * 1000 + math.floor(time[2] / 1000)
  for _, owner in ipairs(redis.call('ZRANGE', queueKey, 0, -1)) do
    local deadline = tonumber(redis.call('HGET', deadlinesKey, owner) or '0')
    if deadline and deadline > now then
      waiters = waiters + 1
    end
  end
end
return {redis.call('PTTL', lockKey), holder, redis.call('HGET', lockKey, holder) or '0', token or '0', waiters}
