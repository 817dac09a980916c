# Sourced by the infra/image/*.sh scripts: names, the cache and podman's flags on this machine.
#   root=$(cache_root NAME)    $KNREDIS_CACHE (default ~/.cache/knredis)/NAME
#   say MESSAGE / die MESSAGE  a line on stderr named after the script (die exits 1)
#   need COMMAND...            dies naming the Debian package of each missing command
#   build_lock ROOT            holds ROOT/.build.lock until the script exits (one build at a time)
#   bookworm_rootfs ROOT KEY WHAT MMDEBSTRAP_ARGS...
#                              ROOT/rootfs.tar, a Debian bookworm minbase, unless one made for KEY is there
script_name=$(basename "$0" .sh)

# The name infra/Dockerfile's FROM resolves to, and the names of the built image: knredis:dev,
# and the tag the manifests' overlays set (infra/overlays/*/kustomization.yaml: knredis:0.1.0).
BASE_IMAGE=docker.io/library/node:20-bookworm-slim
IMAGE=localhost/knredis:dev
IMAGE_RELEASE=localhost/knredis:0.1.0

# runc, not crun: crun fails on hybrid cgroup-v1 hosts such as these. Raising rlimits is not
# allowed in this sandbox, so the containers keep the limits they are given here.
PODMAN_RUN_FLAGS=(--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)

cache_root() { echo "${KNREDIS_CACHE:-$HOME/.cache/knredis}/$1"; }
say() { printf '%s: %s\n' "$script_name" "$*" >&2; }
die() {
  say "$*"
  exit 1
}
need() {
  local command
  for command in "$@"; do
    command -v "$command" >/dev/null || die "$command is not on PATH (Debian package: $command; npm test's set-up installs it)"
  done
}

build_lock() {
  mkdir -p "$1"
  exec 9>"$1/.build.lock"
  flock 9
}

# Makes ROOT/rootfs.tar with mmdebstrap: a Debian bookworm minbase with the packages and hooks in
# the arguments, without documentation, manual pages and translations (as the slim images leave
# them out), unless the one there was made for KEY. WHAT says what it holds, in the progress line.
# The caller holds ROOT/.build.lock.
bookworm_rootfs() {
  local root=$1 key=$2 what=$3
  shift 3
  local tarball="$root/rootfs.tar"
  if [ -f "$tarball" ] && [ "$(cat "$root/key" 2>/dev/null)" = "$key" ]; then return 0; fi
  say "mmdebstrap bookworm minbase + $what"
  rm -rf "$tarball.tmp"
  mmdebstrap --mode=root --format=tar --variant=minbase \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    "$@" bookworm "$tarball.tmp" >"$root/mmdebstrap.log" 2>&1 || {
    tail -20 "$root/mmdebstrap.log" >&2
    die "mmdebstrap failed (the whole log: $root/mmdebstrap.log)"
  }
  mv "$tarball.tmp" "$tarball"
  echo "$key" >"$root/key"
}
