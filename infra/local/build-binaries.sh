#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl with
# `go build` from the Go module proxy, and caches them by version outside the repository.
# A second run with the same versions builds nothing.
#
# Usage: infra/local/build-binaries.sh        prints the bin directory on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/k8s-<kube>-etcd-<etcd>/bin
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=go-build-cache.sh
source "$here/go-build-cache.sh"
root=$(cache_root "k8s-$KUBE_VERSION-etcd-$ETCD_VERSION")
bin="$root/bin"
bins=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl)

have_all() { for b in "${bins[@]}"; do [ -x "$bin/$b" ] || return 1; done; }
build_once have_all "$bin"
mkdir -p "$bin" "$root/kube" "$root/etcd"

# 1: kube. The release's go.mod replaces each staging module with ./staging/..., which is
# not in the published module, so this module replaces each with its published v0.x.y.
kube_minor_patch=${KUBE_VERSION#v1.}         # 37.2
staging_version="v0.$kube_minor_patch"
kube_mod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
mapfile -t staging < <(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$kube_mod" | sort -u)
{
  echo "module knredis.local/kube"
  echo
  echo "go 1.26.0"
  echo
  echo "require k8s.io/kubernetes $KUBE_VERSION"
  echo
  echo "replace ("
  for m in "${staging[@]}"; do echo "	$m => $m $staging_version"; done
  echo ")"
} >"$root/kube/go.mod"
cat >"$root/kube/tools.go" <<GO
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
log "resolving k8s.io/kubernetes $KUBE_VERSION (${#staging[@]} staging modules at $staging_version)"
(cd "$root/kube" && go mod tidy -e >/dev/null 2>"$root/kube/tidy.log" || { cat "$root/kube/tidy.log" >&2; exit 1; })

minor=${kube_minor_patch%%.*}
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
ldflags="-s -w"
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
done
for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  [ -x "$bin/$cmd" ] && continue
  log "go build $cmd ..."
  (cd "$root/kube" && go build -trimpath -ldflags "$ldflags" -o "$bin/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd")
  mv "$bin/$cmd.tmp" "$bin/$cmd"
  log "built $cmd"
done

# 2: etcd, from its own small module.
if [ ! -x "$bin/etcd" ]; then
  cat >"$root/etcd/go.mod" <<MOD
module knredis.local/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
MOD
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"$root/etcd/tools.go"
  log "resolving go.etcd.io/etcd/server/v3 $ETCD_VERSION"
  (cd "$root/etcd" && go mod tidy -e >/dev/null 2>"$root/etcd/tidy.log" || { cat "$root/etcd/tidy.log" >&2; exit 1; })
  log "go build etcd ..."
  (cd "$root/etcd" && go build -trimpath -ldflags "-s -w" -o "$bin/etcd.tmp" go.etcd.io/etcd/server/v3)
  mv "$bin/etcd.tmp" "$bin/etcd"
  log "built etcd"
fi
have_all || { log "some binaries are missing in $bin"; exit 1; }
# The record test/bench/local.ts reports as the cold build time (only a real build writes it).
printf '{"kube":"%s","etcd":"%s","seconds":%d,"cores":%d,"finishedAt":"%s"}\n' \
  "$KUBE_VERSION" "$ETCD_VERSION" $((SECONDS - build_started)) "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$root/build-time.json"
log "built in $((SECONDS - build_started))s"
echo "$bin"
