#!/usr/bin/env bash
# Builds the libFuzzer targets (if needed) and replays or fuzzes them. See docs/RELIABILITY.md.
#
#   tools/fuzz/run.sh --replay                 every target over its corpora once (-runs=0): CI
#   tools/fuzz/run.sh --seconds 60             fuzz each target 60 s (CI), one after the other
#   tools/fuzz/run.sh --seconds 3600 -j 2 fuzz_image fuzz_pipeline_json    long runs, 2 at a time
#
# Options:
#   --replay          run each input of tests/fuzz_corpus/<t>/ and build/fuzz-corpus/<t>/{seed,work}
#   --seconds N       fuzz each target for N seconds (new inputs go to build/fuzz-corpus/<t>/work)
#   -j, --jobs P      targets run at the same time (default 1; each is one process, one core)
#   --no-build        use the binaries already in the build folder
#   TARGET...         a subset of all_targets below (default: all)
# Environment: SLUICE_FUZZ_BUILD (default build/fuzz), SLUICE_FUZZ_CC / SLUICE_FUZZ_CXX (default
# clang-14 / clang++-14, as the fuzz preset says), SLUICE_TEST_DATA (the image data for the seeds).
#
# Exit status: 0 when every target ran clean; 1 on any crash, sanitizer report, leak, timeout
# (> 5 s for one input) or out-of-memory (> 2 GiB), with the reproducer saved under
# build/fuzz-artifacts/<target>/; 2 on a usage or build error. Without clang-14 and its
# libFuzzer runtime (Debian: clang-14 libclang-rt-14-dev) it prints why and exits 0.
#
# Every fuzzing run is appended to build/fuzz-corpus/fuzz-log.tsv (date, commit, target, CPU
# seconds, executions, result, wall seconds); `tools/fuzz/run.sh --summary` totals the CPU time
# per target.
set -uo pipefail
cd "$(dirname "$0")/../.."

all_targets=(fuzz_image fuzz_jpeg_structure fuzz_file_list fuzz_pipeline_json
  fuzz_npy_header fuzz_tfrecord fuzz_recordio fuzz_tar_index fuzz_lmdb_records fuzz_coco
  fuzz_tiff fuzz_webp fuzz_jpeg2000 fuzz_s3_list)
mode=""
seconds=0
jobs=1
build=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --replay) mode=replay ;;
    --seconds) mode=fuzz; seconds=${2:?--seconds needs a number}; shift ;;
    --summary) mode=summary ;;
    -j|--jobs) jobs=${2:?--jobs needs a number}; shift ;;
    --no-build) build=0 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    fuzz_*) targets+=("$1") ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$mode" ] || { echo "run.sh: give --replay, --seconds N or --summary (see --help)" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

bdir=${SLUICE_FUZZ_BUILD:-build/fuzz}
corpus=build/fuzz-corpus
artifacts=build/fuzz-artifacts
log=$corpus/fuzz-log.tsv

if [ "$mode" = summary ]; then
  [ -f "$log" ] || { echo "no fuzzing runs logged yet ($log)"; exit 0; }
  awk -F'\t' '{ s[$3] += $4; n[$3] += $5; if ($6 != "ok") bad[$3] += 1 }
    END { printf "%-22s %10s %14s %s\n", "target", "CPU hours", "executions", "failed runs";
          for (t in s) printf "%-22s %10.2f %14d %d\n", t, s[t] / 3600, n[t], bad[t] + 0 }' "$log"
  exit 0
fi

# 1. Toolchain: skip cleanly where libFuzzer is not available.
cc=${SLUICE_FUZZ_CC:-clang-14}
cxx=${SLUICE_FUZZ_CXX:-clang++-14}
if ! command -v "$cxx" > /dev/null; then
  echo "run.sh: $cxx not found: skipping the fuzzers (install clang-14 libclang-rt-14-dev)"
  exit 0
fi
probe=$(mktemp -d)
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' \
  > "$probe/p.cc"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cc" -o "$probe/p" 2> "$probe/err"; then
  echo "run.sh: $cxx cannot link libFuzzer + ASan/UBSan: skipping the fuzzers"
  echo "        (install libclang-rt-14-dev); the compiler said: $(head -n 3 "$probe/err")"
  rm -rf "$probe"
  exit 0
fi
rm -rf "$probe"

