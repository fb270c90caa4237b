-- Argo CD health check for ballast.dev/TrainingJob.
-- Install: argocd-cm key `resource.customizations.health.ballast.dev_TrainingJob` (docs/gitops.md).
-- Maps the operator's status onto Argo CD's health states:
--   Succeeded=True -> Healthy, Failed=True -> Degraded, Suspended=True or ReconciliationPaused=True -> Suspended,
--   Ready=True -> Healthy, anything else (admitting, waiting for GPUs, starting) -> Progressing.
local hs = { status = "Progressing", message = "Waiting for the Ballast operator" }

local function condition(conditions, type)
  if conditions == nil then return nil end
  for _, c in ipairs(conditions) do
    if c.type == type then return c end
  end
  return nil
end

if obj.status == nil then
  return hs
end
local conditions = obj.status.conditions
local succeeded = condition(conditions, "Succeeded")
local failed = condition(conditions, "Failed")
local suspended = condition(conditions, "Suspended")
local paused = condition(conditions, "ReconciliationPaused")
local ready = condition(conditions, "Ready")
local admitted = condition(conditions, "Admitted")

if failed ~= nil and failed.status == "True" then
  hs.status = "Degraded"
  hs.message = failed.message
elseif succeeded ~= nil and succeeded.status == "True" then
  hs.status = "Healthy"
  hs.message = succeeded.message
elseif paused ~= nil and paused.status == "True" then
  hs.status = "Suspended"
  hs.message = paused.message
elseif suspended ~= nil and suspended.status == "True" then
  hs.status = "Suspended"
  hs.message = suspended.message
elseif ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message
elseif admitted ~= nil and admitted.status == "False" then
  hs.message = (obj.status.phase or "Pending") .. ": " .. (admitted.message or "")
elseif ready ~= nil then
  hs.message = (obj.status.phase or "Pending") .. ": " .. (ready.message or "")
end
return hs
