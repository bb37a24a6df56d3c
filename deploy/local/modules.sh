#!/usr/bin/env bash
# modules.sh CMD [ARGS...] - run CMD inside every Go module listed in go.work,
# one module at a time, with GOWORK=off. Keeps going after a failure so one
# broken module does not hide problems in the others; exits 1 at the end if
# any module failed, naming them.
#
#   deploy/local/modules.sh go vet ./...
#   deploy/local/modules.sh go test -count=1 ./...
#
# Why per module with GOWORK=off instead of one workspace-wide command: every
# module carries `replace` directives to its siblings, so it builds on its own
# exactly as its go.mod/go.sum say (as a per-service image build would), and
# it keeps working while go.work is temporarily inconsistent (a listed module
# without go.mod yet, or workspace-wide version selection producing ambiguous
# imports that per-module pruning avoids).
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

(($#)) || die "usage: $0 CMD [ARGS...]"

# `go work edit -json` only parses go.work, so it works even when a listed
# module is missing its go.mod (jq is not needed: one field per line).
mapfile -t dirs < <(cd "$ROOT" && go work edit -json | sed -n 's/^[[:space:]]*"DiskPath": "\(.*\)".*$/\1/p')
((${#dirs[@]})) || die "no modules found in $ROOT/go.work"

failed=()
for dir in "${dirs[@]}"; do
	mod="${dir#./}"
	if [[ ! -f "$ROOT/$mod/go.mod" ]]; then
		log "== $mod: listed in go.work but has no go.mod; skipped"
		continue
	fi
	log "== $mod: $*"
	if ! (cd "$ROOT/$mod" && GOWORK=off "$@"); then
		failed+=("$mod")
	fi
done

if ((${#failed[@]})); then
	log "FAILED in: ${failed[*]}"
	exit 1
fi
