"""Regenerates test/pallas/data/*.json: the real Pallas kernels of
kernels/pallas_tpu/*.py, exported for heddle with JAX's own outputs (TPU
interpret mode, eager DMAs) as the expected values. The C++ tests read
these files, so they run without JAX. The Mosaic GPU cases (GPU_CASES,
from kernels/pallas_gpu/race_tests.py) carry the output their C++ port
checks: JAX 0.8.2 cannot run a plgpu kernel on the CPU.

    .venv/bin/python test/pallas/export_data.py
"""
import os
import pathlib
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "models/pallas/python"), str(ROOT / "kernels/pallas_tpu"),
                str(ROOT / "kernels/pallas_gpu")]
os.chdir(ROOT)  # exported source paths are relative to the repository root

import numpy as np  # noqa: E402

import collectives  # noqa: E402
import local_ops  # noqa: E402
import pipeline  # noqa: E402
import race_tests  # noqa: E402
import ring_reuse_recv_sem as ring  # noqa: E402
from heddle_pallas import export  # noqa: E402

CASES = {
    # name: (make, kwargs, check JAX's output against the reference)
    "ring_reuse_recv_sem": (ring.make, dict(devices=3, steps=2, slots=2), False),
    "ring_fixed_3": (ring.make, dict(devices=3, steps=2, slots=2, fixed=True), True),
    "ring_fixed_4": (ring.make, dict(devices=4, steps=2, slots=2, fixed=True), True),
    "right_permute_3": (collectives.make_right_permute, dict(devices=3), True),
    "all_gather_3": (collectives.make_all_gather, dict(devices=3), True),
    "all_reduce_2": (collectives.make_all_reduce, dict(devices=2), True),
    "double_buffered": (pipeline.make, dict(blocks=3, block=4), True),
    "matmul": (pipeline.make_matmul, dict(n=3), True),
    "local_ops": (local_ops.make, dict(n=6), True),
}


GPU_CASES = {
    # name: (race_tests case, its parameters)
    "plgpu_unsynchronized": ("async_gmem_ops_not_visible_unless_synchronized",
                             dict(wait_barrier=False)),
    "plgpu_synchronized": ("async_gmem_ops_not_visible_unless_synchronized",
                           dict(wait_barrier=True)),
    "plgpu_unawaited_store": ("exception_in_unawaited_smem_to_gmem", {}),
    "plgpu_cross_thread": ("cross_thread_gmem_to_smem_copy",
                           dict(form="thread", a=False, b=False, c=False, d=True, e=False,
                                f=False)),
}


def export_gpu_case(name, out_dir):
    case, kwargs = GPU_CASES[name]
    fn, args, want = race_tests.CASES[case](**kwargs)
    expect = None if want is None else np.int32(want)
    return export(fn, *args, path=str(out_dir / f"{name}.json"), name=name, expect=expect)


def export_case(name, out_dir):
    if name in GPU_CASES:
        return export_gpu_case(name, out_dir)
    make, kwargs, compare = CASES[name]
    fn, x, want = make(**kwargs)
    args = x if isinstance(x, tuple) else (x,)
    expect = None
    if compare:
        expect = np.asarray(fn(*args))
        if not np.array_equal(expect.reshape(-1), np.asarray(want).reshape(-1)):
            raise SystemExit(f"{name}: JAX's output {expect} differs from the reference {want}")
    return export(fn, *args, path=str(out_dir / f"{name}.json"), name=name, expect=expect)


if __name__ == "__main__":
    out = ROOT / "test/pallas/data"
    out.mkdir(parents=True, exist_ok=True)
    for case in sys.argv[1:] or [*CASES, *GPU_CASES]:
        print(export_case(case, out))
