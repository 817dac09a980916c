#!/usr/bin/env bash
# Builds Knative's ApiServerSource adapter and the eventing and serving webhooks with
# `go build` from the Go module proxy, caches them by version outside the repository, and copies
# the CRDs and ConfigMaps of both releases (their config/core folders) beside them.
# A second run with the same version builds nothing.
#
# Usage: infra/local/build-knative.sh        prints the Knative directory on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/knative-<version>/{bin,config}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=go-build-cache.sh
source "$here/go-build-cache.sh"
root=$(cache_root "knative-$KNATIVE_VERSION")
bin="$root/bin"
bins=(apiserver_receive_adapter eventing-webhook serving-webhook)

have_all() {
  for b in "${bins[@]}"; do [ -x "$bin/$b" ] || return 1; done
  [ -d "$root/config/eventing" ] && [ -d "$root/config/serving" ]
}
build_once have_all "$root"
mkdir -p "$bin" "$root/mod"

# One module requires both releases: their shared dependencies (knative.dev/pkg, client-go,
# golang.org/x/time, ...) resolve to one version each, so the second and third builds reuse
# the first one's build cache.
cat >"$root/mod/go.mod" <<MOD
module knredis.local/knative

go 1.26.0

require (
	knative.dev/eventing $KNATIVE_VERSION
	knative.dev/serving $KNATIVE_VERSION
)
MOD
cat >"$root/mod/tools.go" <<GO
//go:build tools

package tools

import (
	_ "knative.dev/eventing/cmd/apiserver_receive_adapter"
	_ "knative.dev/eventing/cmd/webhook"
	_ "knative.dev/serving/cmd/webhook"
)
GO
log "resolving knative.dev/eventing and knative.dev/serving $KNATIVE_VERSION"
(cd "$root/mod" && go mod tidy -e >/dev/null 2>"$root/mod/tidy.log" || { cat "$root/mod/tidy.log" >&2; exit 1; })

# name=package; each build's seconds go to build-time.json.
declare -A pkgs=(
  [apiserver_receive_adapter]=knative.dev/eventing/cmd/apiserver_receive_adapter
  [eventing-webhook]=knative.dev/eventing/cmd/webhook
  [serving-webhook]=knative.dev/serving/cmd/webhook
)
times=""
for name in "${bins[@]}"; do
  [ -x "$bin/$name" ] && continue
  log "go build $name ..."
  started=$SECONDS
  (cd "$root/mod" && go build -trimpath -ldflags "-s -w" -o "$bin/$name.tmp" "${pkgs[$name]}")
  mv "$bin/$name.tmp" "$bin/$name"
  times+="\"$name\":$((SECONDS - started)),"
  log "built $name in $((SECONDS - started))s"
done

# The CRDs and ConfigMaps ship in the module zips; copied so the local environment does not
# depend on the Go module cache being kept.
for part in eventing serving; do
  dir=$(cd "$root/mod" && go list -m -f '{{.Dir}}' "knative.dev/$part")
  rm -rf "$root/config/$part.tmp" && mkdir -p "$root/config/$part.tmp"
  cp -r "$dir/config/core/." "$root/config/$part.tmp/"
  chmod -R u+w "$root/config/$part.tmp"
  rm -rf "$root/config/$part" && mv "$root/config/$part.tmp" "$root/config/$part"
done
have_all || { log "something is missing in $root"; exit 1; }
printf '{"knative":"%s","seconds":%d,"builds":{%s},"cores":%d,"finishedAt":"%s"}\n' \
  "$KNATIVE_VERSION" $((SECONDS - build_started)) "${times%,}" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$root/build-time.json"
log "built in $((SECONDS - build_started))s"
echo "$root"
