# shellcheck shell=bash
# shellcheck disable=SC2034 # variables here are used by the sourcing scripts
# Shared helpers for deploy/local/*.sh. Sourced, never executed, so it has no
# shebang; callers already run with `set -euo pipefail`.
#
# Layout (all gitignored, so nothing here ever shows up in `git status`):
#   $ROOT/bin/            binaries built or copied for this clone
#   $ROOT/.data/          runtime state: component data, logs, pidfiles
#   $HOME/.cache/kyc/bin/ go-installed tools, kept OUTSIDE the clone because CI
#                         clones afresh each run but keeps $HOME between runs

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="$ROOT/.data"
PIDS="$DATA/pids"
LOGS="$DATA/logs"
BIN="$ROOT/bin"
TOOLS_CACHE="${KYC_TOOLS_CACHE:-$HOME/.cache/kyc/bin}"

# Components deps.sh launched itself (one name per line: postgres, redis,
# kafka, minio). Only these may ever be stopped by our scripts: anything that
# was already running (a system Postgres, someone else's Redis) is left alone.
STARTED_FILE="$PIDS/started-by-deps"

mkdir -p "$PIDS" "$LOGS" "$BIN"

# make/CI may run with a minimal PATH; Go lives in /usr/local/go on our boxes.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH="/usr/local/go/bin:$PATH"
fi

# Root is needed for apt-get and for acting as the postgres user. We are root
# on dev boxes and CI; sudo keeps the scripts usable for a normal user too.
if [[ $(id -u) -eq 0 ]]; then SUDO=(); else SUDO=(sudo); fi

log() { printf '%s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# port_open PORT: true if something accepts TCP connections on 127.0.0.1:PORT.
# bash's /dev/tcp needs no extra tools (nc is not on a fresh Debian); timeout
# guards against a filtered port hanging the connect.
port_open() {
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# pid_alive PIDFILE: true if the pidfile names a live process. /proc covers
# processes we may not signal (a non-root user looking at the postmaster,
# which runs as postgres: kill -0 fails with EPERM although it is alive).
pid_alive() {
	local pid
	[[ -s "$1" ]] || return 1
	pid=$(head -n1 "$1" 2>/dev/null) || return 1
	[[ "$pid" =~ ^[0-9]+$ ]] || return 1
	kill -0 "$pid" 2>/dev/null || [[ -d "/proc/$pid" ]]
}

# wait_for SECONDS CMD...: poll CMD every 0.5 s until it succeeds or time runs out.
wait_for() {
	local secs=$1; shift
	local deadline=$((SECONDS + secs))
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.5
	done
}

# stop_pid NAME PID [GRACE]: SIGTERM, wait up to GRACE seconds (default 20),
# then SIGKILL. Used for everything we start so shutdown is graceful first.
stop_pid() {
	local name=$1 pid=$2 grace=${3:-20} i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < grace * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	log "$name (pid $pid) did not stop within ${grace}s; killing"
	kill -KILL "$pid" 2>/dev/null || true
}

# --- bookkeeping of what deps.sh started ------------------------------------

mark_started() {
	touch "$STARTED_FILE"
	grep -qx "$1" "$STARTED_FILE" || echo "$1" >>"$STARTED_FILE"
}

unmark_started() {
	[[ -f "$STARTED_FILE" ]] || return 0
	local tmp
	tmp=$(mktemp "$PIDS/.started.XXXXXX")
	grep -vx "$1" "$STARTED_FILE" >"$tmp" || true
	mv "$tmp" "$STARTED_FILE"
}

is_marked() { [[ -f "$STARTED_FILE" ]] && grep -qx "$1" "$STARTED_FILE"; }

# component_pidfile NAME: where we keep the pid of a component we started.
component_pidfile() {
	case $1 in
	postgres) echo "$PIDS/postgres.pid" ;;
	redis) echo "$PIDS/redis.pid" ;;
	kafka) echo "$PIDS/devkafka.pid" ;;
	minio) echo "$PIDS/minio.pid" ;;
	*) die "unknown component $1" ;;
	esac
}

# prune_started: forget components whose recorded process is gone (crash,
# reboot). Otherwise a stale entry could make us stop a Postgres that a system
# service brought back after a reboot.
prune_started() {
	[[ -f "$STARTED_FILE" ]] || return 0
	local name
	while read -r name; do
		[[ -n "$name" ]] || continue
		pid_alive "$(component_pidfile "$name")" || unmark_started "$name"
	done < <(cat "$STARTED_FILE")
}

# stop_component NAME: stop one component deps.sh started. Callers check
# is_marked first; this never touches something we did not launch.
stop_component() {
	local name=$1 pidfile pid
	pidfile=$(component_pidfile "$name")
	case $name in
	postgres)
		if [[ -s "$PIDS/postgres.cluster" ]]; then
			local ver cluster
			read -r ver cluster <"$PIDS/postgres.cluster"
			log "stopping postgres $ver/$cluster"
			"${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$ver" "$cluster" stop || true
		fi
		;;
	redis)
		log "stopping redis"
		# Read the pid first: redis deletes its pidfile while shutting down,
		# and we want to return only once the process is really gone.
		pid=""
		if pid_alive "$pidfile"; then pid=$(head -n1 "$pidfile"); fi
		# nosave: data is in the AOF (appendonly yes); skip a slow RDB dump.
		redis-cli -h 127.0.0.1 -p 6379 shutdown nosave >/dev/null 2>&1 || true
		if [[ -n "$pid" ]]; then
			wait_for 10 bash -c "! kill -0 $pid 2>/dev/null" || stop_pid redis "$pid" 5
		fi
		;;
	kafka | minio)
		if pid_alive "$pidfile"; then
			pid=$(head -n1 "$pidfile")
			log "stopping $name (pid $pid)"
			stop_pid "$name" "$pid" 20
		fi
		;;
	esac
	rm -f "$pidfile"
	unmark_started "$name"
}

# apt_install PKG...: install Debian packages, refreshing the index once per
# run. Quiet on success; the caller already said what it is installing.
apt_updated=0
apt_install() {
	command -v apt-get >/dev/null || die "apt-get not found; install $* manually"
	if ((apt_updated == 0)); then
		"${SUDO[@]}" apt-get update -qq >/dev/null
		apt_updated=1
	fi
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# go_install_cached NAME PACKAGE VERSION [GO-INSTALL-FLAGS...]: print the
# path of the pinned build of NAME in $TOOLS_CACHE, building it first if
# missing. The cache is outside the clone: CI clones afresh but keeps $HOME.
go_install_cached() {
	local name=$1 pkg=$2 version=$3
	shift 3
	local cached="$TOOLS_CACHE/$name-$version"
	if [[ ! -x "$cached" ]]; then
		command -v go >/dev/null || die "go not found (expected in /usr/local/go/bin); it builds $name"
		local tmp
		tmp=$(mktemp -d)
		# Outside any module with GOWORK=off, `go install pkg@version` picks
		# up neither the workspace nor any module's requirements; GOFLAGS=''
		# keeps a developer's -mod=vendor or similar out.
		(cd "$tmp" && GOBIN="$tmp" GOWORK=off GOFLAGS='' go install "$@" "$pkg@$version") >&2
		mkdir -p "$TOOLS_CACHE"
		mv "$tmp/$name" "$cached.tmp" && mv "$cached.tmp" "$cached"
		rm -rf "$tmp"
	fi
	echo "$cached"
}
