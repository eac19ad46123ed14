-- Takes a lock for an owner (reentrantly, or by claiming a hand-over), or queues the owner
-- when the lock is busy and it will wait.
--
-- KEYS[1] lockKey: the lock hash, fields named below: F_HOLDER -> the owner holding it (absent
--         when free), owner -> hold count ("0": handed over, not yet claimed), F_TOKEN -> the
--         current token, or the last one while free, F_WAITERS -> present when a wait queue may
--         exist, F_GRANT_WAIT -> the wait id the hold belongs to: the one a release granted the
--         lock to outright (see release.lua), or the wait whose attempt took it; release.lua's
--         own fields: see there.
--         TTL: the lease while held, the claim timeout after a hand-over, the fence retention
--         once released (so the last token outlives the hold without a key of its own).
-- KEYS[2] queueKey: the wait queue, a sorted set: owner -> arrival time (server microseconds:
--         FIFO order)
-- KEYS[3] deadlinesKey: queue deadlines, a hash: owner -> time (ms) after which the entry is
--         stale, and owner .. REQUEST -> "<lease>:<wait id>:g", the lease (ms) and wait id of the
--         owner's latest request (a field of its own, so that the deadline stays a plain number
--         for every reader); ":g" says that the owner's client hears grants published to it (see
--         release.lua), which entries of earlier versions lack
-- ARGV[1] owner
-- ARGV[2] lease: ms
-- ARGV[3] maxWait: how long (ms) the owner will wait if the lock is busy; 0: do not queue
-- ARGV[4] queueSlack: how long (ms) a queue entry outlives the owner's next retry
-- ARGV[5] mayBeQueued: '1' when the owner may have an entry in the queue from an earlier call,
--         else '0'
-- ARGV[6] waitId: the id of the wait this attempt belongs to ('0': none); unique per wait of a
--         client
-- ARGV[7] fair: '1' when a free lock is taken only with no live waiter queued ahead of the
--         owner (a fair claim), else '0'
-- (The names after KEYS[n] and ARGV[n] are the locals below and the names in AcquireScript; a
-- unit test holds them together.)
-- Returns the fencing token (> 0: an integer below 2^53, else a string of its decimal digits) when
-- the owner now holds the lock; when it is busy, -1 minus the ms left on the lease (a single
-- integer: cheaper for Redis and the client than a table).
--
-- Tokens: max(last token + 1, server time in microseconds). The last token is F_TOKEN while the
-- hash lives (held, or released within the retention); once it is gone the server clock alone
-- keeps tokens increasing (a hold's token is at most its acquisition time plus the few tokens
-- issued within the same microseconds, and its key lives at least a millisecond after that).
-- Exact up to 2^63 - 1: see nextToken below.
--
-- Cost, uncontended: HMGET, TIME, HSET, PEXPIRE (and EXISTS of the queue when the hash is new);
-- a fair claim adds TIME, a ZRANGE of the queue and one HGET per entry ahead of the owner.
--
-- Shared holders (shared.lua) set F_HOLDER to a value no owner id takes, so an exclusive claim
-- finds the name held while they hold, and the hash's TTL is their latest lease.
local lockKey, queueKey, deadlinesKey = KEYS[1], KEYS[2], KEYS[3]
local owner, lease, maxWait, queueSlack, mayBeQueued, waitId, fair =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]

-- Lock hash fields (release.lua adds '~r', '~n' and '~x'; shared.lua '~s' and '~v'); F_FAIR:
-- a fair waiter queued, so releases hand over in arrival order only.
local F_HOLDER, F_TOKEN, F_WAITERS, F_GRANT_WAIT, F_FAIR = '~o', '~t', '~w', '~g', '~f'
-- Suffix of an owner's field in the queue deadlines that holds its latest request.
local REQUEST = '\0g'

-- Fencing tokens: the next one is the greater of the last one plus one and the server's clock in
-- microseconds. Lua's numbers are doubles, exact only below 2^53: while both are below it (the
-- clock gets there in the year 2255) the token is a number, else a string of its decimal digits,
-- counted digit by digit (a counter may be past 2^53: raised there, or counted up there). Redis
-- writes either into the hash as the same digits; a number a script returns reaches the client cut
-- to an integer, a string as it is. (acquire.lua and release.lua hold the same functions, which a
-- unit test keeps equal.)
local function greaterDigits(a, b)
  if #a ~= #b then
    return #a > #b
  end
  for i = 1, #a do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return false
end

