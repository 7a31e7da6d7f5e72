#!/usr/bin/env bash
# Runs heddle's Catch2 test binary and ends with "N passed, N failed".
# Usage: test/run_tests.sh BUILD_DIR [catch2 arguments...]
set -u
build=${1:-build}
shift || true
bin="$build/test/heddle_tests"
log=$(mktemp)
"$bin" --reporter console --durations no "$@" 2>&1 | tee "$log"
code=${PIPESTATUS[0]}
# Catch2 v2 ends with "All tests passed (A assertions in N test cases)" or
# "test cases: N | P passed | F failed".
passed=0 failed=0
if line=$(grep -aE '^All tests passed' "$log" | tail -n 1) && [ -n "$line" ]; then
  passed=$(sed -E 's/.* in ([0-9]+) test case.*/\1/' <<<"$line")
elif line=$(grep -aE '^test cases:' "$log" | tail -n 1) && [ -n "$line" ]; then
  passed=$(sed -nE 's/.*\| *([0-9]+) passed.*/\1/p' <<<"$line")
  failed=$(sed -nE 's/.*\| *([0-9]+) failed.*/\1/p' <<<"$line")
  passed=${passed:-0}
  failed=${failed:-0}
else
  failed=1  # the binary crashed before its summary
fi
rm -f "$log"
if [ "$code" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "${passed} passed, ${failed} failed"
[ "$code" -eq 0 ] && [ "$failed" -eq 0 ]
