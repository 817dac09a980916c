# Sourced by the infra/image/*.sh scripts: names, the cache and podman's flags on this machine.
#   root=$(cache_root NAME)    $KNREDIS_CACHE (default ~/.cache/knredis)/NAME
#   say MESSAGE / die MESSAGE  a line on stderr named after the script (die exits 1)
#   need COMMAND...            dies naming the Debian package of each missing command
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
