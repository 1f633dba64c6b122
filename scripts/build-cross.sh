#!/usr/bin/env bash
# Cross-builds a fully static sundiald for an ARM target, and optionally its
# .debs, on a Debian x86-64 host:
#   pi-zero  Raspberry Pi Zero / Zero W / Pi 1 (ARMv6KZ), build-pi-zero/;
#            Raspberry Pi OS 32-bit and Debian armel. Needs
#            `sudo scripts/install-deps.sh --pi-zero` once.
#   arm64    64-bit ARM (aarch64): Pi 3/4/5 and Zero 2 with a 64-bit OS,
#            arm64 servers, build-arm64/. Needs once (not in install-deps.sh,
#            as no CI stage builds it): `sudo dpkg --add-architecture arm64 &&
#            sudo apt-get update && sudo apt-get install g++-aarch64-linux-gnu
#            qemu-user`.
#
# Usage: scripts/build-cross.sh --target pi-zero|arm64 [--test] [--smoke] [--package]
#   --test     also run the unit and integration tests under qemu
#   --smoke    also run sundiald under qemu: --version, then a server on
#              127.0.0.1 probed with sundiald --health
#   --package  also build the .debs, build-<target>/sundial_<version>_<arch>.deb
#              (pi-zero: the same static binary labelled armhf and armel;
#              arm64: arm64), checked with lintian when it is installed
#
# Every executable built is checked: statically linked, for the target's CPU
# (pi-zero: readelf Tag_CPU_arch v6KZ and no Thumb-2, which an ARM1176
# cannot run; arm64: an ARM aarch64 ELF). scripts/build-pi-zero.sh is
# `build-cross.sh --target pi-zero`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

target='' run_tests=0 smoke=0 package=0
while [ $# -gt 0 ]; do
  case "$1" in
    --target) [ $# -ge 2 ] || { echo "build-cross.sh: --target needs a value" >&2; exit 2; }
              target=$2; shift ;;
    --target=*) target=${1#--target=} ;;
    --test) run_tests=1 ;;
    --smoke) smoke=1 ;;
    --package) package=1 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "build-cross.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

die() { echo "build-cross.sh: $*" >&2; exit 1; }

# Per target: the Debian architecture whose static libraries are linked, the
# cross compiler, the toolchain file, the emulator and the package labels.
case "$target" in
  pi-zero)
    deb_arch=armel cxx=arm-linux-gnueabi-g++ toolchain=armv6-pi-zero.cmake
    qemu=(qemu-arm -cpu arm1176) labels=(armhf armel)
    install='sudo scripts/install-deps.sh --pi-zero' ;;
  arm64)
    deb_arch=arm64 cxx=aarch64-linux-gnu-g++ toolchain=aarch64-static.cmake
    qemu=(qemu-aarch64) labels=(arm64)
    install='sudo dpkg --add-architecture arm64 && sudo apt-get update &&
      sudo apt-get install g++-aarch64-linux-gnu qemu-user' ;;
  '') die "which target? --target pi-zero or --target arm64 (try --help)" ;;
  *) die "unknown target '$target' (pi-zero or arm64)" ;;
esac
build=build-$target
jobs=${SUNDIAL_JOBS:-$(nproc 2>/dev/null || echo 2)}

command -v "$cxx" >/dev/null ||
  die "$cxx missing; run: $install"
# (Not `dpkg ... | grep -q`: grep stops reading at the first match, and under
# pipefail dpkg's SIGPIPE would fail the test.)
[[ $'\n'"$(dpkg --print-foreign-architectures)"$'\n' == *$'\n'"$deb_arch"$'\n'* ]] ||
  die "apt does not know the $deb_arch architecture; run: $install"

# The target's static libraries, unpacked into the build directory rather
# than installed (see install-deps.sh). Headers are the same as the native ones.
debs=()
for p in libzstd-dev zlib1g-dev libhttp-parser-dev libre2-dev libsnappy-dev libgtest-dev libgmock-dev; do
  debs+=("$p:$deb_arch")
