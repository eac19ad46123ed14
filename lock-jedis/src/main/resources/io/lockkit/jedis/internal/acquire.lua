-- Takes a lock for an owner (reentrantly, or by claiming a hand-over), or queues the owner
-- when the lock is busy and it will wait.
--
-- KEYS[1] lock hash: "~o" -> the owner holding it (absent when free), owner -> hold count ("0":
--         handed over, not yet claimed), "~t" -> the current token, or the last one while free,
--         "~w" -> present when a wait queue may exist, "~r"/"~n" -> see release.lua.
--         "~g" -> the wait id the hold belongs to: the one a release granted the lock to
--         outright (see release.lua), or the wait whose attempt took it.
--         TTL: the lease while held, the claim timeout after a hand-over, the fence retention
--         once released (so the last token outlives the hold without a key of its own).
-- KEYS[2] wait queue, a sorted set: owner -> arrival time (server microseconds: FIFO order)
-- KEYS[3] queue deadlines, a hash: owner -> time (ms) after which the entry is stale, and
--         owner.."\0g" -> "<lease>:<wait id>", the lease (ms) and wait id of the owner's latest
--         request (a field of its own, so that the deadline stays a plain number for every reader)
-- ARGV[1] owner
-- ARGV[2] lease (ms)
-- ARGV[3] how long (ms) the owner will wait if the lock is busy; 0: do not queue
-- ARGV[4] queue entry slack (ms): how long an entry outlives the owner's next retry
-- ARGV[5] '1' when the owner may have an entry in the queue from an earlier call, else '0'
-- ARGV[6] the id of the wait this attempt belongs to ('0': none); unique per wait of a client
-- Returns the fencing token (> 0) when the owner now holds the lock; when it is busy, -1 minus
-- the ms left on the lease (a single integer: cheaper for Redis and the client than a table).
--
-- Tokens: max(last token + 1, server time in microseconds). The last token is "~t" while the
-- hash lives (held, or released within the retention); once it is gone the server clock alone
-- keeps tokens increasing (a hold's token is at most its acquisition time plus the few tokens
-- issued within the same microseconds, and its key lives at least a millisecond after that).
-- Tokens stay below 2^53, so Lua's numbers hold them exactly, and Redis writes them as integers.
--
-- Cost, uncontended: HMGET, TIME, HSET, PEXPIRE (and EXISTS of the queue when the hash is new).
local owner = ARGV[1]
local state = redis.call('HMGET', KEYS[1], '~o', owner, '~t', '~w', '~g')
local holder = state[1]
if not holder then
  -- Free: the common, uncontended case first.
  local time = redis.call('TIME')
  local token = time[1] * 1000000 + time[2]
  local last = state[3]
  if last then
    last = tonumber(last) + 1
    if last > token then
      token = last
    end
  end
  if ARGV[5] == '1' and redis.call('ZREM', KEYS[2], owner) > 0 then
    redis.call('HDEL', KEYS[3], owner, owner .. '\0g')
  end
  if not last and redis.call('EXISTS', KEYS[2]) == 1 then
    -- A new hash while a queue remains (the last one expired or was deleted under waiters):
    -- mark it, so that the release hands the lock to them.
    redis.call('HSET', KEYS[1], '~o', owner, owner, 1, '~t', token, '~w', 1)
  else
    redis.call('HSET', KEYS[1], '~o', owner, owner, 1, '~t', token)
  end
  if ARGV[6] ~= '0' then
    -- Taken within a wait: tie the hold to it, so that a retry of this attempt takes the same
    -- hold, and the wait's abandon gives it back when the client never learned of it (a reply
    -- lost to a timeout).
    redis.call('HSET', KEYS[1], '~g', ARGV[6])
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return token
end
local lease = tonumber(ARGV[2])
if holder == owner and state[2] then
  if state[2] == '0' then
    -- Claiming a hand-over (the release script already took the owner out of the queue); tied
    -- to the wait as a fresh hold is.
    if ARGV[6] ~= '0' then
      redis.call('HSET', KEYS[1], owner, 1, '~g', ARGV[6])
    else
      redis.call('HSET', KEYS[1], owner, 1)
    end
    redis.call('PEXPIRE', KEYS[1], lease)
  elseif state[5] == ARGV[6] and ARGV[6] ~= '0' then
    -- This wait was granted the lock outright while the attempt was on its way (or took it in
    -- an attempt whose reply was lost): it is the same hold, not a reentrant one. The lease is
    -- set again from now: the client counts it from this attempt, and the grant's lease ran
    -- from the release, which the client may not have heard of (a lost reply, a release of a
    -- hold it had given up as lost), so counting from here must not outlast Redis' lease.
    redis.call('PEXPIRE', KEYS[1], lease)
  else
    redis.call('HINCRBY', KEYS[1], owner, 1)
    if redis.call('PTTL', KEYS[1]) < lease then
      redis.call('PEXPIRE', KEYS[1], lease)
    end
  end
  return tonumber(state[3])
end
local ttl = math.max(redis.call('PTTL', KEYS[1]), 0)
local wait = tonumber(ARGV[3])
if wait > 0 then
  local time = redis.call('TIME')
  local now = time[1] * 1000 + math.floor(time[2] / 1000)
  local keep = math.min(wait, ttl) + tonumber(ARGV[4])
  redis.call('ZADD', KEYS[2], 'NX', time[1] * 1000000 + time[2], owner)
  redis.call('HSET', KEYS[3], owner, now + keep, owner .. '\0g', ARGV[2] .. ':' .. ARGV[6])
  if redis.call('PTTL', KEYS[2]) < keep then
    redis.call('PEXPIRE', KEYS[2], keep)
    redis.call('PEXPIRE', KEYS[3], keep)
  end
  if not state[4] then
    redis.call('HSET', KEYS[1], '~w', 1)
  end
end
return -1 - ttl
