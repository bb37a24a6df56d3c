#!/usr/bin/env bash
# deps.sh - make sure PostgreSQL :5432, Redis :6379, Kafka (devkafka) :9092
# and MinIO :9000 run on 127.0.0.1. What already answers is left alone, so a
# second run is a quick no-op; on a fresh Debian box it installs Postgres and
# Redis with apt-get and builds devkafka and MinIO with Go. One line per
# component: "already running", "started" or "installed+started". What it
# launches is recorded (lib.sh) so `make stop` and run.sh stop only that;
# KYC_DEPS_STARTED_OUT, if set, also gets what THIS run started (run.sh).
#
# Usage: deps.sh [postgres|redis|kafka|minio ...]   (default: all four)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# MinIO publishes no convenient binaries for every release: built once with
# `go install` and cached outside the clone.
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
# Tests start whole platforms side by side, each service with its own pool;
# Debian's default of 100 connections ran out ("too many clients").
PG_MAX_CONNECTIONS=500

start_time=$SECONDS started_now=()
: >"${KYC_DEPS_STARTED_OUT:-/dev/null}"
prune_started

report() { printf '%-9s %s\n' "$1:" "$2"; }
record() {
	grep -qx "$1" "$STARTED_FILE" 2>/dev/null || echo "$1" >>"$STARTED_FILE"
	started_now+=("$1")
	[[ -z ${KYC_DEPS_STARTED_OUT:-} ]] || echo "$1" >>"$KYC_DEPS_STARTED_OUT"
}

# launch NAME READY CMD...: run CMD in its own session (a Ctrl-C aimed at
# make does not reach it; run.sh and stop.sh stop it by its pidfile), wait up
# to 60 s for READY, record it. Not being a group leader, setsid execs in
# place, so $! is the daemon itself.
launch() {
	local name=$1 ready=$2
	shift 2
	echo "=== $(date -u +%FT%TZ) starting $name" >>"$LOGS/$name.log"
	setsid nohup "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
	echo $! >"$(pidfile "$name")"
	if ! wait_for 60 "$ready"; then
		tail -n 30 "$LOGS/$name.log" >&2 || true
		die "$name did not become ready within 60s (log: $LOGS/$name.log)"
	fi
	record "$name"
}

pg_ready() { if command -v pg_isready >/dev/null; then pg_isready -q -h 127.0.0.1 -p 5432; else port_open 5432; fi; }
psql_tcp() { PGPASSWORD=postgres psql -h 127.0.0.1 -U postgres -d postgres "$@"; }

ensure_postgres() {
	local status="already running" installed=0 ver
	if ! pg_ready; then
		if ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
			log "postgres: not installed; installing postgresql with apt-get..."
			apt_install postgresql postgresql-contrib
			installed=1
		fi
		# On a systemd machine the package starts its own cluster; in a
		# container (policy-rc.d) it does not: start it only if nothing answers.
		if ((installed)) && wait_for 10 pg_ready; then
			status="installed+started (by its system service)"
		else
			# shellcheck disable=SC2012 # version dirs are plain numbers
			ver=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n1)
			# shellcheck disable=SC2012
			[[ -n $ver ]] || ver=$(ls /usr/lib/postgresql | sort -V | tail -n1)
			[[ -d /etc/postgresql/$ver/main ]] || "${SUDO[@]}" pg_createcluster "$ver" main >/dev/null
			# --skip-systemctl-redirect: start it directly where systemd is absent.
			"${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$ver" main start
			wait_for 30 pg_ready || die "postgres did not become ready; see /var/log/postgresql/postgresql-$ver-main.log"
			"${SUDO[@]}" head -n1 "$(pg_lsclusters -h | awk -v v="$ver" '$1 == v && $2 == "main" {print $6}')/postmaster.pid" >"$PIDS/postgres.pid"
			echo "$ver main" >"$PIDS/postgres.cluster"
			record postgres
			if ((installed)); then status="installed+started"; else status="started"; fi
		fi
	fi
	# A Postgres running elsewhere may leave this box without the client.
	command -v psql >/dev/null || apt_install postgresql-client
	# The services connect as postgres:postgres over TCP; a fresh cluster has
	# no password for that role (scram on TCP), so set it over the socket.
	if ! psql_tcp -tAc 'select 1' >/dev/null 2>&1; then
		if [[ $(id -u) -eq 0 ]]; then su postgres -c "psql -qc \"ALTER USER postgres PASSWORD 'postgres'\""; else sudo -u postgres psql -qc "ALTER USER postgres PASSWORD 'postgres'"; fi >/dev/null
		psql_tcp -tAc 'select 1' >/dev/null || die "cannot connect as postgres:postgres@127.0.0.1:5432 even after setting the password; check pg_hba.conf"
	fi
	# Only a cluster on this box can be reconfigured and restarted.
	if (($(psql_tcp -tAc 'show max_connections') < PG_MAX_CONNECTIONS)); then
		ver=$(pg_lsclusters -h 2>/dev/null | awk '$2 == "main" && $3 == 5432 {print $1}')
		if [[ -n $ver ]]; then
			log "postgres: max_connections -> $PG_MAX_CONNECTIONS (restarting it)..."
			psql_tcp -qc "ALTER SYSTEM SET max_connections = $PG_MAX_CONNECTIONS"
			"${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$ver" main restart
			wait_for 30 pg_ready || die "postgres did not come back after the restart"
		else
			log "postgres: max_connections is below $PG_MAX_CONNECTIONS and not ours to change; parallel tests may run out"
		fi
	fi
	# Production's PostgreSQL analyses tables as they grow (autovacuum);
	# a server set up with it off never does, and pooled connections then
	# keep plans made while the tables were empty (BENCHMARKS §18z: every
	# create walked its organization). Turn it on: a reload, no restart.
	if [[ $(psql_tcp -tAc 'show autovacuum') != on ]]; then
		log "postgres: autovacuum -> on (it was off: tables would never get statistics)"
		psql_tcp -qc "ALTER SYSTEM SET autovacuum = on" -c "SELECT pg_reload_conf()" >/dev/null
	fi
	# The customer service's migration creates pg_trgm (postgresql-contrib).
	compgen -G '/usr/share/postgresql/*/extension/pg_trgm.control' >/dev/null || apt_install postgresql-contrib
	# No databases to create: each service creates its own at start.
	report postgres "$status"
}

