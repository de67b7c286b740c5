-- A stub of the stream handle Envoy's Lua HTTP filter gives a script, for running envoy/*.lua
-- under LuaJIT in the tests (run-lua-filter.ts). It follows Envoy's documented API
-- (docs/root/configuration/http/http_filters/lua_filter.rst, source/extensions/filters/http/lua)
-- as far as the filters use it; anything else a script calls fails loudly, so a filter that
-- starts using more of the API fails here until the stub learns it.
--
-- Deliberately simpler than Envoy:
--   * No coroutine: the script runs once against the complete headers, body and trailers, as it
--     does in Envoy once body() has returned (body() buffers the whole body, trailers() follows).
--     bodyChunks() is therefore not offered.
--   * respond() ends the script by raising a sentinel error (Envoy yields and never resumes).
--   * The header map has no byte-size limits and no setHttp1ReasonPhrase/getAtIndex/getNumValues.
--
-- Input: a Lua chunk returning { filter_name, phase ("request"|"response"), headers (list of
-- {key, value}), body (string or nil), trailers (list or nil), route_metadata (filter name ->
-- table), dynamic_metadata (filter name -> table) }. Output on stdout: one JSON document with
-- the same fields after the script ran, plus `responded` when it called respond().

local source_file, input_file = arg[1], arg[2]

-- Envoy builds LuaJIT with LUAJIT_ENABLE_LUA52COMPAT (bazel/foreign_cc/luajit.patch), so pairs()
-- honours __pairs, which its header and metadata wrappers implement. Debian's LuaJIT is built
-- without it: restore that behaviour here.
local raw_pairs = pairs
function pairs(value)
  local meta = getmetatable(value)
  if meta ~= nil and meta.__pairs ~= nil then
    return meta.__pairs(value)
  end
  return raw_pairs(value)
end

-- An object whose unknown methods fail with a clear message instead of returning nil.
local function strict(kind, methods, extra_meta)
  local meta = extra_meta or {}
  meta.__index = function(_, name)
    local method = methods[name]
    if method == nil then
      error("the stub of Envoy's " .. kind .. " has no '" .. tostring(name) .. "': extend test/deploy/support/envoy-lua/envoy-stream.lua faithfully", 2)
    end
    return method
  end
  return setmetatable({}, meta)
end

-- Header map: an ordered multimap with lower-cased keys, like Http::HeaderMap.
local function header_map(entries)
  local iterating = false
  local function check_modifiable()
    if iterating then
      error("header map cannot be modified while iterating", 3)
    end
  end
  local methods = {}
  -- Several values of one key come back joined with ",", as Envoy's get() documents.
  function methods.get(_, key)
    key = string.lower(key)
    local values = {}
    for _, entry in ipairs(entries) do
      if entry[1] == key then
        values[#values + 1] = entry[2]
      end
    end
    if #values == 0 then
      return nil
    end
    return table.concat(values, ",")
  end
  function methods.add(_, key, value)
    check_modifiable()
    entries[#entries + 1] = { string.lower(key), tostring(value) }
  end
  function methods.remove(_, key)
    check_modifiable()
    key = string.lower(key)
    for index = #entries, 1, -1 do
      if entries[index][1] == key then
        table.remove(entries, index)
      end
    end
  end
  -- setCopy: every value of the key goes, one takes their place (or it is added).
  function methods.replace(self, key, value)
    methods.remove(self, key)
    methods.add(self, key, value)
  end
  local meta = {
    __pairs = function()
      local snapshot = {}
      for index, entry in ipairs(entries) do
        snapshot[index] = entry
      end
      local index = 0
      iterating = true
      return function()
        index = index + 1
        local entry = snapshot[index]
        if entry == nil then
          iterating = false
          return nil
        end
        return entry[1], entry[2]
      end
    end,
  }
  return strict("header map", methods, meta)
end

local function buffer(state)
  local methods = {}
  function methods.length()
    return #state.body
  end
  function methods.getBytes(_, index, length)
    return string.sub(state.body, index + 1, index + length)
  end
  function methods.setBytes(_, bytes)
    state.body = bytes
  end
  return strict("buffer", methods)
end

-- Route metadata is a Struct: values are strings, numbers, booleans or tables.
local function metadata(values)
  local methods = {}
  function methods.get(_, key)
    return values[key]
  end
  return strict("metadata", methods, {
    __pairs = function()
      return next, values, nil
    end,
  })
end

local function dynamic_metadata(state)
  local methods = {}
  function methods.get(_, filter_name)
    return state.dynamic_metadata[filter_name]
  end
  function methods.set(_, filter_name, key, value)
    state.dynamic_metadata[filter_name] = state.dynamic_metadata[filter_name] or {}
    state.dynamic_metadata[filter_name][key] = value
  end
  return strict("dynamic metadata", methods)
end

local RESPONDED = {}

local function stream_handle(state)
  local headers = header_map(state.headers)
  local trailers = state.trailers and header_map(state.trailers)
  local methods = {}
  function methods.headers()
    return headers
  end
  function methods.body(_, always_wrap_body)
    if state.body == nil then
      if not always_wrap_body then
        return nil
      end
      state.body = ""
    end
    return buffer(state)
  end
  function methods.trailers()
    return trailers
  end
  -- The route's metadata under the filter's config name, else under the canonical name.
  function methods.metadata()
    return metadata(state.route_metadata[state.filter_name] or state.route_metadata["envoy.filters.http.lua"] or {})
  end
  function methods.streamInfo()
    return strict("stream info", {
      dynamicMetadata = function()
        return dynamic_metadata(state)
      end,
    })
  end
  function methods.respond(_, response_headers, body)
    if state.phase ~= "request" then
      error("respond() is only valid in the request flow", 2)
    end
    local entries = {}
    for key, value in raw_pairs(response_headers) do
      entries[#entries + 1] = { string.lower(key), value }
    end
    local status = tonumber(response_headers[":status"])
    if status == nil or status < 200 or status >= 600 then
      error(":status must be between 200-599", 2)
    end
    state.responded = { headers = entries, body = body }
    error(RESPONDED, 0)
  end
  return strict("stream handle", methods)
end

-- JSON output: strings, numbers, booleans, arrays (tables with [1]) and objects.
local function json(value)
  local kind = type(value)
  if kind == "string" then
    return '"' .. value:gsub('[%c"\\]', function(char)
      return string.format("\\u%04x", string.byte(char))
    end) .. '"'
  elseif kind == "number" or kind == "boolean" then
    return tostring(value)
  elseif kind == "nil" then
    return "null"
  elseif value[1] ~= nil then
    local items = {}
    for index, item in ipairs(value) do
      items[index] = json(item)
    end
    return "[" .. table.concat(items, ",") .. "]"
  end
  local members = {}
  for key, item in raw_pairs(value) do
    members[#members + 1] = json(tostring(key)) .. ":" .. json(item)
  end
  return "{" .. table.concat(members, ",") .. "}"
end

local state = dofile(input_file)
dofile(source_file)
local hook = state.phase == "request" and envoy_on_request or envoy_on_response
if hook ~= nil then
  local ok, failure = pcall(hook, stream_handle(state))
  if not ok and failure ~= RESPONDED then
    io.stderr:write(tostring(failure), "\n")
    os.exit(1)
  end
end
io.write(json({
  headers = state.headers,
  body = state.body,
  trailers = state.trailers,
  dynamic_metadata = state.dynamic_metadata,
  responded = state.responded,
}))
