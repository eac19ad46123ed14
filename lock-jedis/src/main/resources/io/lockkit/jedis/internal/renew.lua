-- Sets the lease of holds whose owners still hold their locks: one call renews many holds.
--
-- KEYS[i] lockKey: the lock hash of the i-th hold (as acquire.lua); on a cluster all in one slot
-- ARGV[2i-1] owner: the owner of the i-th hold
-- ARGV[2i] lease: its lease (ms)
-- (The names after KEYS[..] and ARGV[..] are the locals below and the names in RenewScript; a
-- unit test holds them together.)
-- Returns a table with, per hold, 1 when renewed, 0 when the owner no longer holds the lock (or
-- has not claimed it, or its shared hold's lease ended).
--
-- A shared holder (see shared.lua) gets its own deadline set; the hash's TTL becomes the latest
-- lease left of its holders, or stays an exclusive holder's when one holds beside it. While
-- shared holders hold beside it, an exclusive holder's renewal never cuts the TTL below theirs.
-- Cost per hold: HMGET and PEXPIRE; with shared holders, TIME and HGETALL too.
local F_HOLDER, F_SHARED, SHARED = '~o', '~s', ' shared'
local RECORD = '^(%d+):(%d+):(%d+):(%d+):(%d+):(.*)$'

-- The latest deadline (server ms) of the live shared holders of a hash, else 0.
local function latestShared(key, now)
  local latest = 0
  local fields = redis.call('HGETALL', key)
  for j = 1, #fields, 2 do
    local c, _, _, d = string.match(fields[j + 1], RECORD)
    if c and string.sub(fields[j], 1, 1) ~= '~' and tonumber(d) > now then
      latest = math.max(latest, tonumber(d))
    end
  end
  return latest
end

local function clock()
  local time = redis.call('TIME')
  return time[1] * 1000 + math.floor(time[2] / 1000)
end

local result = {}
for i = 1, #KEYS do
  local lockKey, owner, lease = KEYS[i], ARGV[2 * i - 1], ARGV[2 * i]
  local count, shared, holder = unpack(redis.call('HMGET', lockKey, owner, F_SHARED, F_HOLDER))
  local c, w, t, d, g, n = string.match(count or '', RECORD)
  result[i] = 0
  if c then
    local now = clock()
    if tonumber(d) > now then
      local deadline = now + tonumber(lease)
      local record = c .. ':' .. w .. ':' .. t .. ':' .. string.format('%.0f', deadline) .. ':' .. g .. ':' .. n
      redis.call('HSET', lockKey, owner, record)
      if holder == SHARED then
        redis.call('PEXPIRE', lockKey, latestShared(lockKey, now) - now)
      elseif redis.call('PTTL', lockKey) < tonumber(lease) then
        redis.call('PEXPIRE', lockKey, lease)
      end
      result[i] = 1
    end
  elseif count and count ~= '0' then
    if shared then
      local now = clock()
      redis.call('PEXPIRE', lockKey, math.max(tonumber(lease), latestShared(lockKey, now) - now))
    else
      redis.call('PEXPIRE', lockKey, lease)
    end
    result[i] = 1
  end
end
return result
