#!/usr/bin/env bash
# run.sh - what `make run` calls: bring up the whole platform locally in the
# foreground, seed a demo organization with API keys, print how to call it,
# then stream every service's logs (prefixed "[name] ") until Ctrl-C.
#
# On Ctrl-C / SIGTERM / exit it stops exactly what it started: the service
# binaries, then the components deps.sh started in THIS invocation. Anything
# that was running before (system Postgres/Redis, a devkafka from `make deps`)
# is left alone.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

start_time=$SECONDS
export KYC_MODE=local

GATEWAY_URL="http://127.0.0.1:8080"
KEYS_FILE="$DATA/demo-keys.env"

# Start order matters: auth-billing first (everything authenticates through
# it), the gateway last (it fronts all the others).
SERVICES=(auth-billing:8081 customer:8082 document:8083 verification:8084 reporting:8085 webhook:8086 gateway:8080)

svc_pids=()      # pids of the service binaries (not of their log pipes)
svc_names=()
log_pids=()      # the log readers (tee | sed), one per service
fifo_dir=$(mktemp -d)
deps_started=()  # components deps.sh started for this run
deps_out=$(mktemp)
cleaned=0

cleanup() {
	((cleaned)) && return 0
	cleaned=1
	# Do not let a failing stop step abort the rest of the cleanup.
	set +e
	trap '' INT TERM
	if ((${#svc_pids[@]})); then
		echo
		log "stopping services..."
		local i
		# SIGTERM everything at once (they shut down in parallel), then give
		# each up to 20 s in total before SIGKILL.
		for i in "${!svc_pids[@]}"; do kill -TERM "${svc_pids[$i]}" 2>/dev/null; done
		for i in "${!svc_pids[@]}"; do stop_pid "${svc_names[$i]}" "${svc_pids[$i]}" 20; done
	fi
	# Components deps.sh may have recorded even if it failed half-way.
	[[ -s "$deps_out" ]] && mapfile -t deps_started <"$deps_out"
	rm -f "$deps_out"
	local name
	for name in "${deps_started[@]}"; do
		# Only if still ours (make stop may have stopped it meanwhile).
		is_marked "$name" && stop_component "$name"
	done
	# Let the log readers print the services' last lines (they end at EOF
	# once their binary is gone), then remove the fifos.
	((${#log_pids[@]})) && wait "${log_pids[@]}" 2>/dev/null
	rm -rf "$fifo_dir"
	log "stopped."
}
trap cleanup EXIT
# exit from the signal traps runs the EXIT trap (cleanup) exactly once.
trap 'exit 130' INT
trap 'exit 143' TERM
# A closed terminal must not leave services and components running.
trap 'exit 129' HUP

# 1. Postgres, Redis, Kafka, MinIO.
KYC_DEPS_STARTED_OUT="$deps_out" "$ROOT/deploy/local/deps.sh"

# 2. Build every binary into bin/ (incremental: seconds when nothing changed).
log "building services..."
"$ROOT/deploy/local/build.sh"

# 3. Start the services one by one, each ready before the next.
ready() { [[ $(curl -s -o /dev/null --max-time 2 -w '%{http_code}' "http://127.0.0.1:$1/readyz") == 200 ]]; }

start_service() {
	local name=$1 port=$2 log_file="$LOGS/$1.log" fifo="$fifo_dir/$1" pid
	: >"$log_file"
	# The binary writes into a fifo; a reader keeps a copy in .data/logs and
	# prefixes each line for the terminal. Two separate background jobs, so
	# $! of the second is the BINARY's own pid (what cleanup must signal) and
	# the reader's pid can be waited on so the last log lines are not lost.
	# The reader ignores INT/TERM: on Ctrl-C the terminal signals the whole
	# process group, and a reader dying first would lose the services'
	# shutdown logs (and hit them with SIGPIPE). It ends at EOF instead.
	mkfifo "$fifo"
	(
		trap '' INT TERM HUP
		tee -a "$log_file" <"$fifo" | sed -u "s/^/[$name] /"
	) &
	log_pids+=("$!")
	# Each service gets its own database explicitly (the same URL as its
	# built-in default), so a DATABASE_URL left in the developer's shell
	# cannot point every service at one database. The gateway has none.
	if [[ $name == gateway ]]; then
		env -u DATABASE_URL "$BIN/$name" >"$fifo" 2>&1 &
	else
		DATABASE_URL="postgres://postgres:postgres@127.0.0.1:5432/kyc_${name//-/_}?sslmode=disable" \
			"$BIN/$name" >"$fifo" 2>&1 &
	fi
	pid=$!
	svc_pids+=("$pid")
	svc_names+=("$name")

	local deadline=$((SECONDS + 60))
	until ready "$port"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			log "error: $name exited during startup; last lines of $log_file:"
			tail -n 30 "$log_file" | sed 's/^/    /'
			exit 1
		fi
		if ((SECONDS >= deadline)); then
			log "error: $name not ready on http://127.0.0.1:$port/readyz after 60s; last lines of $log_file:"
			tail -n 30 "$log_file" | sed 's/^/    /'
			exit 1
		fi
		sleep 0.3
	done
}

for svc in "${SERVICES[@]}"; do
	start_service "${svc%%:*}" "${svc##*:}"
done

# 4. Demo organization and API keys: reuse the saved ones while they still
# authenticate (keeps copy-pasted curls working across restarts), otherwise
# create new ones through the admin API.
# json_field KEY: the top-level string KEY of the JSON on stdin. jq when it
# is installed; otherwise a sed fallback that is enough for kycctl's flat,
# pretty-printed output (`  "id": "org_..."`), so jq is not a hard dependency.
json_field() {
	if command -v jq >/dev/null; then
		jq -r --arg k "$1" '.[$k] // empty'
	else
		sed -n "s/^ *\"$1\": *\"\([^\"]*\)\".*/\1/p" | head -n1
	fi
}

# keys_file_get NAME: value of NAME= in the keys file. Parsed rather than
# sourced so a mangled file can never run commands.
keys_file_get() { sed -n "s/^$1=//p" "$KEYS_FILE" 2>/dev/null | head -n1; }

ORG_ID="" TEST_KEY="" LIVE_KEY=""
if [[ -f "$KEYS_FILE" ]]; then
	ORG_ID=$(keys_file_get ORG_ID)
	TEST_KEY=$(keys_file_get TEST_KEY)
	LIVE_KEY=$(keys_file_get LIVE_KEY)
fi
keys_work() {
	[[ -n "$TEST_KEY" && -n "$LIVE_KEY" ]] &&
		[[ $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TEST_KEY" \
			"$GATEWAY_URL/api/v1/customers?limit=1") == 200 ]]
}
if keys_work; then
	log "reusing demo keys from .data/demo-keys.env"
else
	log "creating demo organization and API keys..."
	# kycctl talks to auth-billing's admin API on :8081 with the local admin
	# token (both are kycctl's built-in defaults).
	ORG_ID=$("$BIN/kycctl" orgs create --name "Demo Lender" --plan growth | json_field id)
	TEST_KEY=$("$BIN/kycctl" keys create --org "$ORG_ID" --env test --scopes kyc:read,kyc:write | json_field key)
	LIVE_KEY=$("$BIN/kycctl" keys create --org "$ORG_ID" --env live --scopes kyc:read,kyc:write | json_field key)
	[[ "$ORG_ID" == org_* && "$TEST_KEY" == mk_test_* && "$LIVE_KEY" == mk_live_* ]] ||
		die "unexpected kycctl output (org=$ORG_ID test=$TEST_KEY live=$LIVE_KEY)"
	(
		umask 077 # the keys are secrets, even local ones
		printf 'ORG_ID=%s\nTEST_KEY=%s\nLIVE_KEY=%s\n' "$ORG_ID" "$TEST_KEY" "$LIVE_KEY" >"$KEYS_FILE"
	)
	chmod 600 "$KEYS_FILE"
fi

# 5. Banner. A random phone and email keep the sample curl re-runnable: the
# customer service rejects a second customer with the same phone or email in
# an environment (DUPLICATE_CUSTOMER).
digits=$(printf '%010d' $((RANDOM * 32768 + RANDOM)) | tail -c 8)
phone="+23480$digits"
email="ngozi.$digits@example.com"
cat <<EOF

================================================================================
 KYC platform is up in $((SECONDS - start_time))s

 Gateway:      $GATEWAY_URL   (metrics: http://127.0.0.1:9080/metrics)
 Organization: $ORG_ID
 Sandbox key:  $TEST_KEY
 Live key:     $LIVE_KEY
 (saved in .data/demo-keys.env)

 Create a customer:
   curl -s -X POST $GATEWAY_URL/api/v1/customers -H "Authorization: Bearer $TEST_KEY" -H "Content-Type: application/json" -d '{"firstName":"Ngozi","lastName":"Okafor","phone":"$phone","email":"$email","addresses":[{"streetName":"Adeola Odeku Street","city":"Lagos","state":"Lagos"}]}'

 Fetch it (use the id from the answer):
   curl -s $GATEWAY_URL/api/v1/customers/CUSTOMER_ID -H "Authorization: Bearer $TEST_KEY"

 Press Ctrl-C to stop
================================================================================

EOF

# 6/7. Stream logs until Ctrl-C (the INT trap runs cleanup). If a service
# dies on its own, say which and stop the rest: a half-up platform that keeps
# streaming logs is more confusing than a clean stop.
while :; do
	# wait -n (bash >= 5.1) returns when any listed service exits, or early
	# when a trapped signal arrives (the trap then exits via cleanup).
	died=""
	rc=0
	wait -n -p died "${svc_pids[@]}" || rc=$?
	[[ -n "$died" ]] || continue
	for i in "${!svc_pids[@]}"; do
		[[ "${svc_pids[$i]}" == "$died" ]] || continue
		# Ctrl-C reaches the services too (same process group): they shut
		# down cleanly and exit 0, sometimes before bash runs its INT trap.
		# A clean exit is a stop, not a crash.
		if ((rc == 0)); then
			log "${svc_names[$i]} has shut down; stopping the rest"
			exit 130
		fi
		log "error: ${svc_names[$i]} exited with status $rc; last lines of $LOGS/${svc_names[$i]}.log:"
		tail -n 30 "$LOGS/${svc_names[$i]}.log" | sed 's/^/    /'
		exit 1
	done
done
