#!/usr/bin/env bash
# tools.sh - install the developer tools `make lint` needs into bin/.
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
	local name=$1 pkg=$2 version=$3
	local cached="$TOOLS_CACHE/$name-$version"
	if [[ ! -x "$cached" ]]; then
		log "installing $name $version (first run only)..."
		local tmp
		tmp=$(mktemp -d)
		# Run outside the repo with GOWORK=off: `go install pkg@version`
		# must not pick up the workspace or any module's requirements.
		(cd "$tmp" && GOBIN="$tmp" GOWORK=off GOFLAGS='' go install "$pkg@$version")
		mkdir -p "$TOOLS_CACHE"
		mv "$tmp/$name" "$cached.tmp" && mv "$cached.tmp" "$cached"
		rm -rf "$tmp"
	fi
	# cmp keeps this cheap and makes a version bump take effect at once.
	if ! cmp -s "$cached" "$BIN/$name"; then
		cp "$cached" "$BIN/.$name.tmp" && mv "$BIN/.$name.tmp" "$BIN/$name"
	fi
}

install_tool staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION"
