#!/usr/bin/env bash
# Regenerates everything derived from proto/: the protobuf-es code in src/gen/ and the
# descriptor set (with source comments, for the OpenAPI document, gRPC reflection and Envoy),
# and the client SDK's protobuf-es types in client/src/gen/.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf src/gen client/src/gen
npx --no-install buf lint
npx --no-install buf generate
npx --no-install buf generate --template client/buf.gen.yaml --path proto/service
mkdir -p src/gen
npx --no-install buf build -o src/gen/descriptor-set.binpb
node scripts/embed-descriptor-set.mjs src/gen/descriptor-set.binpb src/gen/descriptor-set.ts
node scripts/index-api-files.mjs
