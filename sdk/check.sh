#!/usr/bin/env bash
# check.sh - fail when the SDKs' committed generated code differs from what
# sdk/generate.sh makes of api/openapi.yaml now (make test runs it): an
# /api/v1 change must come with regenerated SDKs. Generates into a scratch
# folder; the work tree is left as it is.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ROOT/sdk/generate.sh" "$tmp"
stale=0
for f in sdk/go/kycapi/kycapi.gen.go sdk/typescript/src/schema.ts; do
	if ! cmp -s "$tmp/$f" "$ROOT/$f"; then
		echo "$f differs from what api/openapi.yaml generates (the first lines of the difference):"
		diff -u "$ROOT/$f" "$tmp/$f" | head -n 40 || true
		stale=1
	fi
done
((stale == 0)) || { echo "the SDKs are out of date: run sdk/generate.sh and commit what it changes" >&2; exit 1; }
echo "SDKs: generated code up to date"
