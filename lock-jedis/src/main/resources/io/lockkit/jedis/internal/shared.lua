-- Takes a shared hold for an owner (a read lock, or permits of a semaphore), reentrantly, or
-- answers busy and, when the owner will wait, makes its wait known to the releases.
--
-- KEYS[1] lockKey: the lock hash (as acquire.lua), with F_SHARED set while shared holders may
--         exist, F_HOLDER set to SHARED while only shared holders hold, and per shared holder a
--         field owner -> "count:weight:token:deadline:waitId:nonce" (deadline: server ms when its
--         lease ends; waitId: the wait whose attempt took or last re-entered the hold; nonce:
--         that of the last count-lowering release, see release.lua). Its TTL is the latest
--         deadline of its holders (never shorter than an exclusive holder's lease).
-- KEYS[2] queueKey: the wait queue (as acquire.lua); a shared waiter's request ends in ':s'
-- KEYS[3] deadlinesKey: the queue deadlines (as acquire.lua)
-- KEYS[4] capacityKey: the name's stored capacity, a hash without expiry whose field F_CAPACITY
--         holds it, set by the first bounded claim (a hash: the commands of the lock's own
--         hashes suffice, which keeps the ACL a provider needs short)
-- ARGV[1] owner
-- ARGV[2] lease: ms
-- ARGV[3] maxWait: how long (ms) the owner will wait if busy; 0: it is not waiting
-- ARGV[4] queueSlack: how long (ms) a queue entry outlives the owner's next retry
-- ARGV[5] waitId: the id of the wait this attempt belongs to ('0': none)
-- ARGV[6] weight: the units the hold takes (1 for a reader, k for k permits)
-- ARGV[7] capacity: '0' unbounded (readers), else the claim's capacity, used when none is stored
-- ARGV[8] fair: '1' when the claim queues behind every earlier live waiter, else '0'
-- ARGV[9] beside: the exclusive holder this claim may stand beside (a downgrade), or ''
-- (The names after KEYS[n] and ARGV[n] are the locals below and the names in SharedScript; a
-- unit test holds them together.)
-- Returns the fencing token (as acquire.lua) when the owner now holds; when busy, -1 minus the
-- ms after which it may try again at the latest (the soonest lease end of what blocks it);
-- {-2, capacity} when weight exceeds the stored capacity (the claim is refused, not queued).
--
-- Admission (the rule of the SPI's Claim): an owner that holds is admitted again, its lease never
-- shortened; else the claim needs no exclusive holder (but the one it stands beside), the live
-- holders' weights plus its own within the capacity, and no live queued waiter ahead of it that
-- blocks it: an exclusive one (writer preference), or with fair any one. Lapsed holders are
-- dropped first, so a crashed holder's permits come back after its own lease. Only a fair claim
-- takes a queue entry; any waiting claim sets F_WAITERS and F_READERS, so that the next release
-- publishes a wake-up without a grantee.
--
-- Cost, uncontended: HMGET, TIME, HGETALL (every field of the hash: holders are pruned here),
-- HGET of the capacity for a bounded claim, ZRANGE of the queue (and one HMGET per entry ahead),
-- HSET and PEXPIRE.
local lockKey, queueKey, deadlinesKey, capacityKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, lease, maxWait, queueSlack, waitId, weight, capacity, fair, beside =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]

-- Lock hash fields: those of acquire.lua, and F_SHARED, F_FAIR (a fair waiter queued: releases
-- hand over in arrival order only) and F_READERS (a shared claim waits: releases publish).
local F_HOLDER, F_TOKEN, F_WAITERS, F_SHARED, F_FAIR, F_READERS = '~o', '~t', '~w', '~s', '~f', '~v'
-- The capacity key's one field.
local F_CAPACITY = 'n'
-- F_HOLDER while only shared holders hold: no owner id contains a space.
local SHARED = ' shared'
local RECORD = '^(%d+):(%d+):(%d+):(%d+):(%d+):(.*)$'
-- Suffix of an owner's field in the queue deadlines that holds its latest request.
local REQUEST = '\0g'
-- How many queue entries one attempt looks at ahead of its owner.
local QUEUE_SCAN = 1000

-- Fencing tokens: as acquire.lua (a unit test keeps these functions equal to its).
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

local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local leaseMillis, wait, units = tonumber(lease), tonumber(maxWait), tonumber(weight)
local holder, mine, last, waiters = unpack(redis.call('HMGET', lockKey, F_HOLDER, owner, F_TOKEN, F_WAITERS))

if mine then
  local c, w, t, d, g = string.match(mine, RECORD)
  if c and tonumber(d) > now then
    -- Reentrant: the count goes up, the token stays, the lease is never shortened. A retry of the
    -- attempt that took the hold (its reply lost: the same wait) is the same hold, not another.
    local deadline = math.max(tonumber(d), now + leaseMillis)
    if g ~= waitId or waitId == '0' then
      c = tonumber(c) + 1
    end
    redis.call('HSET', lockKey, owner, c .. ':' .. w .. ':' .. t .. ':' .. string.format('%.0f', deadline) .. ':' .. waitId .. ':')
    if redis.call('PTTL', lockKey) < deadline - now then
      redis.call('PEXPIRE', lockKey, deadline - now)
    end
    return t
  elseif not c and holder == owner and mine ~= '0' then
    -- The owner holds the name exclusively: reentrant on that hold.
    redis.call('HINCRBY', lockKey, owner, 1)
    return last
  end
end

-- The live shared holders: their weights, soonest and latest deadlines; lapsed ones dropped.
local used, soonest, latest = 0, nil, 0
local fields = redis.call('HGETALL', lockKey)
for i = 1, #fields, 2 do
  local c, w, _, d = string.match(fields[i + 1], RECORD)
  if c and string.sub(fields[i], 1, 1) ~= '~' then
    d = tonumber(d)
    if d <= now then
      redis.call('HDEL', lockKey, fields[i])
    else
      used = used + tonumber(w)
      soonest = math.min(soonest or d, d)
      latest = math.max(latest, d)
    end
  end
end

local cap = 0
if capacity ~= '0' then
  cap = tonumber(redis.call('HGET', capacityKey, F_CAPACITY) or '0')
  if cap <= 0 then
    cap = tonumber(capacity)
    redis.call('HSET', capacityKey, F_CAPACITY, capacity)
  end
  if units > cap then
    return {-2, cap}
  end
end

-- What blocks the claim, as the ms after which it may try again; nil when nothing does.
local blocked, queue = nil, nil
local exclusive = holder and holder ~= SHARED
if exclusive and holder ~= beside then
  blocked = math.max(redis.call('PTTL', lockKey), 0)
elseif cap > 0 and used + units > cap then
  blocked = soonest and soonest - now or 0
elseif beside == '' then
  queue = redis.call('ZRANGE', queueKey, 0, QUEUE_SCAN - 1)
  for _, e in ipairs(queue) do
    if e == owner then
      break
    end
    local deadline, request = unpack(redis.call('HMGET', deadlinesKey, e, e .. REQUEST))
    deadline = tonumber(deadline or '0') or 0
    if deadline <= now then
      redis.call('ZREM', queueKey, e)
      redis.call('HDEL', deadlinesKey, e, e .. REQUEST)
    elseif fair == '1' or not string.find(request or '', ':s$') then
      blocked = deadline - now
      break
    end
  end
end

if not blocked then
  -- Whether the owner may have a queue entry, and whether others may wait there (then releases
  -- must look: F_WAITERS); known from the queue read above, else asked.
  local mine, others = true, nil
  if queue then
    mine, others = false, false
    for _, e in ipairs(queue) do
      mine, others = mine or e == owner, others or e ~= owner
    end
  end
  if mine and redis.call('ZREM', queueKey, owner) > 0 then
    redis.call('HDEL', deadlinesKey, owner, owner .. REQUEST)
  end
  if others == nil then
    others = redis.call('EXISTS', queueKey) == 1
  end
  local token = nextToken(last, time)
  local deadline = now + leaseMillis
  -- Written as digits: '..' would write a number past 14 digits with an exponent.
  local digits = type(token) == 'number' and string.format('%.0f', token) or token
  local fields = {owner, '1:' .. weight .. ':' .. digits .. ':' .. string.format('%.0f', deadline) .. ':' .. waitId .. ':',
    F_TOKEN, token, F_SHARED, 1}
  if not waiters and others then
    fields[#fields + 1], fields[#fields + 2] = F_WAITERS, 1
  end
  if not exclusive then
    fields[#fields + 1], fields[#fields + 2] = F_HOLDER, SHARED
  end
  redis.call('HSET', lockKey, unpack(fields))
  if exclusive then
    if redis.call('PTTL', lockKey) < leaseMillis then
      redis.call('PEXPIRE', lockKey, leaseMillis)
    end
  else
    redis.call('PEXPIRE', lockKey, math.max(latest, deadline) - now)
  end
  return token
end

if wait > 0 then
  local keep = math.min(wait, blocked) + tonumber(queueSlack)
  if fair == '1' then
    redis.call('ZADD', queueKey, 'NX', time[1] * 1000000 + time[2], owner)
    redis.call('HSET', deadlinesKey, owner, now + keep, owner .. REQUEST, lease .. ':' .. waitId .. ':s')
    if redis.call('PTTL', queueKey) < keep then
      redis.call('PEXPIRE', queueKey, keep)
      redis.call('PEXPIRE', deadlinesKey, keep)
    end
    redis.call('HSET', lockKey, F_WAITERS, 1, F_READERS, 1, F_FAIR, 1)
  else
    redis.call('HSET', lockKey, F_WAITERS, 1, F_READERS, 1)
  end
  if redis.call('PTTL', lockKey) == -1 then
    -- The hash was free and is new: it lives as long as the wait's entry would.
    redis.call('PEXPIRE', lockKey, keep)
  end
end
return -1 - blocked
