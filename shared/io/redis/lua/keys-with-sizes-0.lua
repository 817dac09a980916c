#!lua flags=no-writes,allow-cross-slot-keys
--[[
  Stage 3's listing of a slot move: up to ARGV[1] keys of each slot in ARGV[2..], each with its
  MEMORY USAGE estimate (default sampling), in one call. As commands, that was one MEMORY USAGE
  per key: a fraction of a microsecond in Redis, ten in the operator's client.

  A key gone since the listing, or one this node would redirect (its slot migrates and the key
  is gone), has no size: redis.pcall returns the error instead of failing the script, and the
  size is -1. The keys of a move hash to many slots, hence allow-cross-slot-keys.

  Input: ARGV[1] = keys per slot; ARGV[2..] = slots. KEYS is empty.
  Output: a flat array; per slot that has keys: slot, n, key 1..n, size 1..n.
]]
local count = tonumber(ARGV[1])
local out = {}
for i = 2, #ARGV do
  local slot = tonumber(ARGV[i])
  local keys = redis.call('CLUSTER', 'GETKEYSINSLOT', slot, count)
  if #keys > 0 then
    out[#out + 1] = slot
    out[#out + 1] = #keys
    for _, key in ipairs(keys) do out[#out + 1] = key end
    for _, key in ipairs(keys) do
      local size = redis.pcall('MEMORY', 'USAGE', key)
      out[#out + 1] = type(size) == 'number' and size or -1
    end
  end
end
return out
