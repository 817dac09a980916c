#!/usr/bin/env bash
# `npm run image`: the knredis image built from infra/Dockerfile with podman, on a machine with
# no image registry: the base image is built first (build-base.sh, cached), then the
# Dockerfile's stages run with podman's layer cache, so a second run with nothing changed only
# checks the layers. The containers of the build reach no npm registry here, so npm ci takes
# every package from this machine's npm cache (~/.npm, which `npm ci` on the host fills),
# mounted as an overlay: the build reads it and writes nothing back.
#
# Usage: infra/image/build-image.sh      the image's name, size and build time on its last line
#                                        as JSON: {"image":...,"sizeBytes":...,"seconds":...}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=image-common.sh
source "$here/image-common.sh"
need podman runc
started=$SECONDS

bash "$here/build-base.sh" >/dev/null

npm_cache=$(npm config get cache 2>/dev/null || echo "$HOME/.npm")
[ -d "$npm_cache/_cacache" ] || die "npm's cache ($npm_cache) is empty: run npm ci in the repository first"

say "podman build -f infra/Dockerfile -t $IMAGE -t $IMAGE_RELEASE (offline npm ci from $npm_cache)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! podman build "${PODMAN_RUN_FLAGS[@]}" --layers \
  --build-arg npm_config_offline=true --volume "$npm_cache:/root/.npm:O" \
  -f "$repo/infra/Dockerfile" -t "$IMAGE" -t "$IMAGE_RELEASE" "$repo" >"$log" 2>&1; then
  tail -30 "$log" >&2
  grep -q ENOTCACHED "$log" && say "a package of package-lock.json is not in $npm_cache: run npm ci on this machine first"
  die "podman build failed"
fi

size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
seconds=$((SECONDS - started))
say "$IMAGE ($IMAGE_RELEASE): $((size / 1000000)) MB, built in ${seconds}s"
printf '{"image":"%s","sizeBytes":%d,"seconds":%d}\n' "$IMAGE" "$size" "$seconds"
