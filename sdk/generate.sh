#!/usr/bin/env bash
# generate.sh [DIR] - regenerate the SDKs' generated code from
# api/openapi.yaml: sdk/go/kycapi/kycapi.gen.go (oapi-codegen) and
# sdk/typescript/src/schema.ts (openapi-typescript). Written into DIR
# (default: the repository; check.sh passes a scratch folder) under the
# same relative paths.
#
# Only the lenders' public API goes in: sdk/gen cuts the document down to
# the /api/v1 paths (less the document itself) and what they reference, so
# the dashboard, agent and operations APIs never churn the SDKs. Run this
# after any change to an /api/v1 operation or a schema it uses, and commit
# the result: make test (sdk/check.sh) fails while it differs.
set -euo pipefail
# shellcheck source=../deploy/local/lib.sh
source "$(dirname "$0")/../deploy/local/lib.sh"

# oapi-codegen is pinned (a new release may generate other code); built
# once into the tools cache, like staticcheck.
OAPI_CODEGEN_VERSION=v2.8.2

out=$(realpath "${1:-$ROOT}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

publicspec() { (cd "$ROOT/sdk/gen" && GOWORK=off GOFLAGS='' go run . -skip /api/v1/openapi.yaml "$@"); }
publicspec -drop-webhooks "$ROOT/api/openapi.yaml" "$tmp/go.json"
publicspec "$ROOT/api/openapi.yaml" "$tmp/typescript.json"

oapi_codegen=$(go_install_cached oapi-codegen github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen "$OAPI_CODEGEN_VERSION")
mkdir -p "$out/sdk/go/kycapi"
(cd "$ROOT/sdk/go" && "$oapi_codegen" -config oapi-codegen.yaml -o "$out/sdk/go/kycapi/kycapi.gen.go" "$tmp/go.json")

# openapi-typescript is a devDependency of the TypeScript SDK, pinned in
# its package-lock.json.
"$ROOT/sdk/typescript/npm-ci.sh"
mkdir -p "$out/sdk/typescript/src"
# --default-non-nullable=false: a property with a default (an address's
# country) stays optional in what the caller sends.
(cd "$ROOT/sdk/typescript" && node_modules/.bin/openapi-typescript "$tmp/typescript.json" --default-non-nullable=false --output "$out/sdk/typescript/src/schema.ts" >/dev/null)
