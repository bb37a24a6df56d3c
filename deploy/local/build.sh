#!/usr/bin/env bash
# build.sh - build every service binary, kycctl and devkafka into bin/.
# Used by `make build` and run.sh.
#
# Each binary is built from inside its own module with GOWORK=off (see
# modules.sh for why); the modules' replace directives point at the sibling
# source, so the result is the same as a workspace build. Module by module
# costs nothing extra: the build cache is shared.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# module-dir:packages (space-separated) - one go invocation per module.
TARGETS=(
	gateway:./cmd/gateway
	"services/auth-billing:./cmd/auth-billing ./cmd/kycctl"
	services/customer:./cmd/customer
	services/document:./cmd/document
	services/verification:./cmd/verification
	services/reporting:./cmd/reporting
	services/webhook:./cmd/webhook
	deploy:./devkafka
)

for t in "${TARGETS[@]}"; do
	mod=${t%%:*}
	read -r -a pkgs <<<"${t#*:}"
	(cd "$ROOT/$mod" && GOWORK=off go build -o "$BIN/" "${pkgs[@]}")
done
