#!/usr/bin/env bash
# Builds redis_exporter (the binary of the oliver006/redis_exporter image a RedisCluster's
# exporter sidecar runs) with `go build` from the Go module proxy, cached by version outside the
# repository. A second run with the same version builds nothing.
#
# Usage: infra/local/build-exporter.sh        prints the binary's path on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/redis-exporter-<version>/bin/redis_exporter
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=go-build-cache.sh
source "$here/go-build-cache.sh"
root=$(cache_root "redis-exporter-$REDIS_EXPORTER_VERSION")
binary="$root/bin/redis_exporter"

have_exporter() { [ -x "$binary" ]; }
build_once have_exporter "$binary"

mkdir -p "$root/bin" "$root/mod"
cat >"$root/mod/go.mod" <<MOD
module knredis.local/redis-exporter

go 1.26.0

require github.com/oliver006/redis_exporter $REDIS_EXPORTER_VERSION
MOD
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/oliver006/redis_exporter"\n' >"$root/mod/tools.go"
log "resolving github.com/oliver006/redis_exporter $REDIS_EXPORTER_VERSION"
(cd "$root/mod" && go mod tidy -e >/dev/null 2>"$root/mod/tidy.log" || { cat "$root/mod/tidy.log" >&2; exit 1; })
log "go build redis_exporter ..."
# The version the exporter reports (redis_exporter_build_info), as the image's build sets it.
ldflags="-s -w -X main.BuildVersion=$REDIS_EXPORTER_VERSION -X main.BuildCommitSha=module-proxy -X main.BuildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
(cd "$root/mod" && go build -trimpath -ldflags "$ldflags" -o "$binary.tmp" github.com/oliver006/redis_exporter)
mv "$binary.tmp" "$binary"
printf '{"redis_exporter":"%s","seconds":%d,"cores":%d,"finishedAt":"%s"}\n' \
  "$REDIS_EXPORTER_VERSION" $((SECONDS - build_started)) "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$root/build-time.json"
log "built in $((SECONDS - build_started))s"
echo "$binary"
