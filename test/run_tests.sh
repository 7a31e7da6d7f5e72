#!/usr/bin/env bash
# Runs heddle's Catch2 test binary, then the Pallas pytest suite when the
# virtual environment setup.sh makes is there (.venv with JAX), and ends
# with "N passed, N failed" summed over both.
# Usage: test/run_tests.sh BUILD_DIR [catch2 arguments...]
set -u
build=${1:-build}
shift || true
bin="$build/test/heddle_tests"
# The suite is not in the default build (an install needs only the CLI and
# libraries): build it, and what it runs, here.
if ! ninja -C "$build" tests >/dev/null; then
  ninja -C "$build" tests | tail -n 40
  echo "0 passed, 1 failed"
  exit 1
fi
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
# The pytest suite (test/pallas/test_*.py): skipped without the venv, or when
# Catch2 arguments select a subset.
root=$(cd "$(dirname "$0")/.." && pwd)
venv_python="$root/.venv/bin/python"
if [ $# -eq 0 ] && [ -x "$venv_python" ] && "$venv_python" -c "import jax, pytest" 2>/dev/null; then
  plog=$(mktemp)
  HEDDLE="$(cd "$build" && pwd)/kernels/heddle" "$venv_python" -m pytest -q -p no:cacheprovider \
    "$root/test/pallas" 2>&1 | tee "$plog"
  pcode=${PIPESTATUS[0]}
  # pytest ends with e.g. "1 failed, 9 passed in 3.2s"; exit 5 means no tests ran.
  summary=$(grep -aE '(passed|failed|error)' "$plog" | tail -n 1)
  ppassed=$(sed -nE 's/(^|.*[^0-9])([0-9]+) passed.*/\2/p' <<<"$summary")
  pfailed=$(sed -nE 's/(^|.*[^0-9])([0-9]+) failed.*/\2/p' <<<"$summary")
  perrors=$(sed -nE 's/(^|.*[^0-9])([0-9]+) errors?.*/\2/p' <<<"$summary")
  ppassed=${ppassed:-0}
  pfailed=$(( ${pfailed:-0} + ${perrors:-0} ))
  if [ "$pcode" -ne 0 ] && [ "$pcode" -ne 5 ] && [ "$pfailed" -eq 0 ]; then pfailed=1; fi
  rm -f "$plog"
  passed=$((passed + ppassed))
  failed=$((failed + pfailed))
  if [ "$pcode" -ne 0 ] && [ "$pcode" -ne 5 ]; then code=1; fi
fi
echo "${passed} passed, ${failed} failed"
[ "$code" -eq 0 ] && [ "$failed" -eq 0 ]
