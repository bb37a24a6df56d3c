#!/usr/bin/env bash
# npm-ci.sh - install the TypeScript SDK's pinned dependencies (package-lock.json)
# into sdk/typescript/node_modules (git-ignored), unless they already are.
# npm's download cache lives outside the clone (~/.cache/kyc/npm), so a
# fresh clone installs from it without the network once it is warm. No
# global install: tsc and openapi-typescript are devDependencies.
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null || { echo "npm not found: the TypeScript SDK needs Node.js 20+ and npm" >&2; exit 1; }
# npm ci writes node_modules/.package-lock.json last; newer than the lock
# file means this lock is installed.
if [[ node_modules/.package-lock.json -nt package-lock.json ]]; then
	exit 0
fi
npm_config_cache="${npm_config_cache:-$HOME/.cache/kyc/npm}" npm ci --no-audit --no-fund --loglevel=error >&2
touch node_modules/.package-lock.json
