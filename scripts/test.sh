#!/usr/bin/env bash
# Builds Sundial and runs every test, in stages; the README's test command and
# CI (.ci/run) call this. Stages, in order:
#
#   release   Release build (build/), all unit + integration tests (ctest)
#   sanitize  the same under AddressSanitizer + UBSan (build-sanitize/), no benches
#   i686      32-bit x86 cross build (build-i686/), its tests run natively
#   fuzz      clang + libFuzzer build (build-fuzz/): every module library
#             (so clang's -Wthread-safety -Werror checks them all), then each
#             fuzz target for a few seconds
#   pi-zero   ARMv6 static cross build (build-pi-zero/), its tests under
#             qemu-arm -cpu arm1176 and its lintian-checked .debs
#             (scripts/build-pi-zero.sh --test --package)
#
# A stage whose tools or targets are absent is skipped, not failed. Every stage
# runs even after a failure; the closing lines list each stage's result and
# "N passed, N failed, N skipped". Exit status 0 only when none failed.
#
# Environment:
#   SUNDIAL_STAGES        stages to run (default: "release sanitize i686 fuzz pi-zero")
#   SUNDIAL_JOBS          parallel build/test jobs (default: nproc)
#   SUNDIAL_FUZZ_SECONDS  time per fuzz target (default: 8; longer runs by hand, see README)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

jobs=${SUNDIAL_JOBS:-$(nproc 2>/dev/null || echo 2)}
fuzz_seconds=${SUNDIAL_FUZZ_SECONDS:-8}
stages=${SUNDIAL_STAGES:-release sanitize i686 fuzz pi-zero}
readonly SKIP=77  # a stage function's exit status for "nothing to do here"

log() { printf '\n==== %s\n' "$*"; }

# configure <build dir> <cmake args...>: Ninja for a new build dir; an existing
# one keeps the generator it was made with.
configure() {
  local dir=$1; shift
  local generator=()
  if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
  fi
  cmake -S "$root" -B "$dir" "${generator[@]}" "$@"
}

# run_ctest <build dir> [ctest args...]
run_ctest() {
  local dir=$1; shift
  (cd "$dir" && ctest --output-on-failure --no-tests=error -j "$jobs" "$@")
}

stage_release() {
  configure build -DCMAKE_BUILD_TYPE=Release &&
    cmake --build build -j "$jobs" &&
    run_ctest build
}

stage_sanitize() {
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  # Debug keeps assert() on; -O1 -g1 compiles much faster than -O2 -g and
  # still gives file:line in reports.
  configure build-sanitize -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
      -DSUNDIAL_SANITIZE=ON -DSUNDIAL_BENCH=OFF &&
    cmake --build build-sanitize -j "$jobs" &&
    run_ctest build-sanitize
}

stage_i686() {
  if ! command -v i686-linux-gnu-g++ >/dev/null ||
     [ ! -e /usr/lib/i386-linux-gnu/libgtest.a ]; then
    echo "i686-linux-gnu-g++ or the :i386 libraries are not installed" \
         "(scripts/install-deps.sh installs them on x86-64)"
    return $SKIP
  fi
  if [ "$(uname -m)" != x86_64 ]; then
    echo "32-bit x86 binaries only run on an x86 host"
    return $SKIP
  fi
  configure build-i686 -DCMAKE_BUILD_TYPE=Release -DSUNDIAL_BENCH=OFF \
      -DCMAKE_TOOLCHAIN_FILE="$root/scripts/cmake/i686-linux-gnu.cmake" &&
    cmake --build build-i686 -j "$jobs" &&
    run_ctest build-i686
}

