"""pytest setup for the Pallas front end: CPU devices for shard_map meshes,
and the heddle_pallas package and kernels on the path."""
import os
import pathlib
import sys

# Without excess precision XLA rounds every bf16 op as the jaxpr says (its
# CPU default may keep f32 between ops), so JAX's outputs are comparable.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4 "
                      "--xla_allow_excess_precision=false")
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "models/pallas/python"), str(ROOT / "kernels/pallas_tpu"),
                str(ROOT / "kernels/pallas_gpu")]
os.chdir(ROOT)  # exported source paths are relative to the repository root