redis_ready() {
	if command -v redis-cli >/dev/null; then
		[[ $(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null) == PONG ]]
	else # speak the protocol by hand
		# shellcheck disable=SC2016 # $l expands in the inner bash
		timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6379 && printf "PING\r\n" >&3 && read -r -t 2 l <&3 && [[ $l == +PONG* ]]' 2>/dev/null
	fi
}

ensure_redis() {
	local status="already running" installed=0
	if ! redis_ready; then
		if ! command -v redis-server >/dev/null; then
			log "redis: not installed; installing redis-server with apt-get..."
			apt_install redis-server
			installed=1
		fi
		if ((installed)) && wait_for 5 redis_ready; then
			status="installed+started (by its system service)"
		else
			mkdir -p "$DATA/redis"
			# Data kept in the append-only file; no RDB snapshot, so it stops fast.
			launch redis redis_ready redis-server --bind 127.0.0.1 --port 6379 --dir "$DATA/redis" --appendonly yes --save ''
			if ((installed)); then status="installed+started"; else status="started"; fi
		fi
	fi
	report redis "$status"
}

kafka_ready() { port_open 9092; }

ensure_kafka() {
	local status="already running"
	if ! port_open 9092; then
		status="started"
		if [[ ! -x $BIN/devkafka || $ROOT/deploy/devkafka/main.go -nt $BIN/devkafka || $ROOT/deploy/go.mod -nt $BIN/devkafka ]]; then
			log "kafka: building bin/devkafka..."
			(cd "$ROOT/deploy" && GOWORK=off go build -o "$BIN/devkafka" ./devkafka)
			status="started (built bin/devkafka)"
		fi
		mkdir -p "$DATA/kafka"
		launch kafka kafka_ready "$BIN/devkafka" -port 9092 -data "$DATA/kafka" -partitions 3 -log-level warn
	fi
	report kafka "$status"
}

minio_ready() { curl -sf -o /dev/null --max-time 2 http://127.0.0.1:9000/minio/health/live; }

ensure_minio() {
	local status="already running" minio
	if ! port_open 9000; then
		[[ -x $TOOLS_CACHE/minio-$MINIO_VERSION ]] || log "Building MinIO from source (first run only, about 5 minutes on 2 cores)..."
		# -v lists packages as they compile: a progress bar.
		minio=$(go_install_cached minio github.com/minio/minio "$MINIO_VERSION" -v)
		mkdir -p "$DATA/minio"
		# No web console locally: it saves memory.
		launch minio minio_ready env MINIO_ROOT_USER=kycminio MINIO_ROOT_PASSWORD=kycminio-secret MINIO_BROWSER=off \
			"$minio" server "$DATA/minio" --address 127.0.0.1:9000 --console-address 127.0.0.1:9001 --quiet
		status="started"
	fi
	report minio "$status"
}

# Health checks here and in run.sh use curl; a minimal Debian image lacks it.
command -v curl >/dev/null || { log "installing curl..."; apt_install curl ca-certificates; }

components=("$@")
((${#components[@]})) || components=(postgres redis kafka minio)
for c in "${components[@]}"; do
	case $c in
	postgres | redis | kafka | minio) "ensure_$c" ;;
	*) die "unknown component $c (want postgres, redis, kafka, minio)" ;;
	esac
done
log "deps ready in $((SECONDS - start_time))s${started_now:+ (started: ${started_now[*]})}"
