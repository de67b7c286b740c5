#!/usr/bin/env bash
# Regenerates what Envoy's gRPC-JSON transcoder reads, from proto/, into envoy/ (or the directory
# given as the first argument, which the tests use to compare with the committed files):
#   api-descriptor.binpb  the API's descriptor set (imports included, no source comments:
#                         Envoy does not need them and the file travels in a ConfigMap)
#   api-services.txt      the services the transcoder serves: those with google.api.http rules
# CI regenerates both and fails when the committed ones differ (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-envoy}"
npx --no-install buf build --exclude-source-info --path proto/service -o "${out}/api-descriptor.binpb"
node scripts/envoy-services.mjs "${out}/api-descriptor.binpb" > "${out}/api-services.txt"
