#!/usr/bin/env bash
# Installs everything Sundial needs to build, run and test, from Debian/Ubuntu
# packages. Idempotent; run as root (or via sudo).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  exec sudo -E "$0" "$@"
fi

export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake ninja-build pkg-config
  libasio-dev libzstd-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libhttp-parser-dev zlib1g-dev
  libgtest-dev libgmock-dev
  clang libclang-rt-14-dev
  python3 python3-pytest curl netcat-openbsd
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
