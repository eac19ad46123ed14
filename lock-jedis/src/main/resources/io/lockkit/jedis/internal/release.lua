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
-- remains, 1 when the lock is now free, the grantee's owner id when it was handed to a waiter of
-- another client (to claim, or granted and published), {grantee, token, wait id} when it was
-- granted to a waiter of the releasing client outright (the token as acquire.lua answers it: an
-- integer below 2^53, else a string of its digits).
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
-- Shared holders (see shared.lua): a shared owner's release lowers its own count, or ends its
-- hold and sets the hash's TTL to the latest lease left (F_HOLDER stays SHARED while any holds);
-- it never hands over, and publishes a wake-up without a grantee when anyone waits. An exclusive
-- holder that leaves shared holders beside it (a downgrade) leaves them holding. Force frees
-- every holder. A fair waiter queued (F_FAIR) turns off the preference for the releasing
-- client's waiters; a shared waiter at the head of the queue gets no hand-over: the lock is freed
-- and a wake-up without a grantee published, as when a shared claim waits unqueued (F_READERS).
-- An abandon that takes its owner out of the queue publishes one too when shared claims wait, so
-- that the readers a queued writer held back go in at once.
--
-- Hand-over kinds: a waiter of the releasing client (alive: its process is releasing) gets the
-- lock outright, held once with the lease of its latest request and F_GRANT_WAIT set to that request's
-- wait id; the releasing process passes the token to it, so the waiter needs no call of its own.
-- A waiter of another client whose request says it hears grants (":g") gets it outright too, with
-- the lesser of that lease and the claim timeout as TTL, and one published message
-- "<grantee> <wait id> <token> <ttl ms>" tells its client, which hands the token to the wait and
-- renews early; a waiter that is gone costs only the claim timeout. Any other waiter (an entry of
-- an earlier version, or without a wait id) gets it to claim (count "0", the claim timeout as TTL,
-- the grantee's id published). An attempt of the granted wait that meets the grant takes it as it
-- is; the wait's abandon gives it back (a grant the waiter never learned of), while an abandon of
-- another wait leaves the owner's hold alone.
--
local lockKey, queueKey, deadlinesKey = KEYS[1], KEYS[2], KEYS[3]
local owner, mode, claimTimeout, fenceRetention, channel, publishCommand, localPrefix, localHandOffs, nonce, waitId =
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]

-- Lock hash fields: those of acquire.lua, and the nonce of the last count-lowering release
-- (F_RETRY_NONCE), the hand-overs in a row to the releasing client (F_STREAK) and the nonce of
-- the release that granted the lock outright (F_GRANT_NONCE).
local F_HOLDER, F_TOKEN, F_WAITERS, F_GRANT_WAIT = '~o', '~t', '~w', '~g'
local F_RETRY_NONCE, F_STREAK, F_GRANT_NONCE = '~r', '~n', '~x'
-- shared.lua's fields and the holder while only shared holders hold.
local F_SHARED, F_FAIR, F_READERS, SHARED = '~s', '~f', '~v', ' shared'
local RECORD = '^(%d+):(%d+):(%d+):(%d+):(%d+):(.*)$'
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

-- Helpers of shared holders, made only when a shared holder is involved (the exclusive lock's
-- paths make no closure more).
local clock, sharedHolders, wakeReaders, releaseShared
local holder, count, waiters, retryNonce, grantWait, grantNonce, token, shared =
  unpack(redis.call('HMGET', lockKey, F_HOLDER, owner, F_WAITERS, F_RETRY_NONCE, F_GRANT_WAIT, F_GRANT_NONCE, F_TOKEN,
    F_SHARED))
if shared or (mode == 'release' and holder ~= owner and count and string.find(count, ':')) then
  -- The server's clock in ms.
  clock = function()
    local time = redis.call('TIME')
    return time[1] * 1000 + math.floor(time[2] / 1000)
  end

  -- The live shared holders' number and latest deadline, but skip's; lapsed ones dropped, and all
  -- when drop.
  sharedHolders = function(now, drop, skip)
    local live, latest = 0, 0
    local fields = redis.call('HGETALL', lockKey)
    for i = 1, #fields, 2 do
      local c, _, _, d = string.match(fields[i + 1], RECORD)
      if c and string.sub(fields[i], 1, 1) ~= '~' and fields[i] ~= skip then
        if drop or tonumber(d) <= now then
          redis.call('HDEL', lockKey, fields[i])
        else
          live, latest = live + 1, math.max(latest, tonumber(d))
        end
      end
    end
    return live, latest
  end

  -- Tells waiters a shared claim may now be admitted: a message without a grantee.
  wakeReaders = function()
    redis.call(publishCommand, channel, '')
    redis.call('HDEL', lockKey, F_READERS)
  end

  -- Ends one hold of a shared owner whose field holds record; holder: the hash's F_HOLDER.
  releaseShared = function(record, holder, waiters)
    local now = clock()
    local c, w, t, d, g, n = string.match(record, RECORD)
    local lapsed = tonumber(d) <= now
    if not lapsed and nonce ~= '' and n == nonce then
      return 0
    end
    if not lapsed and c ~= '1' then
      redis.call('HSET', lockKey, owner, (tonumber(c) - 1) .. ':' .. w .. ':' .. t .. ':' .. d .. ':' .. g .. ':' .. nonce)
      return 0
    end
    local live, latest = sharedHolders(now, false, owner)
    if live > 0 then
      redis.call('HDEL', lockKey, owner)
      if holder == SHARED then
        redis.call('PEXPIRE', lockKey, latest - now)
      end
    elseif holder == SHARED then
      redis.call('HDEL', lockKey, owner, F_SHARED, F_HOLDER)
      redis.call('PEXPIRE', lockKey, fenceRetention)
    else
      redis.call('HDEL', lockKey, owner, F_SHARED)
    end
    if waiters then
      wakeReaders()
      if redis.call('EXISTS', queueKey) == 0 then
        redis.call('HDEL', lockKey, F_WAITERS, F_FAIR)
      end
    end
    return lapsed and -1 or 1
  end
