#!/usr/bin/env bash
# Before/after executions and seconds of the kernels that the coarser
# independence relation (commutative updates, split bulk-op sides) is for.
# Usage: bench/independence.sh BASELINE_HEDDLE [HEDDLE] [TIME_LIMIT_S]
#   BASELINE_HEDDLE  a heddle binary built from the commit before the change
#   HEDDLE           the binary under test (default build/kernels/heddle)
# Each row runs both binaries one after the other, dpor, fixed variants, and
# prints executions, seconds, and whether the run was exhaustive.
set -euo pipefail
base=${1:?usage: bench/independence.sh BASELINE_HEDDLE [HEDDLE] [TIME_LIMIT_S]}
new=${2:-build/kernels/heddle}
limit=${3:-60}
rows=(
  "cutlass/grouped_gemm_epilogue fixed=true subtiles=1"
  "cutlass/grouped_gemm_epilogue fixed=true subtiles=2"
  "cutlass/grouped_gemm_epilogue fixed=true subtiles=4"
  "cutlass/grouped_gemm_epilogue fixed=true subtiles=8"
  "cutlass/grouped_gemm_epilogue fixed=true others=1"
  "cutlass/grouped_gemm_epilogue fixed=true others=2"
  "cutlass/grouped_gemm_epilogue fixed=true others=3"
  "cutlass/grouped_gemm_epilogue fixed=true groups=2 tiles=2 subtiles=8 others=3 stages=4"
  "cutlass/pipeline_tma_async stages=4 k_tiles=8 consumers=2"
  "pallas_tpu/all_reduce devices=3"
  "pallas_tpu/all_reduce devices=4"
  "pallas_tpu/all_reduce devices=8"
  "pallas_tpu/all_gather devices=4"
  "pallas_tpu/all_gather devices=8"
  "pallas_tpu/right_permute devices=4"
  "pallas_tpu/right_permute devices=8"
  "pallas_tpu/ring_reuse_recv_sem fixed=true devices=4 steps=3"
  "pallas_tpu/ring_reuse_recv_sem fixed=true devices=8 steps=7"
)
# One run: prints "executions seconds exhaustive" (n/a when the binary
# rejects a parameter, as an older one does for a widened range).
one() {
  local bin=$1 kernel=$2
  shift 2
  local args=() out
  for kv in "$@"; do args+=(--param "$kv"); done
  out=$(mktemp)
  if ! "$bin" run "$kernel" "${args[@]}" --time-limit "$limit" --summary-json "$out" \
       >/dev/null 2>&1 && [ ! -s "$out" ]; then
    echo "n/a n/a n/a"
  else
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print(d['executions'], d['stats'].get('seconds', 'n/a'), 'yes' if d['exhaustive'] else 'no')" "$out"
  fi
  rm -f "$out"
}
echo "| kernel | params | before: executions | s | exhaustive | after: executions | s | exhaustive |"
echo "|---|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  read -r kernel params <<<"$row"
  # shellcheck disable=SC2086
  b=$(one "$base" "$kernel" $params)
  # shellcheck disable=SC2086
  a=$(one "$new" "$kernel" $params)
  read -r be bs bx <<<"$b"
  read -r ae as ax <<<"$a"
  echo "| $kernel | $params | $be | $bs | $bx | $ae | $as | $ax |"
done
