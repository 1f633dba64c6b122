#!/usr/bin/env bash
# Builds Sundial (Release, in build/) and runs the server in the foreground
# with the default config, conf/sundial.conf: port 4242, data in ./data
# (created on first start). No root needed. Ctrl-C stops it cleanly.
#
# Usage: scripts/run.sh [sundiald options...]   e.g. --port 4243 --data-dir /srv/sundial
# Extra options override the config file; `build/sundiald --help` lists them.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${SUNDIAL_JOBS:-$(nproc 2>/dev/null || echo 2)}
generator=()
if [ ! -f build/CMakeCache.txt ] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs" --target sundiald

config=()
[ -f conf/sundial.conf ] && config=(--config conf/sundial.conf)
exec build/sundiald "${config[@]}" "$@"
