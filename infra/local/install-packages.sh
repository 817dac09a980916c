#!/usr/bin/env bash
# Debian packages the local environment and the tests use: redis-server (pods, the queue),
# redis-tools (redis-cli, the migration benchmark's baseline), chromium (the dashboard test),
# openssl (certificates). Installs only what is missing; needs root (or sudo).
set -euo pipefail
need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v redis-cli >/dev/null || need+=(redis-tools)
command -v chromium >/dev/null || need+=(chromium)
command -v openssl >/dev/null || need+=(openssl)
command -v go >/dev/null || { echo "install-packages: Go >= 1.26 must be on PATH" >&2; exit 1; }
[ ${#need[@]} -eq 0 ] && { echo "install-packages: all present"; exit 0; }
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q "${need[@]}"
