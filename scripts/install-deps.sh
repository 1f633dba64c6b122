#!/usr/bin/env bash
# Installs everything Sundial needs to build, run and test, from the Debian or
# Ubuntu archive (Debian 12 bookworm, Ubuntu 22.04 and later).
#
# Usage: sudo scripts/install-deps.sh [--build-only | --no-pi-zero | --pi-zero]
#   (default)     compilers, libraries, test tools, clang + libFuzzer; on
#                 x86-64 the i686 cross compiler with the :i386 libraries (the
#                 32-bit test stage); on Debian x86-64 also the Pi Zero set
#                 below (the pi-zero test stage). A cross set that cannot be
#                 installed is reported and its test stage skipped.
#   --build-only  only what building sundiald and its .deb needs (Docker).
#   --no-pi-zero  without the Pi Zero set.
#   --pi-zero     with the Pi Zero set, failing if it cannot be installed: the
#                 armel toolchain, the armel architecture in apt and qemu-user
#                 (Debian only; Ubuntu has no armel archive).
#
# Idempotent: when everything is installed it changes nothing and needs no
# network. Runs as root; re-executes itself through sudo when there is one.
set -euo pipefail

pi_zero=auto build_only=0
for arg in "$@"; do
  case "$arg" in
    --pi-zero) pi_zero=required ;;
    --no-pi-zero) pi_zero=no ;;
    --build-only) build_only=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "install-deps.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo -E "$0" "$@"
  fi
  echo "install-deps.sh: needs root, and sudo is not installed; run it as root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
. /etc/os-release
native_arch=$(dpkg --print-architecture)

# Build and run, for the machine itself.
packages=(
  # toolchain and build
  build-essential cmake ninja-build pkg-config
  # libraries
  libasio-dev libzstd-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libhttp-parser-dev zlib1g-dev libre2-dev libsnappy-dev
  # packaging (.deb via CPack: dpkg-shlibdeps) and binary checks
  dpkg-dev file binutils
)
# Tests.
test_packages=(
  libgtest-dev libgmock-dev python3 python3-pytest curl netcat-openbsd
  # fuzzing (libFuzzer ships with clang's runtime package, added below)
  clang
  # package and container checks (test/integration/test_packaging.py,
  # test_docker_files.py)
  lintian python3-yaml
  # the built-in web page: a real browser (test/integration/test_web_ui.py)
  # and its scripts' unit tests (test/server/ui/*_test.js)
  chromium chromium-driver python3-selenium nodejs
  # ingest benchmark reference server (bench/compare_ingest.sh)
  victoria-metrics
  # disk writes by file under a trickle (bench/sd_writes.sh)
  strace
  # real remote_write and Graphite/OpenTSDB clients
  # (test/integration/test_ingest_remote_clients.py)
  prometheus collectd-core
  # InfluxDB clients (test/integration/test_influx.py): the 1.x client from
  # Debian, and python3-venv for the 2.x client from PyPI (below)
  python3-influxdb python3-venv
)
[ "$build_only" -eq 1 ] || packages+=("${test_packages[@]}")
# 32-bit x86 test stage: a cross compiler (not g++-multilib, which conflicts
# with the ARM cross compilers) plus the :i386 libraries. For zlib and
# http-parser only the runtime: libhttp-parser-dev is not Multi-Arch (its
# :i386 package would replace the native one), and zlib1g-dev:i386 pulls in
# libc6-dev:i386, which apt cannot install when the mirror's i386 security
# index is broken (see apt_update). scripts/cmake/i686-linux-gnu.cmake links
# those two by their .so.N names and takes their (identical) headers from the
# native -dev packages.
i386_packages=(
  g++-i686-linux-gnu
  libzstd-dev:i386 libspdlog-dev:i386 libfmt-dev:i386
  libgtest-dev:i386 libgmock-dev:i386 libhttp-parser2.9:i386 zlib1g:i386
  libre2-dev:i386 libsnappy-dev:i386
)
# Raspberry Pi Zero (ARMv6): the armel toolchain and the armel architecture
# in apt. scripts/build-pi-zero.sh downloads the static :armel libraries it
# links into its own build directory (apt-get download, no install): that
# keeps the native -dev packages untouched (libhttp-parser-dev is not
# Multi-Arch, and the others would drag in a second libc6-dev).
armel_packages=(g++-arm-linux-gnueabi)

