#!/usr/bin/env bash
# Builds heddle's libFuzzer harnesses with Debian's clang and runs each one.
# Usage: test/fuzz/run.sh BUILD_DIR [SECONDS] [NAME...]  (SECONDS per harness; default 20)
#        test/fuzz/run.sh BUILD_DIR --long [NAME...]     (10 minutes per harness)
# The readers under test (and their callers' code) are compiled by clang with
# coverage, ASan and UBSan (clang's -fsanitize=undefined includes
# float-cast-overflow, which GCC's lacks); the rest of heddle comes from
# BUILD_DIR's GCC libraries. The objects are built by ninja from a generated
# BUILD_DIR/fuzz/build.ninja, so a rerun compiles only what changed (header
# dependencies and flags included). Ends with one line per harness:
# "fuzz NAME: N runs in S s, 0 crashes"; exits 1 on any crash.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
seconds=${2:-20}
[ "$seconds" = "--long" ] && seconds=600
shift $(( $# > 2 ? 2 : $# ))
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(schedule params summary merge ptx pallas)
out="$build/fuzz"
mkdir -p "$out"
root=$(pwd)
flags="-std=c++20 -O1 -gline-tables-only -I$root -include $root/test/fuzz/source_location_shim.hpp \
-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
checker=(checker/engine/schedule.cpp checker/registry.cpp checker/cli/ci_job.cpp
         checker/report/ci_json.cpp checker/report/ci_junit.cpp checker/report/ci_sarif.cpp
         checker/report/shard_summary.cpp)
# What each harness compiles with clang besides itself, and which GCC
# libraries it links: the front ends' runs need every registered strategy
# (the whole engine library), so they take none of its files from clang.
sources() {
  case $1 in
    ptx) ls models/ptx/*.cpp ;;
    pallas) ls models/pallas/*.cpp ;;
    *) printf '%s\n' "${checker[@]}" ;;
  esac
}
libs() {
  case $1 in
    ptx | pallas) echo "-Wl,--whole-archive $root/$build/checker/libheddle.a -Wl,--no-whole-archive" \
                       "$root/$build/models/libheddle_models.a" ;;
    *) echo "$root/$build/checker/libheddle.a" ;;
  esac
}
# The front ends' code runs on heddle's fibers, whose stack switches the GCC
# engine does not announce to ASan (only an ASan build of heddle does): their
# objects leave stack frames unpoisoned (no stale redzones on a fiber stack,
# no false reports); heap and global checks and all of UBSan stay.
fiber_flags() {
  case $1 in
    ptx | pallas) echo "-mllvm -asan-stack=0" ;;
  esac
}
{
  echo "cxx = clang++"
  echo "flags = $flags"
  echo "rule cxx"
  echo "  command = \$cxx \$flags -MD -MF \$out.d -c \$in -o \$out"
  echo "  depfile = \$out.d"
  echo "  deps = gcc"
  echo "  description = clang++ \$in"
  echo "rule link"
  echo "  command = \$cxx \$flags -fsanitize=fuzzer \$in \$libs -lfmt -lspdlog -lboost_context -pthread -o \$out"
  echo "  description = link \$out"
  declare -A seen=()
  for name in "${names[@]}"; do
    objs=()
    for src in "test/fuzz/fuzz_$name.cpp" $(sources "$name"); do
      obj="obj/${src//\//_}.o"
      objs+=("$obj")
      if [ -z "${seen[$obj]:-}" ]; then
        echo "build $obj: cxx $root/$src"
        [ -z "$(fiber_flags "$name")" ] || echo "  flags = \$flags $(fiber_flags "$name")"
      fi
      seen[$obj]=1
    done
    echo "build fuzz_$name: link ${objs[*]} | $(libs "$name" | grep -o "$root[^ ]*\.a" | tr '\n' ' ')"
    echo "  libs = $(libs "$name")"
  done
} >"$out/build.ninja.new"
mv "$out/build.ninja.new" "$out/build.ninja"
if ! ninja -C "$out" $(printf 'fuzz_%s ' "${names[@]}") >"$out/ninja.log" 2>&1; then
  tail -n 40 "$out/ninja.log"
  echo "fuzz: the harnesses did not build"
  exit 1
fi
status=0
for name in "${names[@]}"; do
  exe="$out/fuzz_$name"
  [ -x "$exe" ] || { echo "fuzz $name: no harness built"; exit 1; }
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
