# shellcheck shell=bash
# shellcheck disable=SC2034 # variables here are used by the sourcing scripts
# lib.sh - helpers for deploy/local/*.sh; sourced by scripts that run with
# `set -euo pipefail`. All state is gitignored: bin/ (binaries), .data/
# (component data, logs, pidfiles). Go-installed tools are cached in
# ~/.cache/kyc/bin, outside the clone: CI clones afresh but keeps $HOME.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DATA="$ROOT/.data" PIDS="$ROOT/.data/pids" LOGS="$ROOT/.data/logs" BIN="$ROOT/bin"
TOOLS_CACHE="${KYC_TOOLS_CACHE:-$HOME/.cache/kyc/bin}"
# The components deps.sh launched, one name a line: only these are ever
# stopped, never a Postgres or Redis that was running already.
STARTED_FILE="$PIDS/started-by-deps"
mkdir -p "$PIDS" "$LOGS" "$BIN"

# make and CI may run with a minimal PATH; Go lives in /usr/local/go here.
command -v go >/dev/null 2>&1 || PATH="/usr/local/go/bin:$PATH"
# Root for apt-get and pg_ctlcluster (dev boxes and CI are root; sudo otherwise).
if [[ $(id -u) -eq 0 ]]; then SUDO=(); else SUDO=(sudo); fi

log() { printf '%s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# port_open PORT: something accepts TCP on 127.0.0.1:PORT (bash's /dev/tcp:
# no nc on a fresh Debian; timeout in case a filtered port hangs).
port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# wait_for SECONDS CMD...: run CMD every 0.5 s until it succeeds or time is up.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.5
	done
}

# pidfile NAME: where the pid of a component deps.sh started is kept.
pidfile() { if [[ $1 == kafka ]]; then echo "$PIDS/devkafka.pid"; else echo "$PIDS/$1.pid"; fi; }

# alive NAME: its pidfile names a live process (/proc too: a non-root user
# may not signal the postmaster, which runs as postgres).
alive() {
	local pid
	pid=$(head -n1 "$(pidfile "$1")" 2>/dev/null) && [[ $pid =~ ^[0-9]+$ ]] &&
		{ kill -0 "$pid" 2>/dev/null || [[ -d /proc/$pid ]]; }
}

started() { [[ -f $STARTED_FILE ]] && grep -qx "$1" "$STARTED_FILE"; }
forget() { [[ ! -f $STARTED_FILE ]] || sed -i "/^$1\$/d" "$STARTED_FILE"; }

# prune_started: forget components whose process is gone (crash, reboot),
# so that a Postgres a system service brought back is never ours to stop.
prune_started() {
	local name
	for name in $(cat "$STARTED_FILE" 2>/dev/null); do alive "$name" || forget "$name"; done
}

# stop_pid NAME PID: SIGTERM, then SIGKILL if it still runs after 30 s.
stop_pid() {
	local i
	kill -TERM "$2" 2>/dev/null || return 0
	for ((i = 0; i < 300; i++)); do kill -0 "$2" 2>/dev/null || return 0; sleep 0.1; done
	log "$1 (pid $2) did not stop within 30s; killing"
	kill -KILL "$2" 2>/dev/null || true
}

# stop_component NAME: stop a component deps.sh started.
stop_component() {
	local name=$1 pid ver cluster
	if [[ $name == postgres ]]; then
		if read -r ver cluster 2>/dev/null <"$PIDS/postgres.cluster"; then
			log "stopping postgres $ver/$cluster"
			"${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "$ver" "$cluster" stop || true
		fi
	elif alive "$name"; then
		pid=$(head -n1 "$(pidfile "$name")")
		log "stopping $name (pid $pid)"
		stop_pid "$name" "$pid"
	fi
	rm -f "$(pidfile "$name")"
	forget "$name"
}

# apt_install PKG...: install Debian packages, refreshing the index once.
apt_install() {
	command -v apt-get >/dev/null || die "apt-get not found; install $* yourself"
	[[ -n ${apt_updated:-} ]] || { "${SUDO[@]}" apt-get update -qq >/dev/null && apt_updated=1; }
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# go_install_cached NAME PACKAGE VERSION [FLAGS...]: print the path of the
# pinned build of NAME in $TOOLS_CACHE, building it first if missing (outside
# any module, GOWORK=off and GOFLAGS='': no workspace or local flags leak in).
go_install_cached() {
	local name=$1 pkg=$2 version=$3 tmp
	shift 3
	if [[ ! -x "$TOOLS_CACHE/$name-$version" ]]; then
		command -v go >/dev/null || die "go not found (expected in /usr/local/go/bin); it builds $name"
		tmp=$(mktemp -d)
		(cd "$tmp" && GOBIN="$tmp" GOWORK=off GOFLAGS='' go install "$@" "$pkg@$version") >&2
		mkdir -p "$TOOLS_CACHE"
		mv "$tmp/$name" "$TOOLS_CACHE/$name-$version.tmp" && mv "$TOOLS_CACHE/$name-$version.tmp" "$TOOLS_CACHE/$name-$version"
		rm -rf "$tmp"
	fi
	echo "$TOOLS_CACHE/$name-$version"
}
