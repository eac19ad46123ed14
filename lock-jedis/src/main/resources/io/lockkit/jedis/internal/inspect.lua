-- Reads a lock's owner, hold count, lease, fencing token and live waiters, for operators: one
-- round trip, read-only (also the per-key read of a listing page, pipelined).
--
-- KEYS[1] lockKey: the lock hash (as acquire.lua)
-- KEYS[2] queueKey: the wait queue (as acquire.lua)
-- KEYS[3] deadlinesKey: the queue deadlines (as acquire.lua)
-- KEYS[4] capacityKey: the stored capacity (as shared.lua)
-- (No ARGV. The names after KEYS[n] are the locals below and the names in InspectScript; a unit
-- test holds them together.)
-- Returns {} when the lock is free (also a hash kept only for its last token), else
-- {ms left on the lease, owner, hold count, fencing token, waiters}: the token as the hash keeps it
-- (a string of digits: a Lua number would round it past 2^53), hold count "0" when handed
-- over and not yet claimed; waiters counts the queue entries whose deadline has not passed (a
-- waiter that died stays counted until its entry is stale, at most its retry time plus the claim
-- timeout). Cost: HMGET and PTTL; with a queue, TIME, ZRANGE and one HGET per queued owner.
-- With shared holders (see shared.lua) the reply goes on with the stored capacity (-1: none), the
-- first holder's weight (0: exclusive) and {owner, hold count, weight} of each further holder,
-- every live one listed once: the exclusive one beside them (a downgrade) first; the lease is the
-- latest of them (the hash's TTL), the token the name's newest. Adds TIME, HGETALL and HGET.
local lockKey, queueKey, deadlinesKey, capacityKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local F_HOLDER, F_TOKEN, F_WAITERS, F_SHARED, SHARED, F_CAPACITY = '~o', '~t', '~w', '~s', ' shared', 'n'
local RECORD = '^(%d+):(%d+):(%d+):(%d+):(%d+):(.*)$'

local holder, token, mayWait, shared = unpack(redis.call('HMGET', lockKey, F_HOLDER, F_TOKEN, F_WAITERS, F_SHARED))
if not holder then
  return {}
end
local now = 0
if shared or mayWait then
  local time = redis.call('TIME')
  now = time[1] * 1000 + math.floor(time[2] / 1000)
end
-- Every live holder as owner, count, weight, owner, count, weight...: the exclusive one first.
local holders = {}
if holder ~= SHARED then
  holders = {holder, redis.call('HGET', lockKey, holder) or '0', 0}
end
if shared then
  local fields = redis.call('HGETALL', lockKey)
  for i = 1, #fields, 2 do
    local c, w, _, d = string.match(fields[i + 1], RECORD)
    if c and string.sub(fields[i], 1, 1) ~= '~' and tonumber(d) > now then
      holders[#holders + 1] = fields[i]
      holders[#holders + 1] = c
      holders[#holders + 1] = tonumber(w)
    end
  end
end
if #holders == 0 then
  return {}
end
local waiters = 0
if mayWait then
  for _, owner in ipairs(redis.call('ZRANGE', queueKey, 0, -1)) do
    local deadline = tonumber(redis.call('HGET', deadlinesKey, owner) or '0')
    if deadline and deadline > now then
      waiters = waiters + 1
    end
  end
end
local reply = {redis.call('PTTL', lockKey), holders[1], holders[2], token or '0', waiters}
if shared then
  reply[6] = tonumber(redis.call('HGET', capacityKey, F_CAPACITY) or '-1')
  reply[7] = holders[3]
  for i = 4, #holders do
    reply[#reply + 1] = holders[i]
  end
end
return reply
