#!/usr/bin/env bash
# stop.sh - `make stop`: stop the components deps.sh started, newest first. A
# Postgres or Redis that was already running when deps.sh looked was never
# recorded, so it is left alone.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

prune_started
[[ -s $STARTED_FILE ]] || { log "nothing to stop (no running component was started by deps.sh)"; exit 0; }
mapfile -t names < <(tac "$STARTED_FILE")
for name in "${names[@]}"; do stop_component "$name"; done
log "stopped: ${names[*]}"
