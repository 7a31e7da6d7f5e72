"""Census of the kernels JAX ships in jax.experimental.pallas.ops (issue 49):
each op at a small legal shape, exported as a user would pass it (the
jitted op, functools.partial for its static arguments), checked with heddle,
and its outputs compared with JAX's own run (TPU interpret mode on the CPU)
where JAX can run it.

    .venv/bin/python bench/pallas_ops_census.py [--time-limit S] [NAME...]

Prints one row per op: exported or refused (why), verdict, executions,
heddle's time, and whether every schedule left JAX's outputs. The table in
bench/RESULTS.md is this script's output.
"""
import argparse
import functools
import os
import pathlib
import re
import sys
import time

# No excess precision: XLA rounds each bf16 op as the jaxpr says (see
# test/pallas/conftest.py), so JAX's outputs are the kernel's arithmetic.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4 "
                      "--xla_allow_excess_precision=false")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "models/pallas/python"))
os.chdir(ROOT)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental.pallas import tpu as pltpu  # noqa: E402

from heddle_pallas import ExportError, export_all  # noqa: E402
from heddle_pallas.check import run  # noqa: E402


def f32(*shape, mod=7):
    return ((np.arange(int(np.prod(shape))) % mod) - mod // 2).astype(np.float32).reshape(shape)


def op_matmul():
    from jax.experimental.pallas.ops.tpu import matmul
    fn = functools.partial(matmul.matmul, block_shape=(128, 128), block_k=128)
    return fn, (f32(512, 512), f32(512, 512, mod=5))


def op_double():
    from jax.experimental.pallas.ops.tpu import example_kernel
    return example_kernel.double, (f32(8, 128),)


def op_flash_attention():
    from jax.experimental.pallas.ops.tpu import flash_attention as fa
    q = f32(1, 1, 128, 128) / 8
    return fa.flash_attention, (q, q * 0.5, q + 1)


def op_all_gather():
    from jax.experimental.pallas.ops.tpu import all_gather
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("x",))
    return functools.partial(all_gather.all_gather, mesh=mesh, axis_name="x"), (f32(4 * 8, 128),)


def op_megablox_gmm():
    from jax.experimental.pallas.ops.tpu import megablox
    fn = functools.partial(megablox.gmm, tiling=(128, 128, 128))
    return fn, (f32(256, 128), f32(2, 128, 128, mod=5), np.array([128, 128], np.int32))


def op_paged_attention():
    from jax.experimental.pallas.ops.tpu.paged_attention import paged_attention
    q = f32(1, 1, 128) / 8
    k = f32(1, 4, 16, 128) / 8
    fn = functools.partial(paged_attention, pages_per_compute_block=2)
    return fn, (q, k, k + 1, np.array([64], np.int32), np.arange(4, dtype=np.int32)[None])


def op_ragged_paged_attention():
    from jax.experimental.pallas.ops.tpu.ragged_paged_attention import kernel as rpa
    q = f32(8, 1, 128) / 8              # 8 query tokens of one sequence, 1 head
    kv = f32(2, 16, 2, 128, mod=5) / 8  # 2 pages of 16 tokens, k and v heads combined
    fn = functools.partial(rpa.ragged_paged_attention, num_kv_pages_per_block=1,
                           num_queries_per_block=8)
    return fn, (q, kv, np.array([16], np.int32), np.array([[0, 1]], np.int32),
                np.array([0, 8], np.int32), np.array([1], np.int32))


def op_splash_attention():
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as sk
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as sm
    mask = sm.MultiHeadMask([sm.CausalMask((128, 128))])
    kernel = sk.make_splash_mha_single_device(mask, block_sizes=sk.BlockSizes(128, 128))
    q = f32(1, 128, 128) / 8
    return kernel, (q, q * 0.5, q + 1)


def ref_ragged_paged_attention(*args):
    """JAX interpret mode cannot run this op (its ref.reshape transform):
    its module's pure-JAX reference gives the expected outputs."""
    from jax.experimental.pallas.ops.tpu.ragged_paged_attention import kernel as rpa
    return rpa.ref_ragged_paged_attention(*args)


