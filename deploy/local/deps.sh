#!/usr/bin/env bash
# deps.sh - make sure the four real components the services need are running:
# PostgreSQL :5432, Redis :6379, Kafka (devkafka) :9092 and MinIO :9000, all on
# 127.0.0.1. Idempotent: anything already answering is left as it is, so the
# second run takes seconds. Works on a fresh Debian box (installs Postgres and
# Redis with apt-get, builds devkafka and MinIO with Go).
#
# Prints one line per component: "already running", "started" or
# "installed+started". Components this script launches are recorded in
# .data/pids/started-by-deps so `make stop` / run.sh stop only those. If
# KYC_DEPS_STARTED_OUT is set, the components started by THIS invocation are
# also written there (run.sh uses it to undo exactly what it caused).
#
# Usage: deps.sh [postgres|redis|kafka|minio ...]   (default: all four)
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# Pinned MinIO build. MinIO no longer publishes convenient binaries for every
# release, so we `go install` it once and cache the result outside the clone.
MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"
MINIO_USER="kycminio"
MINIO_PASSWORD="kycminio-secret"

PG_URL="postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable"

start_time=$SECONDS
started_now=()
: >"${KYC_DEPS_STARTED_OUT:-/dev/null}"

# Forget stale records (processes that died since the last run) before
# deciding what "we" own.
prune_started

report() { printf '%-9s %s\n' "$1:" "$2"; }

# record NAME: remember that this invocation launched NAME.
record() {
	mark_started "$1"
	started_now+=("$1")
	if [[ -n "${KYC_DEPS_STARTED_OUT:-}" ]]; then echo "$1" >>"$KYC_DEPS_STARTED_OUT"; fi
}

need_go() {
	command -v go >/dev/null || die "go not found (expected in /usr/local/go/bin); it builds devkafka and MinIO"
}

# ---------------------------------------------------------------- PostgreSQL

pg_ready() {
	if command -v pg_isready >/dev/null; then
		pg_isready -q -h 127.0.0.1 -p 5432
	else
		port_open 5432
	fi
}

# as_postgres CMD: run a shell command as the postgres OS user, which can
# always connect over the local socket (peer auth on a fresh Debian).
as_postgres() {
	if [[ $(id -u) -eq 0 ]]; then su postgres -c "$1"; else sudo -u postgres sh -c "$1"; fi
}

# shellcheck disable=SC2012 # version dirs are plain numbers
pg_version() { ls /etc/postgresql 2>/dev/null | sort -V | tail -n1; }

ensure_postgres() {
	local status="already running" installed=0 ver datadir
	if ! pg_ready; then
		if ! compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then
			log "postgres: not installed; installing postgresql with apt-get..."
			apt_install postgresql postgresql-contrib
			installed=1
		fi
		# On a systemd machine the package starts its own cluster; in
		# containers (policy-rc.d) it does not. Only start it ourselves if
		# nothing answers yet.
		if ((installed)) && wait_for 10 pg_ready; then
			status="installed+started (by its system service)"
		else
			ver=$(pg_version)
			if [[ -z "$ver" ]]; then
				# shellcheck disable=SC2012
				ver=$(ls /usr/lib/postgresql | sort -V | tail -n1)
				"${SUDO[@]}" pg_createcluster "$ver" main >/dev/null
			elif [[ ! -d "/etc/postgresql/$ver/main" ]]; then
				"${SUDO[@]}" pg_createcluster "$ver" main >/dev/null
			fi
			# --skip-systemctl-redirect: start the cluster directly even where
			# systemd is absent (containers, CI) instead of via systemctl.
			"${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$ver" main start
			wait_for 30 pg_ready || die "postgres did not become ready; see /var/log/postgresql/postgresql-$ver-main.log"
			# Keep the postmaster pid so stale records can be detected later.
			datadir=$(pg_lsclusters -h | awk -v v="$ver" '$1 == v && $2 == "main" {print $6}')
			"${SUDO[@]}" head -n1 "$datadir/postmaster.pid" >"$PIDS/postgres.pid"
			echo "$ver main" >"$PIDS/postgres.cluster"
			record postgres
			if ((installed)); then status="installed+started"; else status="started"; fi
		fi
	fi

	# psql is what we use below; a Postgres running elsewhere (e.g. a
	# container) may leave this box without the client.
	command -v psql >/dev/null || apt_install postgresql-client

	# The services connect with postgres:postgres over TCP. A fresh Debian
	# cluster uses scram on TCP and the postgres role has no password, so set
	# it (via the local socket, which uses peer auth). Boxes configured with
	# trust already pass.
	if ! PGPASSWORD=postgres psql -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1; then
		as_postgres "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null
		PGPASSWORD=postgres psql -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null ||
			die "cannot connect to $PG_URL even after setting the password; check pg_hba.conf"
	fi

	ensure_pg_connections

	# No databases to create here: each service creates its own at start
	# (pkg/pgdb), so the list of services lives only in the stack registry.

	# The customer service's migration runs CREATE EXTENSION pg_trgm, which
	# needs the contrib files on the server side.
	if ! compgen -G '/usr/share/postgresql/*/extension/pg_trgm.control' >/dev/null; then
		log "postgres: pg_trgm missing; installing postgresql-contrib..."
		apt_install postgresql-contrib
	fi

	report postgres "$status"
}