end
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
  if shared then
    sharedHolders(0, true)
    redis.call('HDEL', lockKey, F_SHARED)
    shared = nil
  end
else
  if mode == 'abandon' then
    local left = redis.call('ZREM', queueKey, owner)
    redis.call('HDEL', deadlinesKey, owner, owner .. REQUEST)
    if left > 0 and redis.call('HGET', lockKey, F_READERS) then
      -- Shared claims this waiter held back (writer preference, a fair queue) may go in now.
      redis.call(publishCommand, channel, '')
      redis.call('HDEL', lockKey, F_READERS)
    end
  end
  if mode == 'release' and holder ~= owner and count and string.find(count, ':') then
    return releaseShared(count, holder, waiters)
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
if shared then
  -- An exclusive holder leaves: shared holders beside it (a downgrade) keep the name.
  local now = clock()
  local live, latest = sharedHolders(now, false)
  if live > 0 then
    redis.call('HDEL', lockKey, owner, F_RETRY_NONCE, F_STREAK, F_GRANT_WAIT, F_GRANT_NONCE)
    redis.call('HSET', lockKey, F_HOLDER, SHARED)
    redis.call('PEXPIRE', lockKey, latest - now)
    if waiters then
      wakeReaders()
    end
    return 1
  end
  redis.call('HDEL', lockKey, F_SHARED)
end
if not waiters then
  -- Nobody waits, the common case: the lock is free, and its hash keeps the last token.
  redis.call('HDEL', lockKey, F_HOLDER, owner, F_RETRY_NONCE, F_STREAK, F_GRANT_WAIT, F_GRANT_NONCE)
  redis.call('PEXPIRE', lockKey, fenceRetention)
  return 1
end
local last, streak, fairQueue, readers = unpack(redis.call('HMGET', lockKey, F_TOKEN, F_STREAK, F_FAIR, F_READERS))
redis.call('HDEL', lockKey, F_HOLDER, owner, F_RETRY_NONCE, F_STREAK, F_GRANT_WAIT, F_GRANT_NONCE)

-- The lock is free with nobody to hand it to: waiting shared claims hear of it.
local function freed()
  redis.call('HDEL', lockKey, F_WAITERS, F_FAIR)
  redis.call('PEXPIRE', lockKey, fenceRetention)
  if readers then
    redis.call(publishCommand, channel, '')
    redis.call('HDEL', lockKey, F_READERS)
  end
  return 1
end

if redis.call('EXISTS', queueKey) == 0 then
  return freed()
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

-- A token as the decimal digits of the number or string nextToken made.
local function digits(token)
  if type(token) == 'number' then
    return string.format('%.0f', token)
  end
  return token
end

local function grant(head, request, nextStreak)
  local granted = nextToken(last, time)
  redis.call('ZREM', queueKey, head)
  redis.call('HDEL', deadlinesKey, head, head .. REQUEST)
  local local_ = localPrefix ~= '' and string.sub(head, 1, #localPrefix) == localPrefix
  if request then
    local lease, wait, hears = string.match(request, '^(%d+):(%d+)(.*)$')
    if wait and wait ~= '0' and (local_ or hears == ':g') then
      -- Outright: to a waiter of the releasing client, which passes the token on itself, or to
      -- one elsewhere whose client hears the published grant; that one's lease is cut to the
      -- claim timeout, so that a waiter that died costs no more than an unclaimed hand-over (its
      -- client renews early).
      local ttl = local_ and lease or math.min(tonumber(lease), tonumber(claimTimeout))
      redis.call('HSET', lockKey, F_HOLDER, head, head, 1, F_TOKEN, granted, F_STREAK, nextStreak,
        F_GRANT_WAIT, wait, F_GRANT_NONCE, nonce)
      redis.call('PEXPIRE', lockKey, ttl)
      if local_ then
        return {head, granted, tonumber(wait)}
      end
      redis.call(publishCommand, channel, head .. ' ' .. wait .. ' ' .. digits(granted) .. ' ' .. ttl)
      return head
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
-- Whether a live entry's request is a shared claim's, which gets no hand-over.
local function sharedClaim(request)
  return request and string.find(request, ':s$') ~= nil
end

if head and not fairQueue and localPrefix ~= '' and string.sub(head, 1, #localPrefix) ~= localPrefix
    and streak < tonumber(localHandOffs) then
  -- The oldest waiter is elsewhere: a live waiter of the releasing client may go first, boundedly.
  local entries = redis.call('ZRANGE', queueKey, 1, LOCAL_SCAN)
  for i = 1, #entries do
    local e = entries[i]
    if string.sub(e, 1, #localPrefix) == localPrefix then
      local request = live(e)
      if request ~= nil and not sharedClaim(request) then
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
  if request ~= nil and sharedClaim(request) then
    -- A shared claim is first: no hand-over; every waiter tries again, and it goes first.
    redis.call('PEXPIRE', lockKey, fenceRetention)
    redis.call(publishCommand, channel, '')
    redis.call('HDEL', lockKey, F_READERS)
    return 1
  end
  if request ~= nil then
    return grant(head, request, 0)
  end
  redis.call('ZREM', queueKey, head)
  redis.call('HDEL', deadlinesKey, head, head .. REQUEST)
  head = redis.call('ZRANGE', queueKey, 0, 0)[1]
end
return freed()