installed() {  # installed <package[:arch]>...: true when every one is installed
  local p name arch status
  for p in "$@"; do
    name=${p%%:*}
    arch=$native_arch
    [ "$name" = "$p" ] || arch=${p#*:}
    # One line per installed architecture; "all" counts for the native one.
    status=$(dpkg-query -W -f='${Status} ${Architecture}\n' "$name" 2>/dev/null || true)
    [[ $'\n'"$status"$'\n' =~ $'\n'"install ok installed "($arch|all)$'\n' ]] || return 1
  done
}

not_installed() {  # not_installed <package>...: prints the ones missing
  local p
  for p in "$@"; do installed "$p" || echo "$p"; done
}

available() {  # available <package>: true when apt has an install candidate
  local policy
  policy=$(apt-cache policy "$1" 2>/dev/null)
  [[ "$policy" =~ Candidate:\ [^\(] ]]
}

add_foreign_arch() {  # add_foreign_arch <arch>
  if [ "$native_arch" != "$1" ] && ! dpkg --print-foreign-architectures | grep -qx "$1"; then
    echo "install-deps.sh: adding foreign architecture $1"
    dpkg --add-architecture "$1"
  fi
}

# apt-get update, tolerant of one known mirror fault: on some mirrors a
# foreign architecture's index of one suite (seen: bookworm-security i386 and
# armhf) fails with "File has unexpected size" and apt-get exits 100. The
# native indexes are fine then, so we go on without that one index (packages
# come from the other suites) and say how to silence it for good. A failure
# of a native index is fatal.
apt_update() {
  local log rc attempt bad
  log=$(mktemp)
  for attempt in 1 2; do
    rc=0
    apt-get update 2>&1 | tee "$log" || rc=$?
    [ "$rc" -eq 0 ] && { rm -f "$log"; return 0; }
    [ "$attempt" -eq 1 ] && { echo "install-deps.sh: apt-get update failed; retrying once"; sleep 5; }
  done
  # Architectures of the index files that failed, e.g. "i386".
  bad=$(grep -oE 'Failed to fetch [^ ]*/binary-[a-z0-9]+/' "$log" \
          | sed -E 's|.*/dists/([^/]+)/.*/binary-([a-z0-9]+)/|\2 (\1)|' | sort -u || true)
  rm -f "$log"
  if [ -z "$bad" ] || printf '%s\n' "$bad" | grep -q "^$native_arch "; then
    echo "install-deps.sh: apt-get update failed (exit $rc)" >&2
    return "$rc"
  fi
  echo "install-deps.sh: WARNING: ignoring broken foreign-architecture indexes:" \
       $bad >&2
  echo "install-deps.sh: to silence it, restrict that suite's 'Architectures:' in" \
       "/etc/apt/sources.list.d/*.sources to the ones you need" >&2
}

# qemu-user for running the ARM tests. bookworm's 7.2 truncates 32-bit mmap
# offsets at 4 GiB; bookworm-backports has 10, which is correct. Prefer that.
install_qemu() {
  if [ "${VERSION_CODENAME:-}" = bookworm ]; then
    if [[ "$(apt-cache policy)" != *bookworm-backports/main* ]]; then
      echo "install-deps.sh: adding bookworm-backports (for qemu-user 10)"
      cat > /etc/apt/sources.list.d/bookworm-backports.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
      apt_update
    fi
    if apt-get install -y --no-install-recommends -t bookworm-backports qemu-user; then
      return 0
    fi
    echo "install-deps.sh: WARNING: no qemu-user from bookworm-backports; using" \
         "bookworm's 7.2, which maps wrong data at file offsets >= 4 GiB" >&2
  fi
  apt-get install -y --no-install-recommends qemu-user
}

# Anything to do? (Checked without the network, so a second run is a no-op.)
want_i386=0
[ "$native_arch" = amd64 ] && [ "$build_only" -eq 0 ] && want_i386=1
need=0
installed "${packages[@]}" || need=1
influx_venv=/opt/sundial-test-venv  # see install_influx_client below
if [ "$build_only" -eq 0 ] &&
   ! "$influx_venv/bin/python" -c 'import influxdb_client' 2>/dev/null; then
  need=1
fi
[ "$want_i386" -eq 1 ] && ! installed "${i386_packages[@]}" && need=1
want_pi_zero=0
if [ "$pi_zero" = required ]; then
  if [ "${ID:-}" != debian ]; then
    echo "install-deps.sh: --pi-zero needs Debian (Ubuntu has no armel archive)" >&2
    exit 1
  fi
  want_pi_zero=1
elif [ "$pi_zero" = auto ] && [ "${ID:-}" = debian ] && [ "$want_i386" -eq 1 ]; then
  want_pi_zero=1
fi
if [ "$want_pi_zero" -eq 1 ]; then
  { installed "${armel_packages[@]}" && command -v qemu-arm >/dev/null &&
    [[ "$(dpkg --print-foreign-architectures)" == *armel* ]]; } || need=1
fi
if [ "$need" -eq 0 ]; then
  echo "install-deps.sh: everything is installed"
  exit 0
fi

if [ "$want_i386" -eq 1 ]; then add_foreign_arch i386; fi
if [ "$want_pi_zero" -eq 1 ]; then add_foreign_arch armel; fi
apt_update

# clang's runtime (libFuzzer, sanitizers) is a separate package on newer
# releases: the unversioned name where the archive has it, else the one
# matching clang's version; on older releases it comes with clang.
extra=()
if [ "$build_only" -eq 1 ]; then
  :
elif available libclang-rt-dev; then
  extra+=(libclang-rt-dev)
else
  clang_major=$(apt-cache policy clang | sed -nE 's/.*Candidate: ([0-9]+:)?([0-9]+).*/\2/p')
  if [ -n "$clang_major" ] && available "libclang-rt-$clang_major-dev"; then
    extra+=("libclang-rt-$clang_major-dev")
  fi
fi
# Only what is missing, so a run never upgrades what is already there.
mapfile -t todo < <(not_installed "${packages[@]}" "${extra[@]}")
if [ ${#todo[@]} -gt 0 ]; then
  apt-get install -y --no-install-recommends "${todo[@]}"
fi

# The 32-bit set is optional: Ubuntu builds only part of its archive for
# i386, and scripts/test.sh skips the 32-bit stage when it is absent.
if [ "$want_i386" -eq 1 ]; then
  missing=()
  for p in "${i386_packages[@]}"; do available "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then
    mapfile -t todo < <(not_installed "${i386_packages[@]}")
    if [ ${#todo[@]} -gt 0 ] && ! apt-get install -y --no-install-recommends "${todo[@]}"; then
      # e.g. an :i386 library whose native twin has a version the i386
      # indexes lack (Multi-Arch: same needs both equal).
      echo "install-deps.sh: WARNING: the :i386 packages could not be installed;" \
           "the 32-bit test stage will be skipped" >&2
    fi
  else
    echo "install-deps.sh: WARNING: not in the archive: ${missing[*]};" \
         "the 32-bit test stage will be skipped" >&2
  fi
fi

install_pi_zero() {
  mapfile -t todo < <(not_installed "${armel_packages[@]}")
  if [ ${#todo[@]} -gt 0 ]; then
    apt-get install -y --no-install-recommends "${todo[@]}" || return 1
  fi
  command -v qemu-arm >/dev/null || install_qemu
}
if [ "$want_pi_zero" -eq 1 ] && ! install_pi_zero; then
  if [ "$pi_zero" = required ]; then
    echo "install-deps.sh: the Pi Zero toolchain could not be installed" >&2
    exit 1
  fi
  echo "install-deps.sh: WARNING: the Pi Zero toolchain could not be installed;" \
       "the pi-zero test stage will be skipped" >&2
fi
# The InfluxDB 2.x client (influxdb-client) is not packaged by Debian: it
# goes from PyPI into a venv at a fixed path that test_influx.py looks for.
# Why a venv with --system-site-packages and not pip --break-system-packages:
# it leaves Debian's own Python untouched (no file dpkg owns is replaced),
# still sees the Debian-packaged modules (python3-influxdb, pytest), and
# deleting the directory undoes it.
install_influx_client() {
  # Debian's own interpreter (python3-venv is for it), whatever python3 is
  # first on PATH.
  local py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  [ -x "$influx_venv/bin/python" ] || "$py" -m venv --system-site-packages "$influx_venv" || return 1
  "$influx_venv/bin/python" -c 'import influxdb_client' 2>/dev/null ||
    "$influx_venv/bin/pip" install --disable-pip-version-check -q influxdb-client
}
if [ "$build_only" -eq 0 ] && ! install_influx_client; then
  echo "install-deps.sh: WARNING: influxdb-client could not be installed from PyPI;" \
       "its test in test_influx.py will be skipped" >&2
fi
echo "install-deps.sh: done"
