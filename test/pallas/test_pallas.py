"""Checking real Pallas kernels from pytest with heddle_pallas.check."""
import json

import numpy as np
import pytest

import collectives
import local_ops
import pipeline
import ring_reuse_recv_sem as ring
from heddle_pallas import BugFound, ExportError, check, describe, export

RING_PY = "kernels/pallas_tpu/ring_reuse_recv_sem.py"


def line_of(path, marker):
    with open(path) as f:
        for n, text in enumerate(f, 1):
            if marker in text:
                return f"{path}:{n}"
    raise AssertionError(marker)


def test_ring_reusing_one_receive_semaphore_races_at_its_python_lines():
    fn, x, _ = ring.make(devices=3)
    with pytest.raises(BugFound) as bug:
        check(fn, x)
    report = str(bug.value)
    assert "race: data race on dev" in report
    assert line_of(RING_PY, "dma.start()") in report
    assert line_of(RING_PY, "= recv_buf[pl.ds") in report
    assert bug.value.result.verdict == "race"


@pytest.mark.parametrize("devices", [3])
def test_fixed_ring_is_verified_with_jax_outputs(devices):
    fn, x, want = ring.make(devices=devices, fixed=True)
    out = np.asarray(fn(x))
    np.testing.assert_array_equal(out, want)
    result = check(fn, x, expect=out)
    assert result.verdict == "verified" and result.exhaustive


@pytest.mark.parametrize("make", [collectives.make_right_permute, collectives.make_all_gather,
                                  collectives.make_all_reduce, pipeline.make, local_ops.make])
def test_collectives_and_pipeline_match_jax_in_every_schedule(make):
    fn, x, want = make()
    out = np.asarray(fn(x))
    np.testing.assert_array_equal(out.reshape(-1), np.asarray(want).reshape(-1))
    result = check(fn, x, expect=out)
    assert result.verdict == "verified" and result.exhaustive


def test_parallel_grid_split_across_two_cores():
    fn, x, want = pipeline.make(blocks=4, parallel=True)
    out = np.asarray(fn(x))
    np.testing.assert_array_equal(out, want)
    doc = describe(fn, x, cores=2)
    assert doc["cores"] == 2 and doc["grid_mapping"]["dimension_semantics"] == ["parallel"]
    # Verified with JAX's outputs: each block written once (two cores writing
    # one block would race; a block no core ran would keep a wrong value).
    result = check(fn, x, expect=out, cores=2)
    assert result.verdict == "verified" and result.exhaustive


def test_matmul_block_matches_jax():
    fn, args, want = pipeline.make_matmul()
    out = np.asarray(fn(*args))
    np.testing.assert_array_equal(out, want)
    assert check(fn, *args, expect=out).verdict == "verified"


def test_wrong_expected_output_is_reported():
    fn, x, want = collectives.make_right_permute()
    with pytest.raises(BugFound, match="but JAX computes"):
        check(fn, x, expect=np.asarray(want) + 1)


def test_export_describes_grid_blocks_and_mesh(tmp_path):
    fn, x, _ = pipeline.make(blocks=3, block=4)
    doc = describe(fn, x)
    assert doc["grid_mapping"]["grid"] == [3]
    assert doc["grid_mapping"]["blocks"][0]["block_shape"] == [4]
    assert doc["arg_names"] == ["x_ref", "o_ref"]
    fn, x, _ = ring.make(devices=3)
    path = export(fn, x, path=str(tmp_path / "ring.json"))
    doc = json.load(open(path))
    assert doc["mesh"] == {"axes": [{"name": "x", "size": 3}], "devices": 3}
    assert [o["aval"]["shape"] for o in doc["operands"]] == [[3]]
    assert doc["operands"][0]["values"][1] == [0, 200, 0]  # device 1's shard
    assert {e["prim"] for e in doc["kernel"]["eqns"]} >= {"dma_start", "dma_wait", "axis_index"}


def test_export_without_pallas_call_says_so():
    with pytest.raises(ExportError, match="no pallas_call"):
        describe(lambda v: v + 1, np.zeros(2, np.int32))
