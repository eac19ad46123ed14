-- Takes a lock for an owner (reentrantly, or by claiming a hand-over), or queues the owner
-- when the lock is busy and it will wait.
--
-- KEYS[1] lock hash: owner -> hold count ("0" = handed over, not yet claimed), "~t" -> token
-- KEYS[2] wait queue, a sorted set: owner -> arrival time (server microseconds: FIFO order)
-- KEYS[3] queue deadlines, a hash: owner -> time (ms) after which the entry is stale
-- KEYS[4] fence: the last fencing token issued for the name
-- ARGV[1] owner
-- ARGV[2] lease (ms)
-- ARGV[3] how long (ms) the owner will wait if the lock is busy; 0: do not queue
-- ARGV[4] fence retention (ms) past the lease
-- ARGV[5] queue entry slack (ms): how long an entry outlives the owner's next retry
-- Returns {1, token} when the owner now holds the lock, {0, ms left on the lease} when busy.
--
-- Tokens: max(last token + 1, server time in microseconds). The fence key keeps the last token
-- for the lease plus the retention; after that, the server clock alone keeps tokens increasing.
local owner = ARGV[1]
local lease = tonumber(ARGV[2])
local retention = tonumber(ARGV[4])
local time = redis.call('TIME')
if redis.call('EXISTS', KEYS[1]) == 0 then
  -- Free: the common, uncontended case first.
  local last = tonumber(redis.call('GET', KEYS[4]) or '0')
  local token = math.max(last + 1, time[1] * 1000000 + time[2])
  local text = string.format('%.0f', token)
  redis.call('HSET', KEYS[1], owner, 1, '~t', text)
  redis.call('PEXPIRE', KEYS[1], lease)
  redis.call('SET', KEYS[4], text, 'PX', lease + retention)
  if redis.call('ZREM', KEYS[2], owner) > 0 then
    redis.call('HDEL', KEYS[3], owner)
  end
  return {1, token}
end
local count = redis.call('HGET', KEYS[1], owner)
if count then
  if count == '0' then
    redis.call('HSET', KEYS[1], owner, 1)
    redis.call('PEXPIRE', KEYS[1], lease)
    redis.call('ZREM', KEYS[2], owner)
    redis.call('HDEL', KEYS[3], owner)
  else
    redis.call('HINCRBY', KEYS[1], owner, 1)
    if redis.call('PTTL', KEYS[1]) < lease then
      redis.call('PEXPIRE', KEYS[1], lease)
    end
  end
  local token = redis.call('HGET', KEYS[1], '~t')
  redis.call('SET', KEYS[4], token, 'PX', redis.call('PTTL', KEYS[1]) + retention)
  return {1, tonumber(token)}
end
local ttl = redis.call('PTTL', KEYS[1])
local wait = tonumber(ARGV[3])
if wait > 0 then
  local now = time[1] * 1000 + math.floor(time[2] / 1000)
  local keep = math.min(wait, math.max(ttl, 0)) + tonumber(ARGV[5])
  redis.call('ZADD', KEYS[2], 'NX', string.format('%.0f', time[1] * 1000000 + time[2]), owner)
  redis.call('HSET', KEYS[3], owner, now + keep)
  if redis.call('PTTL', KEYS[2]) < keep then
    redis.call('PEXPIRE', KEYS[2], keep)
    redis.call('PEXPIRE', KEYS[3], keep)
  end
end
return {0, ttl}
