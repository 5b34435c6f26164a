#!/usr/bin/env bash
# Builds the C++ tests with sanitizers and runs them; exits non-zero on any failure or report.
# See docs/RELIABILITY.md ("Sanitizers").
#
#   tools/sanitize.sh            both stages below
#   tools/sanitize.sh asan       1. ASan + UBSan (+ LeakSanitizer): every CPU test (ctest -LE gpu)
#   tools/sanitize.sh tsan       2. ThreadSanitizer: the executor, thread pool, pipeline, queue,
#                                   memory-pool and parallel-listing tests (TSAN_TESTS below)
#
# Build folders: build/asan and build/tsan, configured by the presets of the same names
# (CMakePresets.json; only the sluice_tests target is built, as a unity build: about 5 minutes
# each on 2 cores; later runs are incremental). Compiler: clang-14 as the presets say when
# installed, else the default C++ compiler (g++ 12 works too); override with SLUICE_SAN_CC /
# SLUICE_SAN_CXX.
# Tests that need ../shared/data skip without it (point SLUICE_TEST_DATA at the image data).
#
# A run fails on a failing test or on any sanitizer report: reports abort the test
# (halt_on_error / abort_on_error, -fno-sanitize-recover=all, leaks fail at exit), and the test
# logs are searched for report banners as well, in case a report came from a child process.
set -uo pipefail
cd "$(dirname "$0")/.."

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(asan tsan)
jobs=${SLUICE_SAN_JOBS:-$(nproc)}

# Test suites that run threads: executor and pipeline, the thread pool, queues, memory pools,
# and the file listing (run_parallel). New concurrent code should get a suite name matching
# one of these patterns.
TSAN_TESTS=${TSAN_TESTS:-'Executor*:ThreadPool*:Pipeline*:Graph*:EpochPlan*:*Queue*:*Thread*:PoolResource*:Buffer*:FileRootListing*:FileListParsing*:FilesArgument*:FileDatasetReadAhead*:FileReader*:*Concurren*:*Parallel*:S3*:RecordFiles*:WebDatasetCatalog*'}

compilers=()  # empty: the presets' clang-14
if [ -n "${SLUICE_SAN_CXX:-}" ]; then
  compilers=(-DCMAKE_C_COMPILER="${SLUICE_SAN_CC:-cc}" -DCMAKE_CXX_COMPILER="$SLUICE_SAN_CXX")
elif ! command -v clang++-14 > /dev/null; then
  compilers=(-DCMAKE_C_COMPILER="${CC:-cc}" -DCMAKE_CXX_COMPILER="${CXX:-c++}")
fi
if command -v ninja > /dev/null; then export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}; fi

report_pattern='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|WARNING: ThreadSanitizer|ThreadSanitizer: reported|ERROR: UndefinedBehaviorSanitizer'

configure_and_build() {  # PRESET (asan or tsan; builds into build/PRESET)
  local preset=$1 dir=build/$1
  mkdir -p build
  cmake --preset "$preset" "${compilers[@]}" > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log" >&2; echo "sanitize.sh: configure of $dir failed" >&2; return 2; }
  echo "== building $dir (sluice_tests, preset $preset," \
       "$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt"))"
  cmake --build --preset "$preset" -j "$jobs" > "$dir/build.log" 2>&1 ||
    { tail -n 40 "$dir/build.log" >&2; echo "sanitize.sh: build of $dir failed" >&2; return 2; }
}

run_asan() {
  configure_and_build asan || return 2
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
  export LSAN_OPTIONS=${LSAN_OPTIONS:-}
  echo "== ASan + UBSan: ctest -LE gpu (ASAN_OPTIONS=$ASAN_OPTIONS)"
  local t0=$SECONDS rc=0
  ctest --preset asan -j "$jobs" > build/asan/ctest.log 2>&1 || rc=1  # -LE gpu, 900 s timeout
  tail -n 4 build/asan/ctest.log
  if grep -qE "$report_pattern" build/asan/ctest.log build/asan/Testing/Temporary/LastTest.log \
       2> /dev/null; then
    echo "sanitize.sh: sanitizer reports in build/asan/ctest.log:"
    grep -E "$report_pattern" build/asan/ctest.log | sort | uniq -c | head -n 20
    rc=1
  fi
  grep -E "Failed|Not Run|\*\*\*" build/asan/ctest.log | grep -v "tests passed" | head -n 30
  echo "== ASan + UBSan: $([ $rc -eq 0 ] && echo clean || echo FAILED) in $((SECONDS - t0)) s" \
       "($(grep -cF '***Skipped' build/asan/ctest.log) skipped; log: build/asan/ctest.log)"
  return $rc
}

run_tsan() {
  configure_and_build tsan || return 2
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:history_size=4}
  echo "== ThreadSanitizer: sluice_tests --gtest_filter='$TSAN_TESTS' (x3)"
  local t0=$SECONDS rc=0
  # Three repetitions in shuffled order give the scheduler more chances to interleave.
  build/tsan/src/sluice/sluice_tests --gtest_filter="$TSAN_TESTS" --gtest_repeat=3 --gtest_shuffle \
    --gtest_brief=1 > build/tsan/tsan.log 2>&1 || rc=1
  tail -n 3 build/tsan/tsan.log
  if grep -qE "$report_pattern" build/tsan/tsan.log; then
    echo "sanitize.sh: ThreadSanitizer reports in build/tsan/tsan.log:"
    grep -E -A 12 'WARNING: ThreadSanitizer' build/tsan/tsan.log | head -n 40
    rc=1
  fi
  echo "== ThreadSanitizer: $([ $rc -eq 0 ] && echo clean || echo FAILED) in $((SECONDS - t0)) s" \
       "($(grep -cE '^\[ +OK +\]|^\[ +RUN' build/tsan/tsan.log) lines; log: build/tsan/tsan.log)"
  return $rc
}

status=0
for s in "${stages[@]}"; do
  case "$s" in
    asan) run_asan || status=1 ;;
    tsan) run_tsan || status=1 ;;
    *) echo "sanitize.sh: unknown stage '$s' (asan, tsan)" >&2; exit 2 ;;
  esac
done
exit $status
