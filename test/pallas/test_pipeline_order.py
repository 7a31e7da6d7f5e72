"""The order of Pallas's TPU pipeline: an output block's write-back is waited
at the end of the next step (emit_pipeline's copy_out, wait_out), so the
prefetch issued two steps later reads what it wrote. JAX's test_aliasing
(tpu_pallas_interpret_test.py), written as its kernel is: input block
(i, j) aliases output block (j, i), and step (i, j) reads a block that step
(j, i) wrote three or more steps earlier."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from heddle_pallas import check


def aliasing_kernel(x_ref, o_ref, s_ref):
    @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
    def _():
        s_ref[0] = jnp.int32(0)

    s = s_ref[0]
    s_ref[0] = s + 1
    o_ref[:] = x_ref[:] + s.astype(x_ref.dtype)


def aliasing_call(out_map):
    return pl.pallas_call(
        aliasing_kernel, out_shape=jax.ShapeDtypeStruct((4 * 8, 4 * 128), jnp.float32),
        grid=(4, 4),
        in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((8, 128), out_map),
        scratch_shapes=(pltpu.SMEM((1,), jnp.int32),),
        input_output_aliases={0: 0},
        interpret=pltpu.InterpretParams(dma_execution_mode="eager"))


def test_write_back_is_waited_before_the_prefetch_two_steps_later():
    expected = np.zeros((4, 4))
    t = 0
    for i in range(4):
        for j in range(4):
            expected[j, i] = expected[i, j] + t
            t += 1
    want = np.kron(expected, np.ones((8, 128))).astype(np.float32)
    result = check(aliasing_call(lambda i, j: (j, i)), np.zeros((32, 512), np.float32),
                   expect=want)
    assert result.verdict == "verified" and result.exhaustive


def test_a_write_back_still_in_flight_races_with_the_next_prefetch():
    # Output block (i, (j + 1) % 4) is the input block of the next step: its
    # prefetch is issued before this step's write-back even starts.
    try:
        check(aliasing_call(lambda i, j: (i, (j + 1) % 4)), np.zeros((32, 512), np.float32))
    except AssertionError as bug:
        assert "race" in str(bug).splitlines()[1] or "race:" in str(bug)
    else:
        raise AssertionError("heddle verified a prefetch racing with a write-back")
