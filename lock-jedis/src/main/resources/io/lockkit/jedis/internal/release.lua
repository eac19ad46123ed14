-- Releases one hold of an owner, declines a hand-over it no longer wants, or frees the lock
-- whoever holds it; a lock that becomes free goes to the first live waiter in the queue.
--
-- KEYS[1] lock hash, KEYS[2] wait queue, KEYS[3] queue deadlines, KEYS[4] fence (as acquire.lua)
-- ARGV[1] owner ('' for force)
-- ARGV[2] mode: 'release' | 'abandon' (the owner stopped waiting) | 'force'
-- ARGV[3] claim timeout (ms): how long a waiter has to claim a hand-over
-- ARGV[4] fence retention (ms)
-- ARGV[5] wake-up channel
-- ARGV[6] publish command: 'PUBLISH' or 'SPUBLISH'
-- Returns {-1} when the owner held nothing (force: the lock was free), {0} when a reentrant
-- hold remains, {1} when the lock is now free, {1, grantee} when it was handed to a waiter.
local owner = ARGV[1]
local mode = ARGV[2]
if mode == 'force' then
  if redis.call('EXISTS', KEYS[1]) == 0 then
    return {-1}
  end
  local token = redis.call('HGET', KEYS[1], '~t')
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], '~t', token)
else
  if mode == 'abandon' then
    redis.call('ZREM', KEYS[2], owner)
    redis.call('HDEL', KEYS[3], owner)
  end
  local count = redis.call('HGET', KEYS[1], owner)
  if not count or (mode == 'abandon' and count ~= '0') then
    return {-1}
  end
  if tonumber(count) > 1 then
    redis.call('HINCRBY', KEYS[1], owner, -1)
    return {0}
  end
  redis.call('HDEL', KEYS[1], owner)
end
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local last = math.max(tonumber(redis.call('HGET', KEYS[1], '~t') or '0'), tonumber(redis.call('GET', KEYS[4]) or '0'))
local claim = tonumber(ARGV[3])
local retention = tonumber(ARGV[4])
for _ = 1, 1000 do
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not head then
    break
  end
  redis.call('ZREM', KEYS[2], head)
  local deadline = tonumber(redis.call('HGET', KEYS[3], head) or '0')
  redis.call('HDEL', KEYS[3], head)
  if deadline > now then
    local text = string.format('%.0f', math.max(last + 1, time[1] * 1000000 + time[2]))
    redis.call('HSET', KEYS[1], head, 0, '~t', text)
    redis.call('PEXPIRE', KEYS[1], claim)
    redis.call('SET', KEYS[4], text, 'PX', claim + retention)
    redis.call(ARGV[6], ARGV[5], head)
    return {1, head}
  end
end
redis.call('DEL', KEYS[1])
if last > 0 then
  redis.call('SET', KEYS[4], string.format('%.0f', last), 'PX', retention)
end
return {1}
