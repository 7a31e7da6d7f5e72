"""The Mosaic GPU (plgpu) route: seed 004's race tests as real plgpu kernels
(kernels/pallas_gpu/race_tests.py), exported and checked by heddle, must
give the verdicts of the C++ ports (test/gpu/mosaic_conformance_test.cpp's
table, same names and parameters, both forms: "warp" is written as the
core_map over plgpu.WarpMesh, JAX 0.8.2 having no plgpu.warp_map),
including the two cases JAX skips, which are races."""
import functools
import itertools
import json
import subprocess

import jax
import jax.numpy as jnp
import pytest
from jax.experimental.pallas import mosaic_gpu as plgpu

import race_tests
from heddle_pallas import describe, export
from heddle_pallas.check import heddle_binary, run

KERNELS_PY = "kernels/pallas_gpu/race_tests.py"
FORMS = ("warp", "thread")


def flags(names):
    for values in itertools.product([False, True], repeat=len(names)):
        yield dict(zip(names, values))


def race_unless(ok):
    return "verified" if ok else "race"


def table():
    """(name, params, verdict): the C++ table's rules."""
    t = [("async_gmem_ops_not_visible_unless_synchronized", {"wait_barrier": w}, race_unless(w))
         for w in (True, False)]  # JAX skips wait_barrier=False
    t += [("single_thread_later_gmem_to_smem_copy", f, race_unless(f["b"])) for f in flags("abcd")]
    t += [("single_thread_earlier_gmem_to_smem_copy", {"wait_barrier": w}, race_unless(w))
          for w in (False, True)]
    for form in FORMS:
        for f in flags("abcdef"):
            p = dict(form=form, **f)
            t.append(("multi_thread_gmem_to_smem_copy", p, race_unless(f["b"])))
            t.append(("cross_thread_gmem_to_smem_copy", p, race_unless(f["b"] or f["d"])))
    t += [("single_thread_smem_to_gmem_copy", f, race_unless(f["b"])) for f in flags("abc")]
    t.append(("non_fully_waited_smem_to_gmem_copy", {}, "race"))
    t.append(("allows_rewaiting_smem_to_gmem_copies", {}, "verified"))
    for once in (False, True):
        for loc in range(4):  # (once, 1) is skipped by JAX: a race for heddle
            t.append(("smem_to_gmem_copy_waits_read_only",
                      {"wait_only_once": once, "check_location": loc},
                      race_unless((once and loc == 0) or (not once and loc <= 1))))
    for form in FORMS:
        for r in (False, True):
            t.append(("wait_smem_to_gmem_isolated_per_thread", {"form": form, "check_read": r},
                      "race"))
        t.append(("properly_waited_smem_to_gmem_visible_across_threads", {"form": form},
                  "verified"))
        t += [("barrier_arrive_and_wait", {"form": form, "wait": w}, race_unless(w))
              for w in (False, True)]
    t += [("gmem_to_smem_visible_in_async_if_awaited", {"do_wait": w}, race_unless(w))
          for w in (False, True)]
    t.append(("race_in_double_smem_to_gmem", {}, "race"))
    t.append(("exception_in_unawaited_smem_to_gmem", {}, "async_error"))
    t.append(("exception_in_unawaited_smem_to_gmem", {"wait_read_only": True}, "verified"))
    t.append(("race_in_async_copy_smem_to_gmem_in_cluster", {}, "race"))
    t.append(("no_race_in_async_copy_gmem_to_smem_in_cluster", {}, "verified"))
    t.append(("race_in_sync_copy_smem_to_gmem_in_cluster", {}, "race"))
    t.append(("no_race_in_sync_copy_gmem_to_smem_in_cluster", {}, "verified"))
    t.append(("no_race_in_smem_across_clusters", {}, "verified"))
    return t


def run_case(name, params, tmp_path):
    fn, args, expect = race_tests.CASES[name](**params)
    path = export(fn, *args, path=str(tmp_path / "k.json"), name=name,
                  expect=None if expect is None else jnp.int32(expect))
    return run(path)


def test_every_seed_case_has_the_cpp_ports_verdict(tmp_path):
    cases = table()
    assert len(cases) == 314  # as many as the C++ table
    wrong, counts = [], {}
    for name, params, want in cases:
        r = run_case(name, params, tmp_path)
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
        if r.verdict != want or (want == "verified" and not r.exhaustive):
            wrong.append(f"mosaic/{name} {params}: heddle says {r.verdict}, the C++ port {want}\n"
                         f"{r.report}")
    print(f"mosaic GPU (plgpu) conformance: {len(cases)} cases agree: "
          f"{len(cases) - len(wrong)} ({counts})")
    assert not wrong, "\n".join(wrong[:5])


