#!/usr/bin/env bash
# Builds CoreDNS, the cluster DNS of environments whose pods are containers (kubelet/README.md),
# with `go build` from the Go module proxy, cached by version outside the repository. Only the
# plugins a cluster's DNS uses are compiled in (kubernetes, cache, errors, log, health, ready,
# reload, loadbalance, bind, whoami), in CoreDNS's own order: no cloud back-ends, a third of the
# build. A second run with the same version builds nothing.
#
# Usage: infra/local/build-coredns.sh        prints the binary's path on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/coredns-<version>/bin/coredns
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=go-build-cache.sh
source "$here/go-build-cache.sh"
root=$(cache_root "coredns-$COREDNS_VERSION")
binary="$root/bin/coredns"

have_coredns() { [ -x "$binary" ]; }
build_once have_coredns "$binary"

mkdir -p "$root/bin" "$root/mod"
cat >"$root/mod/go.mod" <<MOD
module knredis.local/coredns

go 1.26.0

require github.com/coredns/coredns $COREDNS_VERSION
MOD
# The plugins' order is CoreDNS's (plugin.cfg): it is the order they handle a query in.
cat >"$root/mod/main.go" <<'GO'
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
	_ "github.com/coredns/coredns/plugin/whoami"
)

func init() {
	dnsserver.Directives = []string{
		"reload", "bind", "ready", "health", "errors", "log", "loadbalance", "cache", "kubernetes", "whoami",
	}
}

func main() { coremain.Run() }
GO
log "resolving github.com/coredns/coredns $COREDNS_VERSION"
(cd "$root/mod" && go mod tidy -e >/dev/null 2>"$root/mod/tidy.log" || { cat "$root/mod/tidy.log" >&2; exit 1; })
log "go build coredns ..."
(cd "$root/mod" && go build -trimpath -ldflags "-s -w" -o "$binary.tmp" .)
mv "$binary.tmp" "$binary"
printf '{"coredns":"%s","seconds":%d,"cores":%d,"finishedAt":"%s"}\n' \
  "$COREDNS_VERSION" $((SECONDS - build_started)) "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$root/build-time.json"
log "built in $((SECONDS - build_started))s"
echo "$binary"
