#!/usr/bin/env bash
# Builds heddle's libFuzzer harnesses with Debian's clang and runs each one.
# Usage: test/fuzz/run.sh BUILD_DIR [SECONDS]   (SECONDS per harness; default 20)
#        test/fuzz/run.sh BUILD_DIR --long      (10 minutes per harness)
# The readers under test (and their callers' code) are compiled by clang with
# coverage, ASan and UBSan; the rest of heddle comes from BUILD_DIR's GCC
# library. Ends with one line per harness: "fuzz NAME: N runs, 0 crashes".
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
seconds=${2:-20}
[ "$seconds" = "--long" ] && seconds=600
out="$build/fuzz"
mkdir -p "$out/obj"
flags=(-std=c++20 -O1 -g -I. -include test/fuzz/source_location_shim.hpp
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
readers=(checker/engine/schedule.cpp checker/registry.cpp checker/cli/ci_job.cpp
         checker/report/ci_json.cpp checker/report/ci_junit.cpp checker/report/ci_sarif.cpp
         checker/report/shard_summary.cpp)
objs=()
for src in "${readers[@]}"; do
  obj="$out/obj/$(basename "$src" .cpp).o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ]; then clang++ "${flags[@]}" -c "$src" -o "$obj"; fi
  objs+=("$obj")
done
libs=("$build/checker/libheddle.a" -lfmt -lspdlog -lboost_context -pthread)
status=0
for name in schedule params summary merge; do
  exe="$out/fuzz_$name"
  clang++ "${flags[@]}" -fsanitize=fuzzer "test/fuzz/fuzz_$name.cpp" "${objs[@]}" "${libs[@]}" -o "$exe"
  corpus="$out/corpus_$name"
  mkdir -p "$corpus"
  log="$out/fuzz_$name.log"
  # The seeds in test/fuzz/corpus are read; new inputs go to the build folder.
  if ASAN_OPTIONS=detect_leaks=1 "$exe" -max_total_time="$seconds" -max_len=65536 \
      -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/crash_$name-" \
      "$corpus" "test/fuzz/corpus/$name" >"$log" 2>&1; then
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -n 1)
    echo "fuzz $name: ${runs:-?} runs in ${seconds} s, 0 crashes"
  else
    echo "fuzz $name: CRASH (see $log and $out/crash_$name-*)"
    tail -n 30 "$log"
    status=1
  fi
done
exit $status