def line_of(marker):
    with open(KERNELS_PY) as f:
        for n, text in enumerate(f, 1):
            if marker in text:
                return f"{KERNELS_PY}:{n}"
    raise AssertionError(marker)


def test_race_names_the_kernels_python_line_and_replays(tmp_path):
    fn, args, _ = race_tests.CASES["async_gmem_ops_not_visible_unless_synchronized"](
        wait_barrier=False)
    path = export(fn, *args, path=str(tmp_path / "k.json"))
    cex = tmp_path / "cex.json"
    proc = subprocess.run([heddle_binary(), "run", "--pallas", path, "--out", str(cex)],
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "race: data race" in proc.stdout
    assert line_of("out_ref[...] = 42") in proc.stdout
    assert line_of("plgpu.copy_gmem_to_smem(out_ref, smem_ref, barrier_ref)") in proc.stdout
    again = subprocess.run([heddle_binary(), "replay", str(cex)], capture_output=True, text=True)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "data race" in again.stdout and line_of("out_ref[...] = 42") in again.stdout


def test_export_describes_the_gpu_mesh_scratch_and_barriers():
    fn, args, _ = race_tests.CASES["multi_thread_gmem_to_smem_copy"](
        form="thread", a=False, b=True, c=False, d=False, e=False, f=False)
    doc = describe(fn, *args)
    assert doc["kind"] == "mosaic_gpu" and doc["version"] == 3
    assert doc["gpu_mesh"]["num_threads"] == 2 and doc["gpu_mesh"]["thread_name"] == "t"
    assert [o["output"] for o in doc["gpu_operands"]] in ([None, 0], [0, None])
    scoped = doc["kernel"]["eqns"][0]
    assert scoped["prim"] == "run_scoped" and scoped["params"]["collective_axes"] == ["t"]
    body = scoped["params"]["jaxpr"]["jaxpr"]["invars"]
    assert sorted(v.get("num_arrivals", 0) for v in body) == [0, 1, 1]


def test_unsupported_plgpu_primitive_is_a_usage_error_naming_its_line(tmp_path):
    @functools.partial(plgpu.kernel, out_shape=jax.ShapeDtypeStruct((2,), jnp.int32),
                       scratch_shapes=dict(smem_ref=plgpu.SMEM((2,), jnp.int32)))
    def k(out_ref, smem_ref):
        plgpu.wgmma_wait(0)  # not interpreted
        plgpu.copy_smem_to_gmem(smem_ref, out_ref)
        plgpu.wait_smem_to_gmem(0)

    path = export(k, path=str(tmp_path / "k.json"))
    proc = subprocess.run([heddle_binary(), "run", "--pallas", path], capture_output=True, text=True)
    assert proc.returncode == 2
    here = f"test/pallas/test_pallas_gpu.py:{line_of_here('plgpu.wgmma_wait(0)')}"
    assert "primitive wgmma_wait" in proc.stderr and here in proc.stderr, proc.stderr


def test_unsupported_plgpu_parameter_is_a_usage_error_naming_its_line(tmp_path):
    @functools.partial(plgpu.kernel, out_shape=jax.ShapeDtypeStruct((2,), jnp.int32),
                       scratch_shapes=dict(smem_ref=plgpu.SMEM((2,), jnp.int32)))
    def k(out_ref, smem_ref):
        plgpu.copy_smem_to_gmem(smem_ref, out_ref, reduction_op="add")  # reduces
        plgpu.wait_smem_to_gmem(0)

    path = export(k, path=str(tmp_path / "k.json"))
    proc = subprocess.run([heddle_binary(), "run", "--pallas", path], capture_output=True, text=True)
    assert proc.returncode == 2
    here = "test/pallas/test_pallas_gpu.py:%d" % line_of_here("# reduces")
    assert "primitive copy_smem_to_gmem with reduction_op" in proc.stderr, proc.stderr
    assert here in proc.stderr, proc.stderr


def line_of_here(marker):
    with open(__file__) as f:
        for n, text in enumerate(f, 1):
            if marker in text and "line_of_here" not in text:
                return n
    raise AssertionError(marker)


def test_exported_plgpu_data_for_the_cpp_tests_is_current(tmp_path):
    """test/pallas/pallas_gpu_test.cpp reads test/pallas/data/plgpu_*.json, whose
    lines must be race_tests.py's: rerun test/pallas/export_data.py when it fails."""
    import export_data
    for name in export_data.GPU_CASES:
        fresh = json.loads(open(export_data.export_gpu_case(name, tmp_path)).read())
        stored = json.loads(open(f"test/pallas/data/{name}.json").read())
        assert fresh == stored, f"test/pallas/data/{name}.json is stale: run test/pallas/export_data.py"