stage_fuzz() {
  if ! command -v clang++ >/dev/null; then
    echo "clang++ is not installed"
    return $SKIP
  fi
  CC=clang CXX=clang++ configure build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSUNDIAL_FUZZ=ON -DSUNDIAL_BENCH=OFF || return 1
  if [ ! -s build-fuzz/fuzzers.txt ]; then
    echo "no fuzz targets (add_fuzzer) in the tree yet"
    return $SKIP
  fi
  # sundial_libs: every module compiled by clang, so -Wthread-safety
  # -Werror checks the GUARDED_BY/REQUIRES annotations of all of them.
  cmake --build build-fuzz -j "$jobs" --target sundial_libs sundial_fuzzers || return 1
  local name binary seeds failed=0 corpus artifact
  mkdir -p build-fuzz/artifacts
  while IFS=$'\t' read -r name binary seeds; do
    corpus=$(mktemp -d "${TMPDIR:-/tmp}/sundial-fuzz-$name.XXXXXX")
    [ -d "$seeds" ] || seeds=
    echo "-- $name: ${fuzz_seconds}s${seeds:+, seeds from $seeds}"
    if ! "$binary" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$name-" \
        "$corpus" ${seeds:+"$seeds"} </dev/null 2>&1 | tail -n 40; then
      echo "-- $name FAILED; reproducer in build-fuzz/artifacts/$name-*"
      # The reproducer itself, so that a CI log alone is enough to replay it.
      for artifact in build-fuzz/artifacts/"$name"-*; do
        [ -f "$artifact" ] || continue
        echo "-- reproducer $artifact ($(stat -c %s "$artifact") bytes)," \
             "base64 of its first 4 KiB: $(head -c 4096 "$artifact" | base64 -w 0)"
      done
      failed=1
    fi
    rm -rf "$corpus"
  done < build-fuzz/fuzzers.txt
  return $failed
}

stage_pi-zero() {
  if ! command -v arm-linux-gnueabi-g++ >/dev/null || ! command -v qemu-arm >/dev/null ||
     [[ "$(dpkg --print-foreign-architectures 2>/dev/null)" != *armel* ]]; then
    echo "the armel cross compiler, the armel apt architecture or qemu-arm is missing" \
         "(scripts/install-deps.sh installs both on Debian x86-64)"
    return $SKIP
  fi
  # --package: the armhf and armel .debs, checked with lintian.
  scripts/build-pi-zero.sh --test --package
}

# Each stage's output is also kept in $logs, so that the closing lines can
# repeat what failed: a CI log is often read only from its tail.
logs=$(mktemp -d "${TMPDIR:-/tmp}/sundial-test-logs.XXXXXX")
trap 'rm -rf "$logs"' EXIT

# failure_digest <stage>: the lines of a stage's log that name a failure
# (ctest, pytest, gtest, sanitizers, compilers), at most 60 of them.
failure_digest() {
  grep -E -a '(\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception| Failed +[0-9.]+ sec|^FAILED:? |^ERROR |\[  FAILED  \]|^E  +|error:|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY: |deadly signal|^-- .* FAILED|^-- reproducer|runtime error:|tests FAILED|[0-9]+ failed)' \
      "$logs/$1.log" | grep -v -E '^\s*$' | tail -n 60
}

results=()
failed_stages=()
passed=0 failed=0 skipped=0
for stage in $stages; do
  if ! declare -F "stage_$stage" >/dev/null; then
    echo "test.sh: unknown stage '$stage'" >&2
    results+=("$(printf '%-9s FAILED (unknown stage)' "$stage")")
    failed=$((failed + 1))
    failed_stages+=("$stage")
    continue
  fi
  log "stage $stage"
  start=$SECONDS
  ( "stage_$stage" ) 2>&1 | tee "$logs/$stage.log"
  status=${PIPESTATUS[0]}
  took="$(( (SECONDS - start) / 60 ))m$(( (SECONDS - start) % 60 ))s"
  case $status in
    0) verdict=passed; passed=$((passed + 1)) ;;
    "$SKIP") verdict=skipped; skipped=$((skipped + 1)) ;;
    *) verdict=FAILED; failed=$((failed + 1)); failed_stages+=("$stage") ;;
  esac
  log "stage $stage $verdict ($took)"
  results+=("$(printf '%-9s %-8s %s' "$stage" "$verdict" "$took")")
done

for stage in "${failed_stages[@]}"; do
  [ -f "$logs/$stage.log" ] || continue
  log "what failed in stage $stage (from its output above)"
  failure_digest "$stage"
done

log "summary"
printf '  %s\n' "${results[@]}"
[ "$failed" -eq 0 ] || echo "FAILED stages: ${failed_stages[*]} (their output is above)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
