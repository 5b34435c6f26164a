#!/usr/bin/env bash
# Runs every test that needs no GPU: the C++ suites (CTest) and the Python suites (pytest).
# Expects tools/setup.sh --tests to have built them. Arguments go to pytest; SLUICE_CTEST_ARGS
# adds arguments to ctest (e.g. "-R PngDecoder" for some of the C++ tests).
# Tests that read the image test data (../shared/data next to the clone, or SLUICE_TEST_DATA)
# skip without it, and each suite says so in one line at its end.
set -uo pipefail
cd "$(dirname "$0")/.."

build=$(ls -d build/cp3*/ 2> /dev/null | head -n 1)  # pip's build folder (pyproject.toml)
status=0
if [ -n "$build" ] && [ -f "$build/CTestTestfile.cmake" ]; then
  log=$(mktemp)
  # shellcheck disable=SC2086 # SLUICE_CTEST_ARGS is a list of arguments
  ctest --test-dir "$build" -LE gpu --output-on-failure -j "$(nproc)" ${SLUICE_CTEST_ARGS:-} |
    tee "$log" || status=1
  # CTest counts a skipped test as passed ("100% tests passed"); say how many did not run.
  skipped=$(grep -c "(Skipped)$" "$log")
  data=${SLUICE_TEST_DATA:-../shared/data}
  if [ "$skipped" -gt 0 ] && [ ! -d "$data" ]; then
    echo "C++: $skipped test(s) skipped for want of the image test data: $data not found" \
      "(put the data set at ../shared/data next to the clone or set SLUICE_TEST_DATA; README.md, Tests)"
  elif [ "$skipped" -gt 0 ]; then
    echo "C++: $skipped test(s) skipped (listed above)"
  fi
  rm -f "$log"
else
  echo "no C++ test build found: run tools/setup.sh --tests" >&2
  status=1
fi
.venv/bin/python -m pytest -q tests/python "$@"
rc=$?
if [ $rc -eq 5 ]; then rc=0; fi  # no tests collected is not a failure of the code
[ $rc -ne 0 ] && status=1
exit $status
