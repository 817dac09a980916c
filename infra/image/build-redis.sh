#!/usr/bin/env bash
# Builds the Redis images the RedisCluster pods name (redis:<version>, shared/core/api/versions.ts)
# without an image registry, for the local kubelet's container runtime: a Debian bookworm minbase
# root file system with Debian's redis-server, laid out as the official image is: the user redis
# (999:999), WORKDIR /data owned by it, port 6379, and an entry point that runs redis-server when
# the first argument is an option or a .conf file.
#
# Every tag holds the same Redis: Debian bookworm's (7.0), as the process runtime runs this
# machine's redis-server for every tag. The label knredis.redis-version says which it is; a
# version roll in the local environment changes the pods' image, not the Redis in it.
#
# Usage: infra/image/build-redis.sh        prints the images' names on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/image-redis-bookworm/rootfs.tar
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=image-common.sh
source "$here/image-common.sh"
need mmdebstrap podman

tags=(7.0 7.2 7.4)
images=()
for tag in "${tags[@]}"; do images+=("docker.io/library/redis:$tag"); done

# The cache key: the scripts' content (a change here rebuilds the images).
key="bookworm-$(cat "$0" "$here/image-common.sh" "$here/redis-entrypoint.sh" | sha256sum | cut -c1-12)"
root=$(cache_root image-redis-bookworm)
tarball="$root/rootfs.tar"

built() {
  local image
  for image in "${images[@]}"; do
    [ "$(podman image inspect --format '{{index .Labels "knredis.redis"}}' "$image" 2>/dev/null)" = "$key" ] || return 1
  done
}
if built; then
  echo "${images[*]}"
  exit 0
fi

build_lock "$root"
started=$SECONDS
# The user comes first, with the official image's ids: redis-server's postinst keeps a user that
# exists. The essential packages have no useradd yet, so its lines are written as useradd would.
bookworm_rootfs "$root" "$key" "redis-server" \
  --include=redis-server \
  --essential-hook='echo "redis:x:999:" >>"$1/etc/group"' \
  --essential-hook='echo "redis:x:999:999::/data:/usr/sbin/nologin" >>"$1/etc/passwd"' \
  --customize-hook='mkdir -p "$1/data" && chroot "$1" chown redis:redis /data' \
  --customize-hook="copy-in $here/redis-entrypoint.sh /usr/local/bin" \
  --customize-hook='mv "$1/usr/local/bin/redis-entrypoint.sh" "$1/usr/local/bin/docker-entrypoint.sh"' \
  --customize-hook='chmod 0755 "$1/usr/local/bin/docker-entrypoint.sh"'

# awk reads to the end: tar, cut off early, would fail the pipeline.
package=$(tar -xOf "$tarball" ./var/lib/dpkg/status |
  awk '/^Package: / { p = ($2 == "redis-server") } p && /^Version: / && !v { v = $2 } END { print v }')
version=${package#*:}
version=${version%%-*}
[ -n "$package" ] || die "redis-server is not in $tarball"
say "importing $tarball (redis-server $package) as ${images[*]}"
first=${images[0]}
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'WORKDIR /data' \
  --change 'EXPOSE 6379' \
  --change "LABEL knredis.redis=$key" \
  --change "LABEL knredis.redis-version=$version" \
  --change "LABEL knredis.redis-package=redis-server=$package" \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["redis-server"]' \
  "$tarball" "$first" >/dev/null
for image in "${images[@]:1}"; do podman tag "$first" "$image"; done
say "Redis images ready in $((SECONDS - started))s"
echo "${images[*]}"
