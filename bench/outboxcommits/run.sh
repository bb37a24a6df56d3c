#!/bin/sh
# run.sh - outbox commits a second with pgbench: a writer that NOTIFYs in
# every transaction (outbox.Add before issue 30) against one that
# takes the writers' lock and NOTIFYs only if the relay is idle, here
# with the relay busy (idle = false). 16 clients, 5 s, one ~1.6 KB event a
# transaction; 3 rounds, alternating. Run under the shared benchmark lock:
#   flock /tmp/kyc-heavy.lock bench/outboxcommits/run.sh
set -eu
U=${PGURL:-postgres://postgres:postgres@127.0.0.1:5432}
cd "$(dirname "$0")"
psql -q "$U/postgres" -c 'DROP DATABASE IF EXISTS kyc_outboxcommits' -c 'CREATE DATABASE kyc_outboxcommits'
for round in 1 2 3; do
  for which in notify-always notify-if-idle; do
    psql -q "$U/kyc_outboxcommits" -f setup.sql >/dev/null 2>&1
    psql -q "$U/kyc_outboxcommits" -c CHECKPOINT
    echo "$which round $round $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    pgbench -n -c 16 -j 2 -T 5 -f $which.sql "$U/kyc_outboxcommits" 2>&1 | grep -E 'tps|latency average'
  done
done
psql -q "$U/postgres" -c 'DROP DATABASE kyc_outboxcommits'
