-- Releases one hold of an owner, declines a hand-over it no longer wants, or frees the lock
-- whoever holds it; a lock that becomes free goes to the first live waiter in the queue.
--
-- KEYS[1] lockKey: the lock hash (as acquire.lua)
-- KEYS[2] queueKey: the wait queue (as acquire.lua)
-- KEYS[3] deadlinesKey: the queue deadlines (as acquire.lua)
-- ARGV[1] owner ('' for force)
-- ARGV[2] mode: 'release' | 'abandon' (the owner stopped waiting) | 'force'
-- ARGV[3] claimTimeout: how long (ms) a waiter has to claim a hand-over
-- ARGV[4] fenceRetention: how long (ms) a free lock's hash keeps its last token
-- ARGV[5] channel: the lock's wake-up channel
-- ARGV[6] publishCommand: 'PUBLISH' or 'SPUBLISH'
-- ARGV[7] localPrefix: the releasing client's owner prefix ('<client id>:'), or '' when the
--         caller will not wake a waiter of its own client itself (abandon, force): every
--         hand-over is then published
-- ARGV[8] localHandOffs: how many hand-overs in a row may go to that client ahead of older
--         waiters of others
-- ARGV[9] nonce: a nonce of this release call, the same when the call is retried ('' for none)
-- ARGV[10] waitId: abandon: the id of the wait that ended ('0' for none)
-- (The names after KEYS[n] and ARGV[n] are the locals below and the names in ReleaseScript; a
-- unit test holds them together.)
-- Returns -1 when the owner held nothing (force: the lock was free), 0 when a reentrant hold
-- remains, 1 when the lock is now free, the grantee's owner id when it was handed to a waiter
-- that must claim it, {grantee, token, wait id} when it was granted to a waiter outright (the
-- token as acquire.lua answers it: an integer below 2^53, else a string of its digits).
--
-- Retries: a call whose reply was lost is sent again. Lowering a count is not idempotent, so a
-- call that lowers one records its nonce in F_RETRY_NONCE, and a retry that finds it there
-- lowers nothing: otherwise the retry would release the owner's outer hold too while the owner
-- still uses it. A call that granted the lock outright records its nonce in F_GRANT_NONCE (until
-- the grantee releases), and a retry that finds it answers the same grant, so that the grantee
-- still hears of it.
--
-- Hand-over order: the first live waiter in arrival order; but when that one is of another
-- client, the first live waiter of the releasing client (among the next LOCAL_SCAN) goes ahead
-- of it, for at most localHandOffs hand-overs in a row (F_STREAK counts them), since its own
-- process wakes it without a pub/sub hop. Only a waiter of another client is told by a published
-- message. One call drops at most STALE_SCAN stale entries.
--
-- Hand-over kinds: a waiter of the releasing client (alive: its process is releasing) gets the
-- lock outright, held once with the lease of its latest request and F_GRANT_WAIT set to that request's
-- wait id; the releasing process passes the token to it, so the waiter needs no call of its own.
-- Any other waiter gets it to claim (count "0", the claim timeout as TTL), so that a waiter that
-- is gone costs only the claim timeout. An attempt of the granted wait that meets the grant takes
-- it as it is; the wait's abandon gives it back (a grant the waiter never learned of), while an
-- abandon of another wait leaves the owner's hold alone.
--
local lockKey, queueKey, deadlinesKey = KEYS[1], KEYS[2], KEYS[3]
local owner, mode, claimTimeout, fenceRetention, channel, publishCommand, localPrefix, localHandOffs, nonce, waitId =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]

-- Lock hash fields: those of acquire.lua, and the nonce of the last count-lowering release
-- (F_RETRY_NONCE), the hand-overs in a row to the releasing client (F_STREAK) and the nonce of
-- the release that granted the lock outright (F_GRANT_NONCE).
local F_HOLDER, F_TOKEN, F_WAITERS, F_GRANT_WAIT = '~o', '~t', '~w', '~g'
local F_RETRY_NONCE, F_STREAK, F_GRANT_NONCE = '~r', '~n', '~x'
-- Suffix of an owner's field in the queue deadlines that holds its latest request.
local REQUEST = '\0g'
-- How far past the oldest waiter a waiter of the releasing client is looked for.
local LOCAL_SCAN = 63
-- How many stale queue entries one call drops before it gives up looking for a live one.
local STALE_SCAN = 1000

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

local holder, count, waiters, retryNonce, grantWait, grantNonce, token =
  unpack(redis.call('HMGET', lockKey, F_HOLDER, owner, F_WAITERS, F_RETRY_NONCE, F_GRANT_WAIT, F_GRANT_NONCE, F_TOKEN))