# Tests start whole platforms side by side (the e2e tests, the replica
# test's second instances, several worktrees), each service with its own
# pool; Debian's default of 100 connections ran out ("too many clients").
# Only a cluster on this box can be reconfigured and restarted.
PG_MAX_CONNECTIONS=500
ensure_pg_connections() {
	local have ver
	have=$(PGPASSWORD=postgres psql -h 127.0.0.1 -U postgres -d postgres -tAc 'show max_connections')
	((have >= PG_MAX_CONNECTIONS)) && return
	ver=$(pg_lsclusters -h 2>/dev/null | awk '$2 == "main" && $3 == 5432 {print $1}')
	if [[ -z "$ver" ]]; then
		log "postgres: max_connections is $have (< $PG_MAX_CONNECTIONS) and not ours to change; parallel tests may run out"
		return
	fi
	log "postgres: max_connections $have -> $PG_MAX_CONNECTIONS (restarting it)..."
	PGPASSWORD=postgres psql -h 127.0.0.1 -U postgres -d postgres -qc "ALTER SYSTEM SET max_connections = $PG_MAX_CONNECTIONS"
	"${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$ver" main restart
	wait_for 30 pg_ready || die "postgres did not come back after the restart"
}

# --------------------------------------------------------------------- Redis

redis_ready() {
	if command -v redis-cli >/dev/null; then
		[[ $(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null) == PONG ]]
	else
		# No client installed: speak the protocol by hand.
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
			# appendonly: keep data across restarts like a real deployment.
			redis-server --daemonize yes --bind 127.0.0.1 --port 6379 \
				--dir "$DATA/redis" --appendonly yes \
				--pidfile "$PIDS/redis.pid" --logfile "$LOGS/redis.log"
			if ! wait_for 30 redis_ready; then
				tail -n 20 "$LOGS/redis.log" >&2 || true
				die "redis did not become ready"
			fi
			wait_for 5 test -s "$PIDS/redis.pid" || true
			record redis
			if ((installed)); then status="installed+started"; else status="started"; fi
		fi
	fi
	report redis "$status"
}

# --------------------------------------------------------------------- Kafka

# start_daemon NAME PIDFILE LOGFILE CMD...: run CMD detached from our terminal.
# setsid puts it in its own session so a Ctrl-C aimed at `make test` or a
# later `make run` does not hit it; run.sh/stop.sh stop it explicitly via the
# pidfile. (In a non-interactive script the child is not a process-group
# leader, so setsid execs in place and $! is the daemon's own pid.)
start_daemon() {
	local name=$1 pidfile=$2 logfile=$3; shift 3
	{
		echo "=== $(date -u +%FT%TZ) starting $name"
	} >>"$logfile"
	setsid nohup "$@" >>"$logfile" 2>&1 </dev/null &
	echo $! >"$pidfile"
}