REFERENCE = {"tpu.ragged_paged_attention": ref_ragged_paged_attention}

# Float ops whose XLA transcendentals and dot order differ from heddle's in
# the last places: outputs within this relative distance are JAX's.
RTOL = {"tpu.flash_attention": 1e-5, "tpu.paged_attention": 1e-5,
        "tpu.ragged_paged_attention": 1e-5, "tpu.splash_attention": 1e-5}
ATOL = {"tpu.ragged_paged_attention": 1e-6}  # a reference summed in another order

OPS = {"tpu.matmul": op_matmul, "tpu.example_kernel.double": op_double,
       "tpu.flash_attention": op_flash_attention, "tpu.all_gather(4 devices)": op_all_gather,
       "tpu.megablox.gmm": op_megablox_gmm, "tpu.paged_attention": op_paged_attention,
       "tpu.ragged_paged_attention": op_ragged_paged_attention,
       "tpu.splash_attention": op_splash_attention}
NOT_TRIED = ["gpu.hopper_matmul_mgpu",
             "gpu.all_gather_mgpu", "gpu.reduce_scatter_mgpu", "gpu.collective_matmul_mgpu",
             "gpu.attention_mgpu", "gpu.ragged_dot_mgpu"]


def first_line(e):
    text = str(e).strip().splitlines()
    line = text[0] if text else type(e).__name__
    line = re.sub(r"^heddle: error: \S+\.json: ", "", line)  # the export's temporary path
    line = line.replace(str(pathlib.Path(jax.__file__).parent) + "/", "jax/")
    return line[:160]


def census(name, make, limit):
    fn, args = make()
    why_no_jax = None
    try:
        # Eager DMAs: JAX's default (on_wait) runs a DMA when its semaphore
        # is waited, popping the latest first, which can reorder a kernel's
        # DMAs against its own program order (all_gather's row in RESULTS.md).
        with pltpu.force_tpu_interpret_mode(pltpu.InterpretParams(dma_execution_mode="eager")):
            want = jax.tree_util.tree_leaves(fn(*args))
    except Exception as e:  # noqa: BLE001 - recorded in the table
        want, why_no_jax = None, first_line(e)
        if name in REFERENCE:
            want = jax.tree_util.tree_leaves(REFERENCE[name](*args))
    try:
        try:
            paths = export_all(fn, *args, expect=want if want else None, rtol=RTOL.get(name, 0),
                               atol=ATOL.get(name, 0))
        except ExportError as e:
            if want is None or "not a pallas_call's output" not in str(e):
                raise
            want, why_no_jax = None, "the op's result is computed after its kernel"
            paths = export_all(fn, *args)
    except Exception as e:  # noqa: BLE001
        return [[name, "refused", first_line(e), "", "", "", ""]]
    rows = []
    for p in paths:
        start = time.monotonic()
        try:
            r = run(p, "--time-limit", str(limit))
        except ValueError as e:
            rows.append([name, "refused", first_line(str(e).split("\n", 1)[-1]), "", "", "", ""])
            continue
        took = time.monotonic() - start
        verdict = r.verdict + ("" if r.exhaustive or r.verdict != "no_bug_found" else " (budget)")
        bug = next((line for line in r.report.splitlines()
                    if line.startswith(r.verdict + ":")), "")
        same = "not compared: " + why_no_jax if want is None else (
            ("yes" if name not in REFERENCE or why_no_jax is None
             else "yes, to the op's pure-JAX reference (JAX's interpret mode raises on the op)")
            if r.code == 0 else bug[:110] or "see report")
        rows.append([name, "exported", os.path.basename(p), verdict,
                     str(r.summary.get("executions", "")), f"{took:.1f} s", same])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    print("| op | export | file / why | verdict | executions | time | JAX's outputs |")
    print("|---|---|---|---|---|---|---|")
    for name, make in OPS.items():
        if a.names and name not in a.names:
            continue
        for row in census(name, make, a.time_limit):
            print("| " + " | ".join(row) + " |", flush=True)
    for name in NOT_TRIED:
        print(f"| {name} | not tried | no small legal shape set up yet |  |  |  |  |")


if __name__ == "__main__":
    main()
