#!/usr/bin/env bash
# modules.sh CMD [ARGS...] - run CMD in every Go module listed in go.work, one
# at a time with GOWORK=off, going on after a failure and failing at the end,
# naming the modules that failed:
#
#   deploy/local/modules.sh go vet ./...
#
# Per module rather than workspace-wide: every module has replace directives
# to its siblings, so it builds on its own exactly as its go.mod says (as an
# image build does), and it keeps working while go.work is mid-edit.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

(($#)) || die "usage: $0 CMD [ARGS...]"
# `go work edit -json` only parses go.work (one field a line: no jq needed).
mapfile -t dirs < <(cd "$ROOT" && go work edit -json | sed -n 's/^[[:space:]]*"DiskPath": "\(.*\)".*$/\1/p')
((${#dirs[@]})) || die "no modules found in $ROOT/go.work"
failed=()
for dir in "${dirs[@]}"; do
	mod="${dir#./}"
	if [[ ! -f $ROOT/$mod/go.mod ]]; then
		log "== $mod: listed in go.work but has no go.mod; skipped"
		continue
	fi
	log "== $mod: $*"
	(cd "$ROOT/$mod" && GOWORK=off "$@") || failed+=("$mod")
done
((${#failed[@]} == 0)) || die "FAILED in: ${failed[*]}"
