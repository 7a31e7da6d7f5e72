#!/usr/bin/env bash
# Split runs against a plain dpor run: seconds of `run`, `run --jobs 1`,
# `run --jobs 2`, `run --jobs 2 --split-always` (no plain trial beside the
# split), and the balance of --shard over 4 and 16 shards (the largest
# shard's executions and seconds over the mean).
# Usage: bench/split.sh [HEDDLE] [ROUNDS]   (default build/kernels/heddle, 3)
# Rows are kernel and --param pairs; tools alternate within each round.
set -euo pipefail
heddle=${1:-build/kernels/heddle}
rounds=${2:-3}
rows=(
  "classic/lastzero n=15"
  "classic/indexer n=15"
  "classic/indexer n=12"
  "classic/filesystem n=14"
  "cutlass/wgmma_mainloop stages=3 k_tiles=5"
  "cutlass/grouped_gemm_epilogue fixed=true subtiles=8"
  "cutlass/grouped_gemm_epilogue fixed=true groups=2 others=3 stages=4 subtiles=8 tiles=2"
  "pallas_tpu/all_gather devices=4"
  "pallas_tpu/all_reduce devices=4"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args() { local a=""; for kv in $1; do a="$a --param $kv"; done; echo "$a"; }
secs() {  # runs heddle with the given arguments, prints its wall seconds and executions
  local start end
  start=$(date +%s.%N)
  "$heddle" run -q "$@" --summary-json "$tmp/s.json" > /dev/null || true
  end=$(date +%s.%N)
  python3 -c "import json,sys; print('%.2f s, %d executions' % ($end-$start, json.load(open('$tmp/s.json'))['executions']))"
}
for row in "${rows[@]}"; do
  kernel=${row%% *}
  p=$(args "${row#* }")
  echo "== $row"
  for r in $(seq "$rounds"); do
    echo "round $r: plain $(secs $kernel $p) | --jobs 1 $(secs $kernel $p --jobs 1) | --jobs 2 $(secs $kernel $p --jobs 2) | --jobs 2 --split-always $(secs $kernel $p --jobs 2 --split-always)"
  done
  for n in 4 16; do
    for s in $(seq 0 $((n - 1))); do
      "$heddle" run -q $kernel $p --shard "$s/$n" --summary-json "$tmp/shard$s.json" > /dev/null || true
    done
    python3 - "$tmp" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
sums = [json.load(open(f"{d}/shard{s}.json")) for s in range(n)]
if sums[0]["split"]["items"] == 1:
    print(f"{n} shards: unsplit (a plain exploration ran fewer steps than the split's probes): "
          f"shard 0 explores it, executions total {sum(s['executions'] for s in sums)}")
    sys.exit(0)
ex = [s["executions"] + s["stats"]["sleep_blocked"] for s in sums]
t = [s["stats"]["seconds"] for s in sums]
print(f"{n} shards: executions (with sleep-blocked) max/mean {max(ex)/(sum(ex)/n):.2f}, "
      f"seconds max/mean {max(t)/(sum(t)/n):.2f}, executions total {sum(s['executions'] for s in sums)}")
PY
  done
done
