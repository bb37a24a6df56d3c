# shellcheck shell=bash
# lib.sh - the few helpers the walkthroughs share. Sourced by each script,
# which runs with `set -euo pipefail`. Only bash, curl, grep, sed and
# coreutils: nothing `make run` does not install (no jq, no uuidgen).
#
# Settings (all optional after `make run`, which saves its demo keys in
# .data/demo-keys.env):
#   KYC_URL          the gateway (default http://127.0.0.1:8080)
#   KYC_SANDBOX_KEY  an mk_test_ key (default: TEST_KEY from .data/demo-keys.env)
#   KYC_LIVE_KEY     an mk_live_ key (default: LIVE_KEY from .data/demo-keys.env)
#   KYC_TIMEOUT      seconds any one wait may take (default 60)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
demo_keys="$ROOT/.data/demo-keys.env"
demo_key() { [[ -r $demo_keys ]] && sed -n "s/^$1=//p" "$demo_keys"; }

KYC_URL="${KYC_URL:-http://127.0.0.1:8080}"
API="$KYC_URL/api/v1"
KYC_SANDBOX_KEY="${KYC_SANDBOX_KEY:-$(demo_key TEST_KEY || true)}"
KYC_LIVE_KEY="${KYC_LIVE_KEY:-$(demo_key LIVE_KEY || true)}"
KYC_TIMEOUT="${KYC_TIMEOUT:-60}"
JSON="Content-Type: application/json"

# at_exit CMD: run CMD when the walkthrough ends, however it ends.
exit_cmds=()
at_exit() { exit_cmds+=("$1"); }
# shellcheck disable=SC2154 # c is the loop's own variable
trap 'for c in "${exit_cmds[@]}"; do eval "$c" || true; done' EXIT

# A folder for what the walkthrough downloads, removed at exit unless
# KYC_KEEP names one to keep.
WORK="${KYC_KEEP:-$(mktemp -d)}"
mkdir -p "$WORK"
[[ -n ${KYC_KEEP:-} ]] || at_exit 'rm -rf "$WORK"'

fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }

# uuid: a fresh Idempotency-Key (the kernel's generator; uuidgen is not
# installed on a fresh Debian).
uuid() { cat /proc/sys/kernel/random/uuid; }

# unique: digits that differ on every run, so phones, emails and loan ids
# never meet a DUPLICATE_CUSTOMER from an earlier run.
unique() { printf '%08d' $(( $(date +%s%N) / 1000 % 100000000 )); }

# call METHOD URL [CURL-ARGS...]: one request, at most 30 s; prints the body,
# and stops the walkthrough on anything but a 2xx, showing the answer.
call() {
	request "$@"
	[[ $CODE == 2* ]] || fail "$1 $2: HTTP $CODE $BODY"
	printf '%s\n' "$BODY"
}

# request METHOD URL [CURL-ARGS...]: one request, at most 30 s, its status in
# $CODE and its body in $BODY; stops the walkthrough only when nothing answers.
request() {
	local method=$1 url=$2 out
	shift 2
	out=$(curl -sS --max-time 30 -X "$method" -w '\n%{http_code}' "$url" "$@") ||
		fail "$method $url: no answer"
	CODE=${out##*$'\n'}
	BODY=${out%$'\n'*}
}

# status ID KEY: customer ID's verification status into $STATUS; any error
# (a 404 included: the status is read from the customer's own record, so
# it knows a customer from the moment its POST answered) stops the
# walkthrough.
status() {
	request GET "$API/verification/$1/status" -H "Authorization: Bearer $2"
	STATUS=$BODY
	[[ $CODE == 2* ]] || fail "GET $API/verification/$1/status: HTTP $CODE $BODY"
}

# field NAME: the first string value of "NAME" in the JSON on stdin (the
# envelope puts data before meta, so the first "id" is data.id); stops the
# walkthrough when there is none.
field() {
	local json v
	json=$(cat)
	v=$(grep -oE "\"$1\": ?\"[^\"]*\"" <<<"$json" | head -n1 | sed -E 's/^"[^"]*": ?"//; s/"$//' || true)
	[[ -n $v ]] || fail "no \"$1\" in $json"
	printf '%s\n' "$v"
}

# wait_until WHAT CMD...: run CMD every second until it succeeds; give up
# after KYC_TIMEOUT seconds. CMD stops the whole walkthrough itself on an
# error (call does), so only "not yet" is retried.
wait_until() {
	local what=$1 deadline=$((SECONDS + KYC_TIMEOUT))
	shift
	until "$@"; do
		((SECONDS < deadline)) || fail "timed out after ${KYC_TIMEOUT}s waiting for $what"
		sleep 1
	done
}

need_key() { [[ -n $2 ]] || fail "no $1: set it, or run make run first (it writes .data/demo-keys.env)"; }

# sandbox_customer [NOTES]: create a sandbox customer with one Lagos address
# (a new phone each run) and wait until it is VERIFIED or REJECTED; prints
# its id. sandbox.sh shows the same steps one by one.
sandbox_customer() {
	local auth="Authorization: Bearer $KYC_SANDBOX_KEY" id
	id=$(call POST "$API/customers" -H "$auth" -H "$JSON" -H "Idempotency-Key: $(uuid)" -d '{
	  "firstName": "Amaka", "lastName": "Eze", "phone": "+23480'"$(unique)"'", "loanType": "PERSONAL",
	  "addresses": [{"streetNumber": "12", "streetName": "Adeola Odeku Street", "city": "Victoria Island",
	                 "state": "Lagos", "landmark": "Opposite the bank", "notes": "'"${1:-}"'"}]}' | field id)
	wait_until "$id to be verified" sandbox_final "$id"
	printf '%s\n' "$id"
}

# sandbox_final ID: true once the sandbox customer ID is VERIFIED or
# REJECTED; its status answer is left in $STATUS.
sandbox_final() {
	status "$1" "$KYC_SANDBOX_KEY" && grep -qE '"overallStatus":"(VERIFIED|REJECTED)"' <<<"$STATUS"
}
