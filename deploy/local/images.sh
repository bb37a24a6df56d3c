#!/usr/bin/env bash
# images.sh - build every image (kyc/<target>:$IMAGE_TAG) from
# deploy/Dockerfile, one per target its header lists; where no Docker engine
# answers (our build machines), say so and exit 0.
#
#   IMAGE_TAG=1.4.0 IMAGE_REPO=registry.example.com/kyc deploy/local/images.sh
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

mapfile -t targets < <(sed -n 's/^#   target: \([a-z-]*\) .*/\1/p' "$ROOT/deploy/Dockerfile")
((${#targets[@]})) || die "no targets listed in deploy/Dockerfile"
if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
	log "images: no Docker engine answers here; nothing built (targets: ${targets[*]})"
	exit 0
fi
for t in "${targets[@]}"; do
	log "== ${IMAGE_REPO:-kyc}/$t:${IMAGE_TAG:-dev}"
	DOCKER_BUILDKIT=1 docker build -f "$ROOT/deploy/Dockerfile" --build-arg "SERVICE=$t" -t "${IMAGE_REPO:-kyc}/$t:${IMAGE_TAG:-dev}" "$ROOT"
done
