-- Failed RPCs as the spec's failure envelope with the spec's status (410 included), which the
-- transcoder alone cannot give: it maps grpc-status to a fixed HTTP status and prints a
-- google.rpc.Status. The api pods render every error once, as the in-process gateway does
-- (src/platform/errors/http-status.ts), and send the result as gRPC trailers: x-http-status and
-- x-error-envelope (src/grpc/rest-error-metadata.ts). This filter sits before the transcoder,
-- so it sees the transcoded response and its trailers, and puts the two in place.
-- Envoy's own replies are reshaped by the bootstrap's local_reply_config instead.

-- Trailers that only carry the rendering, or gRPC framing, never reach the client; every other
-- trailer of a failed call (Retry-After, X-RateLimit-*, ...) becomes a response header, as the
-- in-process gateway sends the error's metadata as headers.
local INTERNAL = {
  ["grpc-status"] = true,
  ["grpc-message"] = true,
  ["grpc-status-details-bin"] = true,
  ["x-error-code"] = true,
  ["x-http-status"] = true,
  ["x-error-envelope"] = true,
  ["x-rate-limit-body"] = true,
}

function envoy_on_response(handle)
  local headers = handle:headers()
  headers:remove("grpc-status")
  headers:remove("grpc-message")
  if headers:get(":status") == "200" then
    return
  end
  -- convert_grpc_status guarantees a body on failed calls, so there is one to replace.
  local body = handle:body()
  local trailers = handle:trailers()
  if body == nil or trailers == nil or trailers:get("x-error-envelope") == nil then
    return
  end
  local envelope = trailers:get("x-error-envelope")
  headers:replace(":status", trailers:get("x-http-status"))
  headers:replace("content-type", "application/json")
  headers:replace("content-length", tostring(#envelope))
  body:setBytes(envelope)
  local exposed = {}
  for key, value in pairs(trailers) do
    if not INTERNAL[key] then
      exposed[key] = value
    end
  end
  for key, value in pairs(exposed) do
    headers:replace(key, value)
  end
  for key, _ in pairs(INTERNAL) do
    trailers:remove(key)
  end
end
