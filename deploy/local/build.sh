#!/usr/bin/env bash
# build.sh - build the local binaries into bin/: kyc (the whole platform in
# one process, from the stack registry), kycctl (operators' tool) and
# devkafka (the local Kafka broker). Used by `make build` and run.sh.
# Production images build one binary per service instead (deploy/Dockerfile).
#
# Each is built from inside its own module with GOWORK=off (see modules.sh
# for why); the modules' replace directives point at the sibling source.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

(cd "$ROOT/stack" && GOWORK=off go build -o "$BIN/" ./cmd/kyc)
(cd "$ROOT/services/auth-billing" && GOWORK=off go build -o "$BIN/" ./cmd/kycctl)
(cd "$ROOT/deploy" && GOWORK=off go build -o "$BIN/" ./devkafka)
