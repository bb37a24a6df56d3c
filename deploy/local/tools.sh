#!/usr/bin/env bash
# tools.sh - the tools `make lint` and `make test` need: staticcheck (pinned,
# so a new release cannot turn CI red on its own; cached in ~/.cache/kyc/bin,
# copied to bin/), gcc for -race, poppler-utils for the report tests,
# chromium for the browser tests, and Node.js with npm for the TypeScript SDK.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# staticcheck 2026.2.2 (module v0.8.2) builds and runs with Go 1.26.
STATICCHECK_VERSION="v0.8.2"
[[ -x $TOOLS_CACHE/staticcheck-$STATICCHECK_VERSION ]] || log "installing staticcheck $STATICCHECK_VERSION (first run only)..."
cached=$(go_install_cached staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION")
cmp -s "$cached" "$BIN/staticcheck" || { cp "$cached" "$BIN/.staticcheck.tmp" && mv "$BIN/.staticcheck.tmp" "$BIN/staticcheck"; }

need() { # need COMMAND PACKAGE... WHY: install the packages when COMMAND is missing.
	local cmd=$1 why=${*: -1} pkgs=("${@:2:$#-2}")
	command -v "$cmd" >/dev/null || { log "installing ${pkgs[*]} ($why)..."; apt_install "${pkgs[@]}"; }
}
need gcc gcc libc6-dev "go test -race needs cgo"
# pdftotext reads the reports' text layer (non-Latin names included),
# pdftoppm renders a page: a second, independent reader opens the file.
need pdftotext poppler-utils "the report tests"
need pdftoppm poppler-utils "the report tests"
need chromium chromium "the agent app's and dashboard's browser tests, with chromedp"
# The TypeScript SDK (sdk/typescript): its generator and tests; its own
# packages come from its package-lock.json, never a global install.
need node nodejs "the TypeScript SDK's generation and tests (Node.js 20+)"
need npm npm "the TypeScript SDK's pinned dependencies (npm ci)"
