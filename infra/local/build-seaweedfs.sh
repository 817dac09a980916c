#!/usr/bin/env bash
# Builds SeaweedFS' `weed` (the S3-compatible object store that backup tests and `npm run dev`
# run) with `go build` from the Go module proxy, cached by version outside the repository. A
# second run with the same version builds nothing.
#
# Usage: infra/local/build-seaweedfs.sh       prints the binary's path on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/seaweedfs-<version>/bin/weed
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=go-build-cache.sh
source "$here/go-build-cache.sh"
root=$(cache_root "seaweedfs-$SEAWEEDFS_VERSION")
binary="$root/bin/weed"

have_weed() { [ -x "$binary" ]; }
build_once have_weed "$binary"

mkdir -p "$root/bin" "$root/mod"
# SeaweedFS' own go.mod replaces go-bip39; a replace in a dependency is ignored, so it is
# repeated here.
cat >"$root/mod/go.mod" <<MOD
module knredis.local/seaweedfs

go 1.26.6

require github.com/seaweedfs/seaweedfs $SEAWEEDFS_VERSION

replace github.com/tyler-smith/go-bip39 => github.com/cosmos/go-bip39 v1.0.0
MOD
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/seaweedfs/seaweedfs/weed"\n' >"$root/mod/tools.go"
log "resolving github.com/seaweedfs/seaweedfs $SEAWEEDFS_VERSION"
(cd "$root/mod" && go mod tidy -e >/dev/null 2>"$root/mod/tidy.log" || { cat "$root/mod/tidy.log" >&2; exit 1; })
log "downloading modules ..."
(cd "$root/mod" && go mod download)
# go build prints nothing for minutes (a cold build of weed compiles ~1,000 packages): a line
# every 30 s shows it is alive.
log "go build weed (a cold build takes several minutes) ..."
(while sleep 30; do log "still building weed ..."; done) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || true' EXIT
(cd "$root/mod" && go build -trimpath -ldflags "-s -w" -o "$binary.tmp" github.com/seaweedfs/seaweedfs/weed)
kill "$ticker" 2>/dev/null || true
mv "$binary.tmp" "$binary"
printf '{"seaweedfs":"%s","seconds":%d,"cores":%d,"bytes":%d,"finishedAt":"%s"}\n' \
  "$SEAWEEDFS_VERSION" $((SECONDS - build_started)) "$(nproc)" "$(stat -c %s "$binary")" \
  "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$root/build-time.json"
log "built in $((SECONDS - build_started))s"
echo "$binary"
