#!/usr/bin/env bash
# build.sh - `make build`, and run.sh: bin/kyc (the whole platform in one
# process, from the stack registry), kycctl (operators) and devkafka (the
# local broker), each in its own module with GOWORK=off (see modules.sh).
# Production images build one binary per service (deploy/Dockerfile).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

(cd "$ROOT/stack" && GOWORK=off go build -o "$BIN/" ./cmd/kyc)
(cd "$ROOT/cmd/kycctl" && GOWORK=off go build -o "$BIN/" .)
(cd "$ROOT/deploy" && GOWORK=off go build -o "$BIN/" ./devkafka)
