#!/usr/bin/env bash
# run.sh - `make run`: provision the components (deps.sh), build, then run the
# whole platform as ONE foreground process: bin/kyc starts every service of
# the registry (stack/stack.go) on its own port, database and consumers, then
# the gateway, seeds a demo organization and prints its keys and a curl.
# Ctrl-C (or SIGTERM/HUP) stops kyc, which drains every service, then what
# deps.sh started for THIS run; what was running before is left alone.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

export KYC_MODE=local
# Local webhook receivers (127.0.0.1) are allowed here only; the service's
# default, and so production's, refuses private targets.
export WEBHOOK_ALLOW_PRIVATE="${WEBHOOK_ALLOW_PRIVATE:-true}"
deps_out=$(mktemp) kyc_pid=""

cleanup() {
	set +e
	trap '' INT TERM HUP
	if [[ -n $kyc_pid ]] && kill -0 "$kyc_pid" 2>/dev/null; then
		log "stopping the platform..."
		stop_pid kyc "$kyc_pid"
		wait "$kyc_pid" 2>/dev/null
	fi
	# Only what is still ours (make stop may have stopped it meanwhile).
	for name in $(tac "$deps_out"); do started "$name" && stop_component "$name"; done
	rm -f "$deps_out"
	log "stopped."
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

KYC_DEPS_STARTED_OUT="$deps_out" "$ROOT/deploy/local/deps.sh"
# The reports walkthrough (docs/walkthroughs/reports.sh) reads the PDF's text.
command -v pdftotext >/dev/null || { log "installing poppler-utils (pdftotext)..."; apt_install poppler-utils; }
log "building..."
"$ROOT/deploy/local/build.sh"

# In the background, so that `wait` returns at once on a signal (bash runs
# traps only between foreground commands); the log is also kept in kyc.log.
"$BIN/kyc" -demo-keys "$DATA/demo-keys.env" > >(tee -i -a "$LOGS/kyc.log") 2>&1 &
kyc_pid=$!
rc=0
wait "$kyc_pid" || rc=$?
kyc_pid=""
((rc == 0)) || log "error: the platform exited with status $rc (log: $LOGS/kyc.log)"
exit "$rc"
