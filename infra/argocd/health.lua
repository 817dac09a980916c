-- Argo CD health of a RedisCluster (cache.redis.io), from the status knredis writes:
-- Suspended while paused, Progressing until the operator has seen the latest spec and while an
-- operation runs, Degraded when the Degraded condition holds, Healthy when Ready.
local hs = {}
local function condition(status, kind)
  if status == nil or status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == kind then
      return c
    end
  end
  return nil
end

local status = obj.status
local generation = obj.metadata and obj.metadata.generation or 0
if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "Deleting"
  return hs
end
if obj.spec ~= nil and obj.spec.paused == true then
  hs.status = "Suspended"
  hs.message = "Reconciliation is paused (spec.paused)"
  return hs
end
if status == nil or status.observedGeneration == nil or status.observedGeneration < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to observe generation " .. tostring(generation)
  return hs
end
local degraded = condition(status, "Degraded")
if degraded ~= nil and degraded.status == "True" then
  hs.status = "Degraded"
  hs.message = degraded.message
  return hs
end
local ready = condition(status, "Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message
  return hs
end
local progressing = condition(status, "Progressing")
hs.status = "Progressing"
if progressing ~= nil and progressing.status == "True" then
  hs.message = progressing.message
elseif ready ~= nil then
  hs.message = ready.message
else
  hs.message = "Waiting for the cluster to form"
end
return hs
