#!/usr/bin/env bash
# heddle against GenMC, side by side (issue 17): the classic DPOR benchmarks
# both tools run, and two fixed GPU/TPU kernels of heddle at their real
# configurations (heddle only: GenMC cannot run them). The tools alternate
# within each round (heddle, then GenMC, workload by workload), so that both
# see the same load; the table gives min-median-max wall seconds over the
# rounds and the ratio of the medians.
#
# Usage: [GENMC=/path/to/genmc] [GENMC_FLAGS="--disable-estimation"]
#        [HEDDLE=build/kernels/heddle] [ROUNDS=3] bench/genmc_compare.sh
# GENMC unset or not executable: the GenMC runs are skipped, and the table
# says so. GenMC is not built by this repository (see bench/RESULTS.md for
# how it was built for the recorded run); its programs are bench/genmc/*.c.
set -euo pipefail
cd "$(dirname "$0")/.."
heddle=${HEDDLE:-build/kernels/heddle}
rounds=${ROUNDS:-3}
genmc=${GENMC:-}
genmc_flags=${GENMC_FLAGS:-}  # options for GenMC (its defaults when empty)
if [ ! -x "$heddle" ]; then
  echo "genmc_compare: $heddle is not built (meson compile -C build)" >&2
  exit 2
fi
if [ -n "$genmc" ] && [ ! -x "$genmc" ]; then
  echo "genmc_compare: GENMC=$genmc is not an executable; skipping GenMC" >&2
  genmc=
fi
[ -n "$genmc" ] || echo "genmc_compare: GENMC not set: GenMC runs skipped (heddle only)" >&2

# name | heddle run arguments | GenMC arguments (empty: heddle only) | expected executions
workloads=(
  "lastzero(15)|classic/lastzero --param n=15|-DN=15 bench/genmc/lastzero.c|147456"
  "indexer(15)|classic/indexer --param n=15|-DN=15 bench/genmc/indexer.c|4096"
  "store_inc 3x6|classic/store_inc --param threads=3 --param rounds=2|bench/genmc/store_inc.c|169206"
  "CUTLASS grouped GEMM epilogue, 128x256 tile, fixed|cutlass/grouped_gemm_epilogue --preset tile_128x256_fixed||1"
  "Pallas TPU all_reduce, 4 devices|pallas_tpu/all_reduce --param devices=4||65455"
)

# heddle --jobs 2 (issue 17, item 2) runs too; HEDDLE_JOBS2=0 leaves it out.
jobs2=${HEDDLE_JOBS2:-1}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs "$@", appends its wall seconds to file $1's list; output to $2.
timed() {
  local times=$1 out=$2
  shift 2
  local t0=$EPOCHREALTIME
  "$@" >"$out" 2>&1 || true  # heddle exits 1 on a bug; counts are checked below
  local t1=$EPOCHREALTIME
  python3 -c "print(f'{$t1 - $t0:.3f}')" >>"$times"
}

# Executions reported by the last run of each tool.
heddle_count() { sed -nE 's/^executions: ([0-9]+).*/\1/p' "$1" | head -n 1; }
genmc_count() { sed -nE 's/.*complete executions explored: ([0-9]+).*/\1/p' "$1" | head -n 1; }

for ((r = 1; r <= rounds; ++r)); do
  for w in "${!workloads[@]}"; do
    IFS='|' read -r name hargs gargs expected <<<"${workloads[$w]}"
    # shellcheck disable=SC2086  # the argument lists are word lists
    timed "$tmp/h1.$w" "$tmp/h1.$w.out" "$heddle" run $hargs --strategy dpor
    echo "round $r $name: heddle $(tail -n 1 "$tmp/h1.$w") s, $(heddle_count "$tmp/h1.$w.out") executions" >&2
    if [ "$jobs2" = 1 ]; then
      # shellcheck disable=SC2086
      timed "$tmp/h2.$w" "$tmp/h2.$w.out" "$heddle" run $hargs --strategy dpor --jobs 2
      echo "round $r $name: heddle --jobs 2 $(tail -n 1 "$tmp/h2.$w") s" >&2
    fi
    if [ -n "$genmc" ] && [ -n "$gargs" ]; then
      # shellcheck disable=SC2086
      timed "$tmp/g.$w" "$tmp/g.$w.out" "$genmc" $genmc_flags -- $gargs
      echo "round $r $name: GenMC $(tail -n 1 "$tmp/g.$w") s, $(genmc_count "$tmp/g.$w.out") executions" >&2
    fi
  done
done

# min-median-max of a file of numbers, and its median alone.
mmm() { sort -n "$1" | awk '{v[NR]=$1} END {printf "%.2f-%.2f-%.2f", v[1], v[int((NR+1)/2)], v[NR]}'; }
median() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }

echo
echo "GenMC: ${genmc:-none} ${genmc_flags:-(default options)}"
echo "rounds: $rounds; wall seconds min-median-max; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
header="| workload | executions (heddle) | executions (GenMC) | heddle dpor, 1 job |"
rule="|---|---|---|---|"
if [ "$jobs2" = 1 ]; then header+=" heddle dpor, --jobs 2 |"; rule+="---|"; fi
header+=" GenMC | heddle/GenMC (1 job) |"
rule+="---|---|"
if [ "$jobs2" = 1 ]; then header+=" heddle/GenMC (--jobs 2) |"; rule+="---|"; fi
echo "$header"
echo "$rule"
for w in "${!workloads[@]}"; do
  IFS='|' read -r name hargs gargs expected <<<"${workloads[$w]}"
  hc=$(heddle_count "$tmp/h1.$w.out")
  if [ -n "$expected" ] && [ "$hc" != "$expected" ]; then hc="$hc (expected $expected)"; fi
  row="| $name | $hc"
  if [ -n "$genmc" ] && [ -n "$gargs" ]; then row+=" | $(genmc_count "$tmp/g.$w.out")"; else row+=" | n/a"; fi
  row+=" | $(mmm "$tmp/h1.$w")"
  if [ "$jobs2" = 1 ]; then row+=" | $(mmm "$tmp/h2.$w")"; fi
  if [ -n "$genmc" ] && [ -n "$gargs" ]; then
    row+=" | $(mmm "$tmp/g.$w") | $(ratio "$(median "$tmp/h1.$w")" "$(median "$tmp/g.$w")")"
    if [ "$jobs2" = 1 ]; then row+=" | $(ratio "$(median "$tmp/h2.$w")" "$(median "$tmp/g.$w")")"; fi
  else
    row+=" | (GenMC: not run) | n/a"
    if [ "$jobs2" = 1 ]; then row+=" | n/a"; fi
  fi
  echo "$row |"
done
