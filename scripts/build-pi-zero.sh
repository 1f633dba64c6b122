#!/usr/bin/env bash
# Cross-builds Sundial for the Raspberry Pi Zero / Zero W / Pi 1 (ARMv6KZ):
# a fully static build-pi-zero/sundiald that runs on Raspberry Pi OS.
# Needs `sudo scripts/install-deps.sh --pi-zero` once (Debian only).
#
# Usage: scripts/build-pi-zero.sh [--test] [--package]
#   --test     also run the unit and integration tests under qemu-arm -cpu arm1176
#   --package  also build the .debs for the Pi: the same static binary labelled
#              armhf (Raspberry Pi OS) and armel (Debian armel), as
#              build-pi-zero/sundial_<version>_{armhf,armel}.deb, checked
#              with lintian when it is installed
#
# Every executable built is checked with readelf: Tag_CPU_arch must be v6KZ
# and no object may bring Thumb-2 code (which an ARM1176 cannot run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build-pi-zero

run_tests=0 package=0
for arg in "$@"; do
  case "$arg" in
    --test) run_tests=1 ;;
    --package) package=1 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "build-pi-zero.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

die() { echo "build-pi-zero.sh: $*" >&2; exit 1; }

command -v arm-linux-gnueabi-g++ >/dev/null ||
  die "arm-linux-gnueabi-g++ missing; run: sudo scripts/install-deps.sh --pi-zero"
[[ "$(dpkg --print-foreign-architectures)" == *armel* ]] ||
  die "apt does not know the armel architecture; run: sudo scripts/install-deps.sh --pi-zero"

# The static :armel libraries, unpacked into the build directory rather than
# installed (see install-deps.sh). Headers are the same as the native ones.
armel_debs=(libzstd-dev:armel zlib1g-dev:armel libhttp-parser-dev:armel libre2-dev:armel
            libgtest-dev:armel libgmock-dev:armel)
armel_root=$root/$build/armel-root
stamp="$armel_root/.unpacked ${armel_debs[*]}"
if [ ! -f "$armel_root/.unpacked" ] || [ "$(cat "$armel_root/.unpacked")" != "$stamp" ]; then
  echo "-- downloading ${armel_debs[*]}"
  rm -rf "$armel_root" "$build/armel-debs"
  mkdir -p "$armel_root" "$build/armel-debs"
  (cd "$build/armel-debs" && apt-get download "${armel_debs[@]}") ||
    die "apt-get download failed; run: sudo scripts/install-deps.sh --pi-zero"
  for deb in "$build"/armel-debs/*.deb; do
    dpkg-deb -x "$deb" "$armel_root"
  done
  echo "$stamp" > "$armel_root/.unpacked"
fi

generator=()
if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
# The unit tests are built only when they are to run.
testing=OFF
[ "$run_tests" -eq 0 ] || testing=ON
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$root/scripts/cmake/armv6-pi-zero.cmake" \
  -DSUNDIAL_ARMEL_ROOT="$armel_root" -DSUNDIAL_BENCH=OFF -DBUILD_TESTING="$testing"
cmake --build "$build" -j "${SUNDIAL_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# The ARMv6 guard: every ELF executable we built.
checked=0
while IFS= read -r -d '' exe; do
  head -c 4 "$exe" | grep -q $'\x7fELF' || continue
  attrs=$(readelf -A "$exe")
  if ! grep -q 'Tag_CPU_arch: v6KZ' <<<"$attrs"; then
    die "$exe: Tag_CPU_arch is not v6KZ: $(grep Tag_CPU_arch: <<<"$attrs")"
  fi
  if grep -q 'Thumb-2' <<<"$attrs"; then
    die "$exe: contains Thumb-2 code, which an ARM1176 cannot run"
  fi
  if ! file -b "$exe" | grep -q 'statically linked'; then
    die "$exe: not statically linked"
  fi
  checked=$((checked + 1))
done < <(find "$build" -path "$build/armel-root" -prune -o -type f -perm -u+x \
           ! -name '*.so*' ! -path '*/CMakeFiles/*' -print0)
[ "$checked" -gt 0 ] || die "no executables found in $build"
echo "-- $checked executables: ARMv6KZ, no Thumb-2, static"
[ -x "$build/sundiald" ] && ls -l "$build/sundiald"

if [ "$run_tests" -eq 1 ]; then
  command -v qemu-arm >/dev/null ||
    die "qemu-arm missing; run: sudo scripts/install-deps.sh --pi-zero"
  qemu_version=$(qemu-arm --version | sed -nE '1s/.*version ([0-9]+).*/\1/p')
  if [ "${qemu_version:-0}" -lt 10 ]; then
    echo "-- WARNING: qemu-arm $qemu_version maps wrong data at mmap offsets >= 4 GiB;" \
         "tests of files that large are not trustworthy under it (qemu 10 is)"
  fi
  # Under emulation everything is about ten times slower.
  jobs=${SUNDIAL_JOBS:-$(nproc 2>/dev/null || echo 2)}
  if [ -e /proc/sys/fs/binfmt_misc/qemu-arm ]; then
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
      printf '#!/bin/sh\nexec qemu-arm -cpu arm1176 %q "$@"\n' "$root/$build/sundiald" > "$wrapper"
      chmod +x "$wrapper"
      echo "-- integration tests against sundiald under qemu-arm"
      # (test_packaging.py installs the native package: not for this build.)
      python3 -m pytest -q -p no:cacheprovider test/integration --sundiald="$wrapper" \
        --ignore=test/integration/test_packaging.py
    fi
  fi
fi

if [ "$package" -eq 1 ]; then
  # A static binary depends on no library, so one binary serves both
  # userlands; only the label (which dpkg checks) differs.
  rm -f "$build"/sundial_*_arm*.deb
  for arch in armhf armel; do
    (cd "$build" && cpack -G DEB -D CPACK_DEBIAN_PACKAGE_ARCHITECTURE="$arch")
  done
  ls -l "$build"/sundial_*_arm*.deb
  # Keep them lintian-clean (the static build's overrides are in
  # scripts/deb/lintian-overrides-static, each with its reason).
  if command -v lintian >/dev/null; then
    for deb in "$build"/sundial_*_armhf.deb "$build"/sundial_*_armel.deb; do
      echo "-- lintian $deb"
      lintian --fail-on error,warning "$deb" || die "lintian found problems in $deb"
    done
  else
    echo "-- lintian not installed; the packages were not checked"
  fi
fi
