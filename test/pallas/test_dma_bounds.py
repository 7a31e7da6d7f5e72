"""An out-of-bounds DMA descriptor (issue 52): a slice past its ref, or a
copy of 16 rows into an 8-row buffer, is reported as an out-of-bounds DMA
naming the refs, the slice and the bound, as the execution's bug; with
--param out_of_bounds=clip it is a note, its in-bounds part is moved and
heddle explores on to the race the kernel was written to show."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from heddle_pallas import export
from heddle_pallas.check import run


def past_the_ref(x_ref, o_ref, buf, sem):
    start = pl.program_id(0) * 8 + 4  # rows 4..11 of an 8-row ref
    copy = pltpu.make_async_copy(x_ref.at[pl.ds(start, 8)], buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]


def too_big_and_racy(x_ref, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_ref, buf, sem)  # 16 rows into 8
    copy.start()
    o_ref[...] = buf[...]  # before the wait: races with the copy's write
    copy.wait()


def exported(kernel, rows, tmp_path):
    call = pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), grid=(1,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"))
    return export(call, np.ones((rows, 128), np.float32), path=str(tmp_path / "k.json"))


def test_a_slice_past_its_ref_is_an_out_of_bounds_dma(tmp_path):
    r = run(exported(past_the_ref, 8, tmp_path))
    assert r.verdict == "model_error"
    start = past_the_ref.__code__.co_firstlineno + 3  # the copy's .start()
    assert f"model_error: out-of-bounds DMA at test/pallas/test_dma_bounds.py:{start}: x_ref[4:12] " \
        "on dimension 0 of size 8" in r.report, r.report
    assert "misused a primitive" not in r.report


def test_clip_explores_past_the_out_of_bounds_dma_to_the_race(tmp_path):
    path = exported(too_big_and_racy, 16, tmp_path)
    first = run(path)
    assert first.verdict == "model_error"
    assert "out-of-bounds DMA" in first.report
    assert "2048 elements of x_ref copied into 1024 elements of buf" in first.report
    going = run(path, "--param", "out_of_bounds=clip", "--keep-going")
    assert going.verdict == "race", going.report
    assert "race: data race on dev0.buf" in going.report
    start = too_big_and_racy.__code__.co_firstlineno + 2  # the copy's .start()
    assert any(n.startswith(f"out-of-bounds DMA at test/pallas/test_dma_bounds.py:{start}: 2048 "
                            "elements of x_ref copied into 1024 elements of buf (its in-bounds part")
               for n in going.summary["notes"]), going.summary
