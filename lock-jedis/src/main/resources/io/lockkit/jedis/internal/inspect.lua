-- Reads a lock's owners and lease, for operators.
--
-- KEYS[1] lock hash (as acquire.lua)
-- Returns {} when the lock is free, else {ms left on the lease, field, value, field, value…}
-- with the owners' hold counts and the "~t" token field.
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then
  return {}
end
local result = {redis.call('PTTL', KEYS[1])}
for i = 1, #fields do
  result[i + 1] = fields[i]
end
return result
