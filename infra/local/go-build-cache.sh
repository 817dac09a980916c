# Sourced by the build-*.sh scripts: the cache directory of one `go build` and its lock.
#   root=$(cache_root NAME)         $KNREDIS_CACHE (default ~/.cache/knredis)/NAME
#   build_once HAVE_FN OUTPUT       exits printing OUTPUT when HAVE_FN says it is built; otherwise
#                                   holds the build's lock and returns, ready for go build
#   log MESSAGE                     a line with the time since the build started (a go build
#                                   takes minutes and prints nothing)
build_name=$(basename "$0" .sh)

cache_root() { echo "${KNREDIS_CACHE:-$HOME/.cache/knredis}/$1"; }

build_once() {
  local have=$1 output=$2
  if "$have"; then echo "$output"; exit 0; fi
  # One build at a time per cache directory (local:up and npm test may both ask); the second
  # waits and then finds the build.
  mkdir -p "$root"
  exec 9>"$root/.build.lock"
  if ! flock -n 9; then
    printf '%s: another build of %s is running; waiting for it\n' "$build_name" "$root" >&2
    flock 9
  fi
  if "$have"; then echo "$output"; exit 0; fi
  build_started=$SECONDS
  command -v go >/dev/null || { echo "$build_name: go is not on PATH (Go >= 1.26 is needed)" >&2; exit 1; }
  export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
}

log() {
  printf '%s [%dm%02ds]: %s\n' "$build_name" $(((SECONDS - build_started) / 60)) $(((SECONDS - build_started) % 60)) "$*" >&2
}
