--[[
  Schedules the follow-up run of a resource key after a wait (requeue-after or a retry
  backoff), unless a change already arrived during the current run: that change's
  follow-up must run promptly, so it is kept and the wait dropped (a newer event always
  wins over a wait). Called by the worker while the key's job is still active; BullMQ's
  moveToFinished turns the stored "next job" into a real delayed job atomically with the
  completion, so no crash can lose it.

  Input:
    KEYS[1] dedup-next hash of the key ('<prefix>:<queue>:dn:<dedupId>')
    KEYS[2] hash of the active job ('<prefix>:<queue>:<jobId>'), whose opts are reused

    ARGV[1] delay in ms
    ARGV[2] job name
    ARGV[3] job data (JSON)

  Output:
    1  the delayed follow-up was stored
    0  a change is already pending: the follow-up runs without waiting
   -1  the job hash is gone (lost its lock and was removed): nothing stored
]]
local rcall = redis.call

if rcall("EXISTS", KEYS[1]) == 1 then
  return 0
end

local rawOpts = rcall("HGET", KEYS[2], "opts")
if not rawOpts then
  return -1
end

local opts = cjson.decode(rawOpts)
opts["delay"] = tonumber(ARGV[1])
-- Same deduplication as an event: a later event replaces this delayed job at once.
if opts["de"] then
  opts["de"]["keepLastIfActive"] = true
  opts["de"]["replace"] = true
end

rcall("HSET", KEYS[1], "name", ARGV[2], "data", ARGV[3], "opts", cjson.encode(opts))
return 1
