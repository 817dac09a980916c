#!/usr/bin/env bash
# Builds Prometheus with Kubernetes service discovery, which Debian's prometheus package leaves
# out, with `go build` from the Go module proxy, cached by version outside the repository. The
# in-cluster e2e finds its targets as the Prometheus Operator would configure it from a
# ServiceMonitor (test/support/prometheus.ts: serviceMonitorScrapeConfigs). Every other service
# discovery is compiled out (Prometheus' own build tags remove_all_sd, enable_kubernetes_sd), and
# the web UI's assets are not embedded: the HTTP API is what the tests read. A second run with
# the same version builds nothing.
#
# Usage: infra/local/build-prometheus.sh        prints the binary's path on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/prometheus-<version>/bin/prometheus
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=go-build-cache.sh
source "$here/go-build-cache.sh"
root=$(cache_root "prometheus-$PROMETHEUS_VERSION")
binary="$root/bin/prometheus"

have_prometheus() { [ -x "$binary" ]; }
build_once have_prometheus "$binary"

mkdir -p "$root/bin" "$root/mod"
cat >"$root/mod/go.mod" <<MOD
module knredis.local/prometheus

go 1.26.0

require github.com/prometheus/prometheus $PROMETHEUS_VERSION
MOD
printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/prometheus/prometheus/cmd/prometheus"\n' >"$root/mod/tools.go"
log "resolving github.com/prometheus/prometheus $PROMETHEUS_VERSION"
(cd "$root/mod" && go mod tidy -e >/dev/null 2>"$root/mod/tidy.log" || { cat "$root/mod/tidy.log" >&2; exit 1; })
log "go build prometheus (Kubernetes discovery only) ..."
(cd "$root/mod" && go build -trimpath -tags remove_all_sd,enable_kubernetes_sd -ldflags "-s -w" \
  -o "$binary.tmp" github.com/prometheus/prometheus/cmd/prometheus)
mv "$binary.tmp" "$binary"
printf '{"prometheus":"%s","seconds":%d,"cores":%d,"finishedAt":"%s"}\n' \
  "$PROMETHEUS_VERSION" $((SECONDS - build_started)) "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$root/build-time.json"
log "built in $((SECONDS - build_started))s"
echo "$binary"
