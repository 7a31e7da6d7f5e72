"""pytest setup for the Pallas front end: CPU devices for shard_map meshes,
and the heddle_pallas package and kernels on the path."""
import os
import pathlib
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "models/pallas/python"), str(ROOT / "kernels/pallas_tpu"),
                str(ROOT / "kernels/pallas_gpu")]
os.chdir(ROOT)  # exported source paths are relative to the repository root
