#!/usr/bin/env bash
# Builds cert-manager's controller and CA injector (the webhooks' serving certificate of the
# overlays, infra/webhooks/certificate.yaml) with `go build` from the Go module proxy, and
# writes its CRDs beside them, cached by version outside the repository. A second run with the
# same version builds nothing.
#
# CERT_MANAGER_VERSION is the newest release whose binaries are in its root module: later ones
# moved cmd/controller and cmd/cainjector into modules of their own, which the module proxy
# here does not serve. The CRDs come from the module's deploy/crds, Helm templates whose labels
# are filled in here.
#
# Usage: infra/local/build-cert-manager.sh        prints the bin directory on its last line
# Cache: $KNREDIS_CACHE (default ~/.cache/knredis)/cert-manager-<version>/{bin,crds.yaml}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
source "$here/versions.env"
# shellcheck source=go-build-cache.sh
source "$here/go-build-cache.sh"
root=$(cache_root "cert-manager-$CERT_MANAGER_VERSION")
bin="$root/bin"

have_cert_manager() { [ -x "$bin/controller" ] && [ -x "$bin/cainjector" ] && [ -f "$root/crds.yaml" ]; }
build_once have_cert_manager "$bin"

mkdir -p "$bin" "$root/mod"
cat >"$root/mod/go.mod" <<MOD
module knredis.local/cert-manager

go 1.26.0

require github.com/cert-manager/cert-manager $CERT_MANAGER_VERSION
MOD
printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "github.com/cert-manager/cert-manager/cmd/cainjector"\n\t_ "github.com/cert-manager/cert-manager/cmd/controller"\n)\n' >"$root/mod/tools.go"
log "resolving github.com/cert-manager/cert-manager $CERT_MANAGER_VERSION"
(cd "$root/mod" && go mod tidy -e >/dev/null 2>"$root/mod/tidy.log" || { cat "$root/mod/tidy.log" >&2; exit 1; })
for cmd in controller cainjector; do
  log "go build $cmd ..."
  (cd "$root/mod" && go build -trimpath -ldflags "-s -w" -o "$bin/$cmd.tmp" "github.com/cert-manager/cert-manager/cmd/$cmd")
  mv "$bin/$cmd.tmp" "$bin/$cmd"
done
module_dir=$(cd "$root/mod" && go list -m -f '{{.Dir}}' github.com/cert-manager/cert-manager)
for crd in "$module_dir"/deploy/crds/crd-*.yaml; do
  echo "---"
  sed -e "s/'{{ template \"cert-manager.name\" . }}'/cert-manager/" -e "s/'{{ .Release.Name }}'/cert-manager/" \
    -e '/{{- include/d' "$crd"
done >"$root/crds.yaml.tmp"
if grep -q '{{' "$root/crds.yaml.tmp"; then
  log "the CRDs of $CERT_MANAGER_VERSION hold Helm templates this script does not fill in"
  exit 1
fi
mv "$root/crds.yaml.tmp" "$root/crds.yaml"
printf '{"cert-manager":"%s","seconds":%d,"cores":%d,"finishedAt":"%s"}\n' \
  "$CERT_MANAGER_VERSION" $((SECONDS - build_started)) "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$root/build-time.json"
log "built in $((SECONDS - build_started))s"
echo "$bin"