ensure_kafka() {
	local status="already running" built=""
	if ! port_open 9092; then
		local src="$ROOT/deploy/devkafka/main.go"
		if [[ ! -x "$BIN/devkafka" || "$src" -nt "$BIN/devkafka" || "$ROOT/deploy/go.mod" -nt "$BIN/devkafka" ]]; then
			log "kafka: building bin/devkafka..."
			need_go
			# GOWORK=off: the deploy module is self-contained, so a half-edited
			# workspace module elsewhere cannot break the broker build.
			(cd "$ROOT/deploy" && GOWORK=off go build -o "$BIN/devkafka" ./devkafka)
			built=" (built bin/devkafka)"
		fi
		mkdir -p "$DATA/kafka"
		start_daemon devkafka "$PIDS/devkafka.pid" "$LOGS/devkafka.log" \
			"$BIN/devkafka" -port 9092 -data "$DATA/kafka" -partitions 3 -log-level warn
		if ! wait_for 60 port_open 9092; then
			tail -n 30 "$LOGS/devkafka.log" >&2 || true
			die "devkafka did not open 127.0.0.1:9092 within 60s (log: $LOGS/devkafka.log)"
		fi
		record kafka
		status="started$built"
	fi
	report kafka "$status"
}

# --------------------------------------------------------------------- MinIO

minio_ready() { curl -sf -o /dev/null --max-time 2 http://127.0.0.1:9000/minio/health/live; }

# ensure_minio_binary: cached build in $TOOLS_CACHE, linked into bin/minio.
ensure_minio_binary() {
	local cached="$TOOLS_CACHE/minio-$MINIO_VERSION"
	if [[ ! -x "$cached" ]]; then
		log "Building MinIO from source (first run only, about 5 minutes on 2 cores)..."
	fi
	# -v lists packages as they compile, which doubles as a progress bar.
	cached=$(go_install_cached minio github.com/minio/minio "$MINIO_VERSION" -v)
	# Refresh only when the version changed: the binary is 150 MB. Hardlink
	# when the cache is on the same filesystem (free), else copy; then rename,
	# so a running bin/minio (or the cached file it may share an inode with)
	# is never overwritten in place.
	if [[ ! -x "$BIN/minio" || "$(cat "$BIN/.minio-version" 2>/dev/null)" != "$MINIO_VERSION" ]]; then
		rm -f "$BIN/.minio.tmp"
		ln "$cached" "$BIN/.minio.tmp" 2>/dev/null || cp "$cached" "$BIN/.minio.tmp"
		mv "$BIN/.minio.tmp" "$BIN/minio"
		echo "$MINIO_VERSION" >"$BIN/.minio-version"
	fi
}

ensure_minio() {
	local status="already running"
	if ! port_open 9000; then
		ensure_minio_binary
		mkdir -p "$DATA/minio"
		# MINIO_BROWSER=off: no web console needed locally, and it saves memory.
		start_daemon minio "$PIDS/minio.pid" "$LOGS/minio.log" \
			env MINIO_ROOT_USER="$MINIO_USER" MINIO_ROOT_PASSWORD="$MINIO_PASSWORD" MINIO_BROWSER=off \
			"$BIN/minio" server "$DATA/minio" --address 127.0.0.1:9000 --console-address 127.0.0.1:9001 --quiet
		if ! wait_for 60 minio_ready; then
			tail -n 30 "$LOGS/minio.log" >&2 || true
			die "minio did not become healthy within 60s (log: $LOGS/minio.log)"
		fi
		record minio
		status="started"
	else
		# Keep bin/minio present for anyone who wants to run it by hand.
		if [[ -x "$TOOLS_CACHE/minio-$MINIO_VERSION" ]]; then ensure_minio_binary; fi
	fi
	report minio "$status"
}

# curl is used for health checks here and in run.sh; a minimal Debian image
# does not ship it.
command -v curl >/dev/null || { log "installing curl..."; apt_install curl ca-certificates; }

# Optional arguments pick components (e.g. `deps.sh kafka minio`); default all.
components=("$@")
((${#components[@]})) || components=(postgres redis kafka minio)
for c in "${components[@]}"; do
	case $c in
	postgres | redis | kafka | minio) "ensure_$c" ;;
	*) die "unknown component $c (want postgres, redis, kafka, minio)" ;;
	esac
done
log "deps ready in $((SECONDS - start_time))s${started_now:+ (started: ${started_now[*]})}"