# 2. Build (incremental; the first, a unity build, takes about 5 minutes on 2 cores) with the
# fuzz preset (CMakePresets.json), into $bdir.
if [ "$build" = 1 ]; then
  if command -v ninja > /dev/null; then export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}; fi
  compilers=()
  [ "$cc" = clang-14 ] || compilers+=(-DCMAKE_C_COMPILER="$cc")
  [ "$cxx" = clang++-14 ] || compilers+=(-DCMAKE_CXX_COMPILER="$cxx")
  mkdir -p "$bdir"
  cmake --preset fuzz -B "$bdir" "${compilers[@]}" > "$bdir/configure.log" 2>&1 ||
    { tail -n 30 "$bdir/configure.log" >&2; echo "run.sh: cmake configure failed" >&2; exit 2; }
  cmake --build "$bdir" --target "${targets[@]}" -j "$(nproc)" > "$bdir/fuzz-build.log" 2>&1 ||
    { tail -n 30 "$bdir/fuzz-build.log" >&2; echo "run.sh: build failed" >&2; exit 2; }
fi
# 3. Seeds (generated once; rerun tools/fuzz/make_corpus.sh after the test data changes).
[ -f "$corpus/fuzz_image.dict" ] || bash tools/fuzz/make_corpus.sh "$corpus" > /dev/null

max_len() {
  case "$1" in
    fuzz_image) echo 262144 ;;
    fuzz_jpeg_structure) echo 262144 ;;
    fuzz_file_list) echo 16384 ;;
    fuzz_pipeline_json) echo 16384 ;;
    fuzz_npy_header) echo 65536 ;;
    fuzz_tfrecord) echo 16384 ;;
    fuzz_recordio) echo 16384 ;;
    fuzz_tar_index) echo 65536 ;;
    fuzz_lmdb_records) echo 65536 ;;
    fuzz_coco) echo 16384 ;;
    fuzz_tiff|fuzz_webp|fuzz_jpeg2000) echo 65536 ;;
  esac
}

# The sanitizer settings every run uses: any report is fatal, leaks included.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
common=(-rss_limit_mb=2048 -timeout=5 -malloc_limit_mb=2048 -print_final_stats=1)

run_one() {  # run_one TARGET: exit status of the fuzzer
  local t=$1 bin=$bdir/tools/fuzz/$1 out dirs=()
  [ -x "$bin" ] || { echo "run.sh: $bin is missing" >&2; return 2; }
  mkdir -p "$artifacts/$t" "$corpus/$t/work"
  out=$artifacts/$t/last-$mode.log
  # libFuzzer adds new inputs to the first folder: work/.
  for d in "$corpus/$t/work" "$corpus/$t/seed" "tests/fuzz_corpus/$t"; do
    [ -d "$d" ] && dirs+=("$d")
  done
  local t0 rc TIMEFORMAT='%U %S'
  t0=$(date +%s)
  if [ "$mode" = replay ]; then
    { time "$bin" "${common[@]}" -runs=0 -artifact_prefix="$artifacts/$t/" "${dirs[@]}" \
        > "$out" 2>&1; } 2> "$out.cpu"
    rc=$?
  else
    local dict=()
    [ -f "$corpus/$t.dict" ] && dict=(-dict="$corpus/$t.dict")
    { time "$bin" "${common[@]}" "${dict[@]}" -max_total_time="$seconds" \
        -max_len="$(max_len "$t")" -artifact_prefix="$artifacts/$t/" "${dirs[@]}" \
        > "$out" 2>&1; } 2> "$out.cpu"
    rc=$?
  fi
  local dt=$(( $(date +%s) - t0 ))
  # CPU seconds (user + system) of the fuzzer: what counts towards the CPU-hours of a target
  # (wall time overstates it on a busy machine).
  local cpu
  cpu=$(awk '{ printf "%d", $1 + $2 }' "$out.cpu" 2> /dev/null)
  local execs
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$out" | tail -n 1 | grep -o '[0-9]*$')
  local result=ok
  [ $rc -eq 0 ] || result="FAILED(rc=$rc)"
  if [ "$mode" = fuzz ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" \
      "$(git rev-parse --short HEAD 2> /dev/null)" "$t" "${cpu:-0}" "${execs:-0}" "$result" "$dt" \
      >> "$log"
  fi
  if [ $rc -eq 0 ]; then
    printf '%-22s ok      %5ss wall %5ss CPU %10s execs  %s\n' "$t" "$dt" "${cpu:-?}" "${execs:-?}" \
      "$(grep -E '^#[0-9]+ +DONE' "$out" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+')"
  else
    printf '%-22s FAILED  %5ss  (log: %s)\n' "$t" "$dt" "$out"
    grep -E '==FUZZ==|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY|Test unit written' \
      "$out" | head -n 8 | sed 's/^/    /'
    echo "    reproduce: $bin <input>; once fixed, commit the input to tests/fuzz_corpus/$t/"
  fi
  return $rc
}

status=0
if [ "$jobs" -le 1 ]; then
  for t in "${targets[@]}"; do run_one "$t" || status=1; done
else
  running=0
  for t in "${targets[@]}"; do
    run_one "$t" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
      wait -n || status=1
      running=$((running - 1))
    fi
  done
  while [ $running -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
  done
fi
exit $status
