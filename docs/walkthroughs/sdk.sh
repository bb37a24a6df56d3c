#!/usr/bin/env bash
# sdk.sh - the official SDKs' examples against the platform: each creates a
# sandbox customer, waits for the simulated agent's VERIFIED, lists the
# verified customers and pages through the customer's events.
#   sdk/go/examples/quickstart        (go run; Go from make run's machine)
#   sdk/typescript/examples/quickstart.ts  (Node.js 20+ and npm: the SDK's
#                                      pinned packages are installed into
#                                      sdk/typescript/node_modules first)
# Settings: lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_key KYC_SANDBOX_KEY "$KYC_SANDBOX_KEY"
export KYC_URL KYC_SANDBOX_KEY
command -v go >/dev/null || PATH="$PATH:/usr/local/go/bin"

step "the Go SDK (sdk/go/examples/quickstart)"
(cd "$ROOT/sdk/go" && GOWORK=off timeout "$((KYC_TIMEOUT + 120))" go run ./examples/quickstart) || fail "the Go SDK's example"

step "the TypeScript SDK (sdk/typescript/examples/quickstart.ts)"
command -v node >/dev/null || fail "node not found: the TypeScript SDK needs Node.js 20+ and npm"
"$ROOT/sdk/typescript/npm-ci.sh" || fail "npm ci in sdk/typescript"
(cd "$ROOT/sdk/typescript" && node_modules/.bin/tsc -p . && timeout "$((KYC_TIMEOUT + 60))" node dist/examples/quickstart.js) ||
	fail "the TypeScript SDK's example"
