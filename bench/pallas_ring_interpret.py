"""Side by side on the real Pallas ring kernel that reuses one receive
semaphore (kernels/pallas_tpu/ring_reuse_recv_sem.py): JAX's TPU interpret
mode with detect_races=True, dma_execution_mode eager and on_wait, over N
runs each, against heddle on the same pallas_call, N runs.

    .venv/bin/python bench/pallas_ring_interpret.py [N] [DEVICES]

Prints one table row per checker (runs reporting the race, wrong outputs).
"""
import contextlib
import io
import os
import pathlib
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "models/pallas/python"), str(ROOT / "kernels/pallas_tpu")]
os.chdir(ROOT)

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax._src.pallas.mosaic.interpret import interpret_pallas_call as tpu_interpret  # noqa: E402
from jax.experimental.pallas import tpu as pltpu  # noqa: E402

import ring_reuse_recv_sem as ring  # noqa: E402
from heddle_pallas import export, heddle_binary  # noqa: E402


def jax_runs(mode, runs, devices):
    """(runs that reported a race, runs with a wrong output, seconds)."""
    params = pltpu.InterpretParams(detect_races=True, dma_execution_mode=mode)
    fn, x, want = ring.make(devices=devices, interpret=params)
    fn = jax.jit(fn)
    raced = wrong = 0
    start = time.time()
    for _ in range(runs):
        with contextlib.redirect_stdout(io.StringIO()):  # JAX prints each race it finds
            out = np.asarray(fn(x))
        raced += bool(tpu_interpret.races is not None and tpu_interpret.races.races_found)
        wrong += not np.array_equal(out, want)
    return raced, wrong, time.time() - start


def heddle_runs(runs, devices):
    fn, x, _ = ring.make(devices=devices)
    path = export(fn, x, path=os.path.join(tempfile.mkdtemp(), "ring.json"))
    raced = 0
    start = time.time()
    for _ in range(runs):
        proc = subprocess.run([heddle_binary(), "run", "--pallas", path, "--quiet", "--out",
                               os.devnull], capture_output=True, text=True)
        raced += proc.returncode == 1 and "race: data race" in proc.stdout
    return raced, time.time() - start


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    devices = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(f"| checker | runs | runs reporting the race | runs with a wrong output | time |")
    print("|---|---|---|---|---|")
    for mode in ("eager", "on_wait"):
        raced, wrong, secs = jax_runs(mode, runs, devices)
        print(f"| JAX interpret, detect_races=True, dma_execution_mode={mode} | {runs} | "
              f"{raced} | {wrong} | {secs:.1f} s |", flush=True)
    raced, secs = heddle_runs(runs, devices)
    print(f"| heddle run --pallas (dpor) | {runs} | {raced} | (not a run of JAX) | {secs:.1f} s |")


if __name__ == "__main__":
    main()