local function nextToken(last, time)
  local clock = time[1] * 1000000 + time[2]
  local previous = tonumber(last or '0')
  if previous < 9007199254740991 and clock < 9007199254740992 then
    return math.max(previous + 1, clock)
  end
  local digits = last or '0'
  if not string.find(digits, '^[1-9]%d*$') then
    digits = string.format('%.0f', previous)
  end
  local i = #digits
  while string.byte(digits, i) == 57 do
    i = i - 1
  end
  local afterLast
  if i == 0 then
    afterLast = '1' .. string.rep('0', #digits)
  else
    afterLast = string.sub(digits, 1, i - 1) .. string.char(string.byte(digits, i) + 1) .. string.rep('0', #digits - i)
  end
  local now = time[1] .. string.sub('00000' .. time[2], -6)
  if greaterDigits(now, afterLast) then
    return now
  end
  return afterLast
end

local holder, count, last, waiters, grantWait =
  unpack(redis.call('HMGET', lockKey, F_HOLDER, owner, F_TOKEN, F_WAITERS, F_GRANT_WAIT))
-- A fair claim on a free lock: the ms left to the deadline of the first live waiter queued ahead
-- of the owner, which it waits behind; and whether others are queued (releases must look then).
local ahead, others = nil, false
if not holder and fair == '1' then
  local time = redis.call('TIME')
  local now = time[1] * 1000 + math.floor(time[2] / 1000)
  local queue = redis.call('ZRANGE', queueKey, 0, 999)
  others = #queue > 1 or #queue == 1 and queue[1] ~= owner
  for _, e in ipairs(queue) do
    if e == owner then
      break
    end
    local deadline = tonumber(redis.call('HGET', deadlinesKey, e) or '0') or 0
    if deadline > now then
      ahead = deadline - now
      break
    end
  end
end
if not holder and not ahead then
  -- Free: the common, uncontended case first.
  local token = nextToken(last, redis.call('TIME'))
  if mayBeQueued == '1' and redis.call('ZREM', queueKey, owner) > 0 then
    redis.call('HDEL', deadlinesKey, owner, owner .. REQUEST)
  end
  if not last and redis.call('EXISTS', queueKey) == 1 then
    -- A new hash while a queue remains (the last one expired or was deleted under waiters):
    -- mark it, so that the release hands the lock to them.
    redis.call('HSET', lockKey, F_HOLDER, owner, owner, 1, F_TOKEN, token, F_WAITERS, 1)
  else
    redis.call('HSET', lockKey, F_HOLDER, owner, owner, 1, F_TOKEN, token)
  end
  if waitId ~= '0' then
    -- Taken within a wait: tie the hold to it, so that a retry of this attempt takes the same
    -- hold, and the wait's abandon gives it back when the client never learned of it (a reply
    -- lost to a timeout).
    redis.call('HSET', lockKey, F_GRANT_WAIT, waitId)
  end
  if others then
    redis.call('HSET', lockKey, F_WAITERS, 1, F_FAIR, 1)
  end
  redis.call('PEXPIRE', lockKey, lease)
  return token
end
local leaseMillis = tonumber(lease)
if holder == owner and count then
  if count == '0' then
    -- Claiming a hand-over (the release script already took the owner out of the queue); tied
    -- to the wait as a fresh hold is.
    if waitId ~= '0' then
      redis.call('HSET', lockKey, owner, 1, F_GRANT_WAIT, waitId)
    else
      redis.call('HSET', lockKey, owner, 1)
    end
    redis.call('PEXPIRE', lockKey, leaseMillis)
  elseif grantWait == waitId and waitId ~= '0' then
    -- This wait was granted the lock outright while the attempt was on its way (or took it in
    -- an attempt whose reply was lost): it is the same hold, not a reentrant one. The lease is
    -- set again from now: the client counts it from this attempt, and the grant's lease ran
    -- from the release, which the client may not have heard of (a lost reply, a release of a
    -- hold it had given up as lost), so counting from here must not outlast Redis' lease.
    redis.call('PEXPIRE', lockKey, leaseMillis)
  else
    redis.call('HINCRBY', lockKey, owner, 1)
    if redis.call('PTTL', lockKey) < leaseMillis then
      redis.call('PEXPIRE', lockKey, leaseMillis)
    end
  end
  return last
end
local ttl = ahead or math.max(redis.call('PTTL', lockKey), 0)
local wait = tonumber(maxWait)
if wait > 0 then
  local time = redis.call('TIME')
  local now = time[1] * 1000 + math.floor(time[2] / 1000)
  local keep = math.min(wait, ttl) + tonumber(queueSlack)
  redis.call('ZADD', queueKey, 'NX', time[1] * 1000000 + time[2], owner)
  redis.call('HSET', deadlinesKey, owner, now + keep, owner .. REQUEST, lease .. ':' .. waitId .. ':g')
  if redis.call('PTTL', queueKey) < keep then
    redis.call('PEXPIRE', queueKey, keep)
    redis.call('PEXPIRE', deadlinesKey, keep)
  end
  if fair == '1' then
    redis.call('HSET', lockKey, F_WAITERS, 1, F_FAIR, 1)
    if redis.call('PTTL', lockKey) == -1 then
      -- A free name's hash made here: it lives as long as the entry.
      redis.call('PEXPIRE', lockKey, keep)
    end
  elseif not waiters then
    redis.call('HSET', lockKey, F_WAITERS, 1)
  end
end
return -1 - ttl
