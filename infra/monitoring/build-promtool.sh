#!/usr/bin/env bash
# Builds promtool (Prometheus' rule checker and rule unit tester) with `go install` from the Go
# module proxy, cached by version outside the repository; a second run builds nothing.
# Usage: infra/monitoring/build-promtool.sh     prints the path of promtool on its last line
set -euo pipefail
version=v0.316.0
root="${KNREDIS_CACHE:-$HOME/.cache/knredis}/promtool-$version"
bin="$root/bin/promtool"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mkdir -p "$root"
exec 9>"$root/.build.lock"
flock 9
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
command -v go >/dev/null || { echo "build-promtool: go is not on PATH (Go >= 1.26 is needed)" >&2; exit 1; }
started=$SECONDS
echo "build-promtool: go install github.com/prometheus/prometheus/cmd/promtool@$version (a few minutes, once)" >&2
GOBIN="$root/bin" GOFLAGS=-trimpath GOTOOLCHAIN=local CGO_ENABLED=0 \
  go install -ldflags='-s -w' "github.com/prometheus/prometheus/cmd/promtool@$version"
echo "build-promtool: built in $((SECONDS - started)) s" >&2
echo "$bin"
