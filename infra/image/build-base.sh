#!/usr/bin/env bash
# Builds the base image infra/Dockerfile starts from (node:20-bookworm-slim) without an image
# registry: a Debian bookworm minbase root file system from Debian's packages (mmdebstrap) with
# ca-certificates, this machine's own Node 20 binary and its npm (bookworm's nodejs is 18), and
# the user node (1000:1000) the official image has. The root file system is cached by Node
# version outside the repository; the image is imported into podman under the name the
# Dockerfile uses, so `podman build` finds it locally. A second run with the same Node and this
# same script does nothing.
#
# Usage: infra/image/build-base.sh        prints the image's name on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/image-base-bookworm-node-<version>/rootfs.tar
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=image-common.sh
source "$here/image-common.sh"

node_bin=$(command -v node) || die "node is not on PATH (the base image takes this machine's Node 20)"
node_version=$("$node_bin" --version)
[[ $node_version == v20.* ]] || die "node is $node_version here; the base image is node:20 (Node 20 is needed)"
npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd) || die "npm is not on PATH"
[ -f "$npm_dir/package.json" ] || die "npm's package folder was not found beside $(command -v npm)"
need mmdebstrap podman

# The cache key: Node's version and the scripts' content (a change here rebuilds the base).
key="bookworm-node-${node_version#v}-$(cat "$0" "$here/image-common.sh" | sha256sum | cut -c1-12)"
root=$(cache_root "image-base-bookworm-node-${node_version#v}")
tarball="$root/rootfs.tar"

if [ "$(podman image inspect --format '{{index .Labels "knredis.base"}}' "$BASE_IMAGE" 2>/dev/null)" = "$key" ]; then
  echo "$BASE_IMAGE"
  exit 0
fi

build_lock "$root"
started=$SECONDS
bookworm_rootfs "$root" "$key" "ca-certificates, Node $node_version and npm $(npm --version) from this machine" \
  --include=ca-certificates \
  --customize-hook="copy-in $node_bin /usr/local/bin" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules\"" \
  --customize-hook="copy-in $npm_dir /usr/local/lib/node_modules" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  --customize-hook='chroot "$1" groupadd --gid 1000 node' \
  --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node'

say "importing $tarball as $BASE_IMAGE"
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change "LABEL knredis.base=$key" \
  --change 'CMD ["node"]' \
  "$tarball" "$BASE_IMAGE" >/dev/null
say "base image ready in $((SECONDS - started))s"
echo "$BASE_IMAGE"
