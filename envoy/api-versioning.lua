-- API versioning at the edge, as src/gateway/versioning does in process (spec, "Versioning").
-- Request: the deprecated unversioned /api/... path is served by the /api/v1/... RPC, so the
-- transcoder (next in the chain) only knows the versioned templates. Response, local replies
-- of later filters included: X-API-Version and X-API-Stability on every API response, and on
-- the unversioned paths Deprecation, Sunset and a Link to the successor.
-- The prefixes, version names and sunset date come from the route's metadata (the chart).
-- The path the client asked for (without the query) is kept in the dynamic metadata as `path`,
-- so that Envoy's own replies name it, as the in-process gateway does, not the rewritten one.

local FILTER = "messaging.api_versioning"

local function setting(handle, key)
  return handle:metadata():get(key)
end

-- RFC 7231 IMF-fixdate of a YYYY-MM-DD day, computed rather than read from the clock or the
-- local time zone (Sakamoto's weekday method).
local DAYS = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" }
local MONTHS = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" }
local OFFSETS = { 0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4 }

local function http_date(day)
  local y, m, d = day:match("^(%d%d%d%d)-(%d%d)-(%d%d)$")
  y, m, d = tonumber(y), tonumber(m), tonumber(d)
  local wy = m < 3 and y - 1 or y
  local weekday = (wy + math.floor(wy / 4) - math.floor(wy / 100) + math.floor(wy / 400) + OFFSETS[m] + d) % 7
  return string.format("%s, %02d %s %04d 00:00:00 GMT", DAYS[weekday + 1], d, MONTHS[m], y)
end

-- The successor of an unversioned path, or nil when the path is not an unversioned API path.
local function successor(handle, path)
  local legacy = setting(handle, "legacy_prefix") .. "/"
  local current = setting(handle, "current_prefix")
  if path:sub(1, #legacy) ~= legacy or path:sub(1, #current + 1) == current .. "/" then
    return nil
  end
  return current .. path:sub(#legacy)
end

function envoy_on_request(handle)
  local headers = handle:headers()
  local target = headers:get(":path")
  local path, query = target:match("^([^?]*)(.*)$")
  local next_path = successor(handle, path)
  local metadata = handle:streamInfo():dynamicMetadata()
  metadata:set(FILTER, "path", path)
  if next_path ~= nil then
    headers:replace(":path", next_path .. query)
    metadata:set(FILTER, "successor", next_path)
  end
end

function envoy_on_response(handle)
  local headers = handle:headers()
  local request = handle:streamInfo():dynamicMetadata():get(FILTER)
  local next_path = request and request["successor"]
  headers:replace("x-api-version", setting(handle, "current_version"))
  if next_path == nil then
    headers:replace("x-api-stability", setting(handle, "current_stability"))
    return
  end
  headers:replace("x-api-stability", setting(handle, "legacy_stability"))
  headers:replace("deprecation", "true")
  headers:replace("sunset", http_date(setting(handle, "sunset")))
  headers:replace("link", "<" .. next_path .. ">; rel=\"successor-version\"")
end
