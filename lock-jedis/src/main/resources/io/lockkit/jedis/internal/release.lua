-- Releases one hold of an owner, declines a hand-over it no longer wants, or frees the lock
-- whoever holds it; a lock that becomes free goes to the first live waiter in the queue.
--
-- KEYS[1] lock hash, KEYS[2] wait queue, KEYS[3] queue deadlines (as acquire.lua)
-- ARGV[1] owner ('' for force)
-- ARGV[2] mode: 'release' | 'abandon' (the owner stopped waiting) | 'force'
-- ARGV[3] claim timeout (ms): how long a waiter has to claim a hand-over
-- ARGV[4] fence retention (ms): how long a free lock's hash keeps its last token
-- ARGV[5] wake-up channel
-- ARGV[6] publish command: 'PUBLISH' or 'SPUBLISH'
-- ARGV[7] the releasing client's owner prefix ('<client id>:'), or '' when the caller will not wake
--         a waiter of its own client itself (abandon, force): every hand-over is then published
-- ARGV[8] how many hand-overs in a row may go to that client ahead of older waiters of others
-- ARGV[9] a nonce of this release call, the same when the call is retried ('' for none)
-- ARGV[10] abandon: the id of the wait that ended ('0' for none)
-- Returns -1 when the owner held nothing (force: the lock was free), 0 when a reentrant hold
-- remains, 1 when the lock is now free, the grantee's owner id when it was handed to a waiter
-- that must claim it, {grantee, token, wait id} when it was granted to a waiter outright.
--
-- Retries: a call whose reply was lost is sent again. Lowering a count is not idempotent, so a
-- call that lowers one records its nonce in "~r", and a retry that finds it there lowers nothing:
-- otherwise the retry would release the owner's outer hold too while the owner still uses it.
-- A call that granted the lock outright records its nonce in "~x" (until the grantee releases),
-- and a retry that finds it answers the same grant, so that the grantee still hears of it.
--
-- Hand-over order: the first live waiter in arrival order; but when that one is of another
-- client, the first live waiter of the releasing client goes ahead of it, for at most ARGV[8]
-- hand-overs in a row ("~n" counts them), since its own process wakes it without a pub/sub hop. Only a waiter of another client is told by
-- a published message.
--
-- Hand-over kinds: a waiter of the releasing client (alive: its process is releasing) gets the
-- lock outright, held once with the lease of its latest request and "~g" set to that request's
-- wait id; the releasing process passes the token to it, so the waiter needs no call of its own.
-- Any other waiter gets it to claim (count "0", the claim timeout as TTL), so that a waiter that
-- is gone costs only the claim timeout. An attempt of the granted wait that meets the grant takes
-- it as it is; the wait's abandon gives it back (a grant the waiter never learned of), while an
-- abandon of another wait leaves the owner's hold alone.
--
-- Cost, nobody waiting: HMGET, HDEL, PEXPIRE.
local owner = ARGV[1]
local mode = ARGV[2]
local state = redis.call('HMGET', KEYS[1], '~o', owner, '~w', '~r', '~g', '~x', '~t')
local holder = state[1]
if mode == 'release' and ARGV[9] ~= '' and state[6] == ARGV[9] and holder and state[5] then
  -- A retry of a release that ran and granted the lock outright: answer the grant again, so that
  -- the releasing client still passes it on to its waiter.
  return {holder, tonumber(state[7]), tonumber(state[5])}
end
if mode == 'force' then
  if not holder then
    return -1
  end
  owner = holder
else
  if mode == 'abandon' then
    redis.call('ZREM', KEYS[2], owner)
    redis.call('HDEL', KEYS[3], owner, owner .. '\0g')
  end
  local count = state[2]
  if holder ~= owner or not count or (mode == 'abandon' and count ~= '0' and (ARGV[10] == '0' or state[5] ~= ARGV[10])) then
    return -1
  end
  local nonce = ARGV[9]
  if mode == 'release' and nonce ~= '' and state[4] == nonce then
    return 0
  end
  if count ~= '1' and count ~= '0' then
    redis.call('HINCRBY', KEYS[1], owner, -1)
    if mode == 'release' and nonce ~= '' then
      redis.call('HSET', KEYS[1], '~r', nonce)
    end
    return 0
  end
end
if not state[3] then
  -- Nobody waits, the common case: the lock is free, and its hash keeps the last token.
  redis.call('HDEL', KEYS[1], '~o', owner, '~r', '~n', '~g', '~x')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 1
end
local more = redis.call('HMGET', KEYS[1], '~t', '~n')
redis.call('HDEL', KEYS[1], '~o', owner, '~r', '~n', '~g', '~x')
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('HDEL', KEYS[1], '~w')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 1
end
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local last = tonumber(more[1] or '0')
local prefix = ARGV[7]
local streak = tonumber(more[2] or '0')

-- The waiter's lease and wait id ("<lease>:<wait id>") when its entry is live, else nil; false
-- for a live entry written without them (by an earlier version: it claims its hand-over).
local function live(head)
  local entry = redis.call('HMGET', KEYS[3], head, head .. '\0g')
  local deadline = tonumber(entry[1] or '0')
  if deadline and deadline > now then
    return entry[2] or false
  end
  return nil
end

local function grant(head, entry, nextStreak)
  local token = math.max(last + 1, time[1] * 1000000 + time[2])
  redis.call('ZREM', KEYS[2], head)
  redis.call('HDEL', KEYS[3], head, head .. '\0g')
  local local_ = prefix ~= '' and string.sub(head, 1, #prefix) == prefix
  if local_ and entry then
    local lease, wait = string.match(entry, '^(%d+):(%d+)$')
    if wait and wait ~= '0' then
      redis.call('HSET', KEYS[1], '~o', head, head, 1, '~t', token, '~n', nextStreak, '~g', wait, '~x', ARGV[9])
      redis.call('PEXPIRE', KEYS[1], lease)
      return {head, token, tonumber(wait)}
    end
  end
  redis.call('HSET', KEYS[1], '~o', head, head, 0, '~t', token, '~n', nextStreak)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  if not local_ then
    redis.call(ARGV[6], ARGV[5], head)
  end
  return head
end

local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if head and prefix ~= '' and string.sub(head, 1, #prefix) ~= prefix and streak < tonumber(ARGV[8]) then
  -- The oldest waiter is elsewhere: a live waiter of the releasing client may go first, boundedly.
  local entries = redis.call('ZRANGE', KEYS[2], 1, 63)
  for i = 1, #entries do
    local e = entries[i]
    if string.sub(e, 1, #prefix) == prefix then
      local entry = live(e)
      if entry ~= nil then
        return grant(e, entry, streak + 1)
      end
    end
  end
end
for _ = 1, 1000 do
  if not head then
    break
  end
  local entry = live(head)
  if entry ~= nil then
    return grant(head, entry, 0)
  end
  redis.call('ZREM', KEYS[2], head)
  redis.call('HDEL', KEYS[3], head, head .. '\0g')
  head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
end
redis.call('HDEL', KEYS[1], '~w')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