done
deb_root=$root/$build/$deb_arch-root
stamp="$deb_root/.unpacked ${debs[*]}"
if [ ! -f "$deb_root/.unpacked" ] || [ "$(cat "$deb_root/.unpacked")" != "$stamp" ]; then
  echo "-- downloading ${debs[*]}"
  rm -rf "$deb_root" "$build/$deb_arch-debs"
  mkdir -p "$deb_root" "$build/$deb_arch-debs"
  (cd "$build/$deb_arch-debs" && apt-get download "${debs[@]}") ||
    die "apt-get download failed; run: $install"
  for deb in "$build/$deb_arch-debs"/*.deb; do
    dpkg-deb -x "$deb" "$deb_root"
  done
  echo "$stamp" > "$deb_root/.unpacked"
fi

generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
# The unit tests are built only when they are to run.
testing=OFF
[ "$run_tests" -eq 0 ] || testing=ON
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$root/scripts/cmake/$toolchain" \
  -DSUNDIAL_DEB_ROOT="$deb_root" -DSUNDIAL_BENCH=OFF -DBUILD_TESTING="$testing"
cmake --build "$build" -j "$jobs"

# check_cpu <exe>: dies unless <exe> is code for the target's CPU.
check_cpu() {
  local attrs
  case "$target" in
    pi-zero)
      attrs=$(readelf -A "$1")
      grep -q 'Tag_CPU_arch: v6KZ' <<<"$attrs" ||
        die "$1: Tag_CPU_arch is not v6KZ: $(grep Tag_CPU_arch: <<<"$attrs")"
      ! grep -q 'Thumb-2' <<<"$attrs" ||
        die "$1: contains Thumb-2 code, which an ARM1176 cannot run" ;;
    arm64)
      readelf -h "$1" | grep -qE 'Machine: +AArch64' || die "$1: not an AArch64 executable" ;;
  esac
}
checked=0
while IFS= read -r -d '' exe; do
  head -c 4 "$exe" | grep -q $'\x7fELF' || continue
  check_cpu "$exe"
  file -b "$exe" | grep -q 'statically linked' || die "$exe: not statically linked"
  checked=$((checked + 1))
done < <(find "$build" -path "$build/$deb_arch-root" -prune -o -type f -perm -u+x \
           ! -name '*.so*' ! -path '*/CMakeFiles/*' -print0)
[ "$checked" -gt 0 ] || die "no executables found in $build"
echo "-- $checked executables: static, for $target"
[ -x "$build/sundiald" ] && ls -l "$build/sundiald"

if [ "$run_tests" -eq 1 ]; then
  command -v "${qemu[0]}" >/dev/null ||
    die "${qemu[0]} missing; run: $install"
  qemu_version=$("${qemu[0]}" --version | sed -nE '1s/.*version ([0-9]+).*/\1/p')
  if [ "$target" = pi-zero ] && [ "${qemu_version:-0}" -lt 10 ]; then
    echo "-- WARNING: ${qemu[0]} $qemu_version maps wrong data at mmap offsets >= 4 GiB;" \
         "tests of files that large are not trustworthy under it (qemu 10 is)"
  fi
  # Under emulation everything is about ten times slower.
  if [ -e "/proc/sys/fs/binfmt_misc/${qemu[0]}" ]; then
    (cd "$build" && ctest --output-on-failure --no-tests=error -j "$jobs" --timeout 1500)
  else
    # Without binfmt_misc the kernel cannot exec an ARM program, so tests that
    # start one (the integration tests start sundiald, StorageCrash starts a
    # writer process) fail under plain qemu-user. Run the rest through ctest,
    # and the integration tests with a wrapper that starts sundiald under qemu.
    spawning='^(integration|StorageCrash\..*)$'
    echo "-- without binfmt_misc: skipping tests matching $spawning under ctest"
    (cd "$build" && ctest --output-on-failure --no-tests=error -j "$jobs" --timeout 1500 \
       -E "$spawning")
    if [ -d test/integration ] && [ -x "$build/sundiald" ]; then
      wrapper=$root/$build/sundiald-qemu
      printf '#!/bin/sh\nexec %s %q "$@"\n' "${qemu[*]}" "$root/$build/sundiald" > "$wrapper"
      chmod +x "$wrapper"
      echo "-- integration tests against sundiald under ${qemu[0]}"
      # (test_packaging.py installs the native package: not for this build.)
      python3 -m pytest -q -p no:cacheprovider test/integration --sundiald="$wrapper" \
        --ignore=test/integration/test_packaging.py
    fi
  fi
fi

# The smoke test: the binary starts under qemu, serves on loopback and
# answers its own health probe.
smoke_pid='' smoke_dir=''
smoke_cleanup() {
  if [ -n "$smoke_pid" ] && kill -0 "$smoke_pid" 2>/dev/null; then
    kill "$smoke_pid" 2>/dev/null || true
    wait "$smoke_pid" 2>/dev/null || true
  fi
  [ -z "$smoke_dir" ] || rm -rf "$smoke_dir"
}
if [ "$smoke" -eq 1 ]; then
  command -v "${qemu[0]}" >/dev/null ||
    die "${qemu[0]} missing; run: $install"
  sundiald=$build/sundiald
  echo "-- ${qemu[*]} $sundiald --version: $("${qemu[@]}" "$sundiald" --version)"
  trap smoke_cleanup EXIT
  smoke_dir=$(mktemp -d "${TMPDIR:-/tmp}/sundial-smoke.XXXXXX")
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "${qemu[@]}" "$sundiald" --bind 127.0.0.1 --port "$port" --data-dir "$smoke_dir/data" \
    > "$smoke_dir/log" 2>&1 &
  smoke_pid=$!
  healthy=0
  for _ in $(seq 1 120); do
    kill -0 "$smoke_pid" 2>/dev/null || { cat "$smoke_dir/log" >&2; die "sundiald exited"; }
    if "${qemu[@]}" "$sundiald" --health="http://127.0.0.1:$port/api/version" \
         > "$smoke_dir/health" 2>&1; then
      healthy=1
      break
    fi
    sleep 0.5
  done
  [ "$healthy" -eq 1 ] || { cat "$smoke_dir/log" "$smoke_dir/health" >&2; die "no healthy server"; }
  echo "-- ${qemu[*]} $sundiald --health=http://127.0.0.1:$port/api/version: healthy (exit 0)"
  smoke_cleanup
  smoke_pid='' smoke_dir=''
  trap - EXIT
fi

if [ "$package" -eq 1 ]; then
  # A static binary depends on no library, so for pi-zero one binary serves
  # both userlands; only the label (which dpkg checks) differs.
  rm -f "$build"/sundial_*.deb
  for arch in "${labels[@]}"; do
    (cd "$build" && cpack -G DEB -D CPACK_DEBIAN_PACKAGE_ARCHITECTURE="$arch")
  done
  ls -l "$build"/sundial_*.deb
  # Keep them lintian-clean (the static build's overrides are in
  # scripts/deb/lintian-overrides-static, each with its reason).
  if command -v lintian >/dev/null; then
    for arch in "${labels[@]}"; do
      for deb in "$build"/sundial_*_"$arch".deb; do
        echo "-- lintian $deb"
        lintian --fail-on error,warning "$deb" || die "lintian found problems in $deb"
      done
    done
  else
    echo "-- lintian not installed; the packages were not checked"
  fi
fi
