#!/usr/bin/env bash
# Builds the image a RedisCluster's exporter sidecar names (oliver006/redis_exporter:<version>,
# shared/core/resources/statefulset.ts) without an image registry, for the local kubelet's
# container runtime. It is laid out as the upstream image is: FROM scratch, the static binary at
# /redis_exporter (infra/local/build-exporter.sh builds it with CGO_ENABLED=0), the CA bundle at
# /etc/ssl/certs, user 59000:59000, port 9121, ENTRYPOINT ["/redis_exporter"].
#
# Usage: infra/image/build-exporter.sh        prints the image's name on its last line
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=image-common.sh
source "$here/image-common.sh"
# shellcheck source=../local/versions.env
source "$here/../local/versions.env"
need podman

image="docker.io/oliver006/redis_exporter:$REDIS_EXPORTER_VERSION"
binary=$(bash "$here/../local/build-exporter.sh" | tail -1)
[ -x "$binary" ] || die "infra/local/build-exporter.sh made no binary at $binary"

# The cache key: this script and the binary (a rebuilt exporter makes a new image).
key="$(cat "$0" "$binary" | sha256sum | cut -c1-12)"
if [ "$(podman image inspect --format '{{index .Labels "knredis.exporter"}}' "$image" 2>/dev/null)" = "$key" ]; then
  echo "$image"
  exit 0
fi

root=$(cache_root image-redis-exporter)
build_lock "$root"
started=$SECONDS
staging="$root/rootfs"
rm -rf "$staging" && mkdir -p "$staging/etc/ssl/certs" "$staging/tmp"
cp "$binary" "$staging/redis_exporter"
# The exporter verifies a TLS node against the CA a pod mounts; the bundle is for anything else.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then cp /etc/ssl/certs/ca-certificates.crt "$staging/etc/ssl/certs/"; fi
printf 'hosts: files dns\n' >"$staging/etc/nsswitch.conf"
chmod 1777 "$staging/tmp"
tar --numeric-owner --owner=0 --group=0 -C "$staging" -cf "$root/rootfs.tar" .
say "importing $root/rootfs.tar as $image"
podman import --quiet \
  --change 'USER 59000:59000' \
  --change 'EXPOSE 9121' \
  --change "LABEL knredis.exporter=$key" \
  --change "LABEL knredis.exporter-version=$REDIS_EXPORTER_VERSION" \
  --change 'ENTRYPOINT ["/redis_exporter"]' \
  "$root/rootfs.tar" "$image" >/dev/null
say "exporter image ready in $((SECONDS - started))s"
echo "$image"