if mode == 'release' and nonce ~= '' and grantNonce == nonce and holder and grantWait then
  -- A retry of a release that ran and granted the lock outright: answer the grant again, so that
  -- the releasing client still passes it on to its waiter.
  return {holder, token, tonumber(grantWait)}
end
if mode == 'force' then
  if not holder then
    return -1
  end
  owner = holder
else
  if mode == 'abandon' then
    redis.call('ZREM', queueKey, owner)
    redis.call('HDEL', deadlinesKey, owner, owner .. REQUEST)
  end
  if holder ~= owner or not count or (mode == 'abandon' and count ~= '0' and (waitId == '0' or grantWait ~= waitId)) then
    return -1
  end
  if mode == 'release' and nonce ~= '' and retryNonce == nonce then
    return 0
  end
  if count ~= '1' and count ~= '0' then
    redis.call('HINCRBY', lockKey, owner, -1)
    if mode == 'release' and nonce ~= '' then
      redis.call('HSET', lockKey, F_RETRY_NONCE, nonce)
    end
    return 0
  end
end
if not waiters then
  -- Nobody waits, the common case: the lock is free, and its hash keeps the last token.
  redis.call('HDEL', lockKey, F_HOLDER, owner, F_RETRY_NONCE, F_STREAK, F_GRANT_WAIT, F_GRANT_NONCE)
  redis.call('PEXPIRE', lockKey, fenceRetention)
  return 1
end
local last, streak = unpack(redis.call('HMGET', lockKey, F_TOKEN, F_STREAK))
redis.call('HDEL', lockKey, F_HOLDER, owner, F_RETRY_NONCE, F_STREAK, F_GRANT_WAIT, F_GRANT_NONCE)
if redis.call('EXISTS', queueKey) == 0 then
  redis.call('HDEL', lockKey, F_WAITERS)
  redis.call('PEXPIRE', lockKey, fenceRetention)
  return 1
end
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
streak = tonumber(streak or '0')

-- The waiter's lease and wait id ("<lease>:<wait id>") when its entry is live, else nil; false
-- for a live entry written without them (by an earlier version: it claims its hand-over).
local function live(head)
  local deadline, request = unpack(redis.call('HMGET', deadlinesKey, head, head .. REQUEST))
  deadline = tonumber(deadline or '0')
  if deadline and deadline > now then
    return request or false
  end
  return nil
end

local function grant(head, request, nextStreak)
  local granted = nextToken(last, time)
  redis.call('ZREM', queueKey, head)
  redis.call('HDEL', deadlinesKey, head, head .. REQUEST)
  local local_ = localPrefix ~= '' and string.sub(head, 1, #localPrefix) == localPrefix
  if local_ and request then
    local lease, wait = string.match(request, '^(%d+):(%d+)$')
    if wait and wait ~= '0' then
      redis.call('HSET', lockKey, F_HOLDER, head, head, 1, F_TOKEN, granted, F_STREAK, nextStreak,
        F_GRANT_WAIT, wait, F_GRANT_NONCE, nonce)
      redis.call('PEXPIRE', lockKey, lease)
      return {head, granted, tonumber(wait)}
    end
  end
  redis.call('HSET', lockKey, F_HOLDER, head, head, 0, F_TOKEN, granted, F_STREAK, nextStreak)
  redis.call('PEXPIRE', lockKey, claimTimeout)
  if not local_ then
    redis.call(publishCommand, channel, head)
  end
  return head
end

local head = redis.call('ZRANGE', queueKey, 0, 0)[1]
if head and localPrefix ~= '' and string.sub(head, 1, #localPrefix) ~= localPrefix and streak < tonumber(localHandOffs) then
  -- The oldest waiter is elsewhere: a live waiter of the releasing client may go first, boundedly.
  local entries = redis.call('ZRANGE', queueKey, 1, LOCAL_SCAN)
  for i = 1, #entries do
    local e = entries[i]
    if string.sub(e, 1, #localPrefix) == localPrefix then
      local request = live(e)
      if request ~= nil then
        return grant(e, request, streak + 1)
      end
    end
  end
end
for _ = 1, STALE_SCAN do
  if not head then
    break
  end
  local request = live(head)
  if request ~= nil then
    return grant(head, request, 0)
  end
  redis.call('ZREM', queueKey, head)
  redis.call('HDEL', deadlinesKey, head, head .. REQUEST)
  head = redis.call('ZRANGE', queueKey, 0, 0)[1]
end
redis.call('HDEL', lockKey, F_WAITERS)
redis.call('PEXPIRE', lockKey, fenceRetention)
return 1
