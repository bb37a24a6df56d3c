#!/usr/bin/env bash
# stop.sh - what `make stop` calls: stop the background components that
# deps.sh started (recorded in .data/pids/started-by-deps), newest first.
# A Postgres or Redis that was already running when deps.sh looked (a system
# service, another project's) was never recorded, so it is left alone.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# Drop records of processes that are already gone.
prune_started

if [[ ! -s "$STARTED_FILE" ]]; then
	log "nothing to stop (no running component was started by deps.sh)"
	exit 0
fi

# Reverse order: MinIO and Kafka before Redis and Postgres.
mapfile -t names < <(tac "$STARTED_FILE")
for name in "${names[@]}"; do
	[[ -n "$name" ]] && stop_component "$name"
done
log "stopped: ${names[*]}"
