#!/usr/bin/env bash
# tools.sh - install the developer tools `make lint` and `make test` need.
#
# Tools are pinned (a new linter release must not turn CI red on its own) and
# built with `go install` into $HOME/.cache/kyc/bin/<tool>-<version>. The cache
# lives outside the clone because CI clones afresh but keeps $HOME, so the
# build happens once per machine; bin/ just gets a copy.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# staticcheck 2026.2.2 (module v0.8.2): newest release; builds and runs with
# Go 1.26 (checked with `go list -m -versions honnef.co/go/tools`).
STATICCHECK_VERSION="v0.8.2"

# install_tool NAME PACKAGE VERSION: ensure bin/NAME is the pinned build.
install_tool() {
	local name=$1 cached
	[[ -x "$TOOLS_CACHE/$name-$3" ]] || log "installing $name $3 (first run only)..."
	cached=$(go_install_cached "$@")
	# cmp keeps this cheap and makes a version bump take effect at once.
	if ! cmp -s "$cached" "$BIN/$name"; then
		cp "$cached" "$BIN/.$name.tmp" && mv "$BIN/.$name.tmp" "$BIN/$name"
	fi
}

install_tool staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION"

# `go test -race` needs cgo, hence a C compiler.
if ! command -v gcc >/dev/null; then
	log "installing gcc (go test -race needs cgo)..."
	apt_install gcc libc6-dev
fi

# The reporting tests read the PDFs they render with poppler: pdftotext
# (the text layer, non-Latin names included) and pdftoppm (a page as PNG,
# proof that a second, independent reader opens the file).
if ! command -v pdftotext >/dev/null || ! command -v pdftoppm >/dev/null; then
	log "installing poppler-utils (pdftotext, pdftoppm for the report tests)..."
	apt_install poppler-utils
fi

# The agent app's browser tests (e2e/agentapp_test.go) drive Debian's
# chromium with chromedp.
if [[ ! -x /usr/bin/chromium ]]; then
	log "installing chromium (the agent app's browser tests)..."
	apt_install chromium
fi
