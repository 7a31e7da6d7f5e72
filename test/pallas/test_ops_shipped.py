"""JAX's own Pallas TPU ops as shipped (jax.experimental.pallas.ops.tpu),
checked exhaustively with every schedule's outputs compared with JAX's own
run, and the interpreter rules they needed: lax's size-1 broadcasting in
elementwise ops (flash_attention's `s - m[:, None]`), bfloat16 values
rounded as XLA rounds them (paged_attention), scalar-prefetch operands read
by index maps (megablox.gmm)."""
import functools

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from heddle_pallas import check

EAGER = pltpu.InterpretParams(dma_execution_mode="eager")


def f32(*shape, mod=7):
    return ((np.arange(int(np.prod(shape))) % mod) - mod // 2).astype(np.float32).reshape(shape)


def jax_run(fn, *args):
    with pltpu.force_tpu_interpret_mode(EAGER):
        return jax.tree_util.tree_leaves(fn(*args))


def verified(fn, *args, limit="60", **tolerance):
    result = check(fn, *args, expect=jax_run(fn, *args), flags=("--time-limit", limit),
                   **tolerance)
    assert result.verdict == "verified" and result.exhaustive, result.report
    return result


def stretch_kernel(x_ref, c_ref, r_ref, o_ref):
    # [8,128] - [8,1] + [1,128]: lax broadcasts the size-1 dimensions
    # without a broadcast_in_dim in the jaxpr (JAX 0.8.2).
    v = jax.lax.add(jax.lax.sub(x_ref[...], c_ref[...]), r_ref[...]) * 2.0
    o_ref[...] = jax.lax.clamp(jnp.float32(-5), v, jnp.float32(6))  # paged_attention's clamp


def test_elementwise_ops_stretch_size_one_dimensions_as_lax_does():
    x, c, r = f32(8, 128), f32(8, 1, mod=5), f32(1, 128, mod=3)
    call = pl.pallas_call(stretch_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          interpret=EAGER)
    verified(call, x, c, r)
    np.testing.assert_array_equal(jax_run(call, x, c, r)[0], np.clip((x - c + r) * 2, -5, 6))


def bf16_kernel(x_ref, y_ref, o_ref):
    a = x_ref[...].astype(jnp.bfloat16)
    b = y_ref[...].astype(jnp.bfloat16)
    o_ref[...] = (a * b + a).astype(jnp.float32)


def test_bfloat16_arithmetic_rounds_each_op_to_nearest_even():
    # Values with more mantissa bits than bf16 holds, ties included: every
    # convert, product and sum is rounded to bf16 (ml_dtypes computes the
    # expected values); one wrong rounding fails expect=. JAX agrees when
    # XLA may not keep f32 between ops (conftest: no excess precision).
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 128)).astype(np.float32)
    x[0, :4] = [1.00390625, 1.01171875, -1.00390625, 3.0e38]  # ties, and a product to inf
    y = rng.standard_normal((8, 128)).astype(np.float32)
    call = pl.pallas_call(bf16_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          interpret=EAGER)
    bf16 = ml_dtypes.bfloat16
    a, b = x.astype(bf16).astype(np.float32), y.astype(bf16).astype(np.float32)
    want = ((a * b).astype(bf16).astype(np.float32) + a).astype(bf16).astype(np.float32)
    result = check(call, x, y, expect=want)
    assert result.verdict == "verified" and result.exhaustive, result.report
    np.testing.assert_array_equal(jax_run(call, x, y)[0], want)


def gather_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + idx_ref[pl.program_id(0)].astype(jnp.float32)


def test_scalar_prefetch_operands_steer_the_index_maps():
    # PrefetchScalarGridSpec: block i of the output is block idx[i] of x,
    # plus idx[i]; the index map and the body both read the SMEM operand.
    idx = np.array([3, 0, 2, 1], np.int32)
    x = f32(32, 128)
    spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, idx_ref: (idx_ref[i], 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, idx_ref: (i, 0)))
    call = pl.pallas_call(gather_kernel, grid_spec=spec,
                          out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), interpret=EAGER)
    verified(call, idx, x)
    want = np.concatenate([x[8 * k:8 * k + 8] + k for k in idx])
    np.testing.assert_array_equal(jax_run(call, idx, x)[0], want)


def test_jax_flash_attention_is_verified_with_jax_outputs():
    from jax.experimental.pallas.ops.tpu import flash_attention as fa
    q = f32(1, 1, 128, 128) / 8
    # XLA's exp and its dot's summation order differ from heddle's in the
    # last places, and a softmax sums them: within 1e-5 relative is JAX's.
    result = verified(fa.flash_attention, q, q * 0.5, q + 1, rtol=1e-5)
    assert result.summary["executions"] == 1


def test_jax_paged_attention_in_bfloat16_is_verified_with_jax_outputs():
    from jax.experimental.pallas.ops.tpu.paged_attention import paged_attention
    q = f32(1, 1, 128) / 8
    k = f32(1, 4, 16, 128) / 8
    fn = functools.partial(paged_attention, pages_per_compute_block=2)
    verified(fn, q, k, k + 1, np.array([64], np.int32), np.arange(4, dtype=np.int32)[None],
             rtol=1e-5)


def test_jax_megablox_gmm_is_verified_with_jax_outputs():
    from jax.experimental.pallas.ops.tpu import megablox
    fn = functools.partial(megablox.gmm, tiling=(128, 128, 128))
    verified(fn, f32(256, 128), f32(2, 128, 128, mod=5), np.array([128, 128], np.int32))


def test_jax_all_gather_reuses_a_receive_semaphore_and_races():
    # JAX's all_gather waits recv_sem[1] once per step for "the" incoming
    # right-half DMA, but a neighbour may have two in flight to it (its
    # .wait() waits its send, not the landing): the later one can land
    # first, satisfy the wait, and the device forwards a half that has not
    # arrived. JAX's on_wait interpret mode (it runs the latest pending DMA
    # first) shows it as NaN in the gathered output; heddle finds the race.
    from jax.experimental.pallas.ops.tpu import all_gather
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("x",))
    fn = functools.partial(all_gather.all_gather, mesh=mesh, axis_name="x")
    x = f32(4 * 8, 128)
    try:
        check(fn, x, expect=jax_run(fn, x), flags=("--time-limit", "60"))
    except AssertionError as bug:
        report = str(bug)
        assert "\nrace: data race on dev" in report, report[:400]
        assert ".o_ref[" in report and "all_gather.py:91" in report
    else:
        raise AssertionError("heddle verified JAX's all_gather")


def reshape_repeat_store_kernel(x_ref, o_ref):
    flat = x_ref.reshape(16, 64)[...]       # a RefReshaper transform (ragged_paged_attention)
    wide = pltpu.repeat(flat, 2, axis=1)    # splash_attention's repeat
    rows = jax.lax.broadcasted_iota(jnp.int32, (16, 128), 0)
    o_ref[...] = jnp.full((16, 128), -1.0, jnp.float32)
    pltpu.store(o_ref, wide, mask=rows < 5)  # masked_swap: rows 5.. keep -1
    o_ref[15:16, :] = pltpu.load(x_ref, mask=jnp.ones((8, 128), bool))[0:1, :]


def test_ref_reshape_repeat_and_masked_stores():
    x = f32(8, 128, mod=11)
    call = pl.pallas_call(reshape_repeat_store_kernel, interpret=EAGER,
                          out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32))
    want = np.where(np.arange(16)[:, None] < 5, np.tile(x.reshape(16, 64), (1, 2)), -1.0)
    want[15] = x[0]
    result = check(call, x, expect=want.astype(np.float32))
    assert result.verdict == "verified" and result.exhaustive


def test_jax_ragged_paged_attention_and_splash_attention_are_verified():
    import sys
    sys.path.insert(0, "bench")
    import pallas_ops_census as census
    fn, args = census.op_splash_attention()
    verified(fn, *args, rtol=1e-5)
    fn, args = census.op_ragged_paged_attention()
    want = census.ref_ragged_paged_attention(*args)  # JAX's interpret mode raises on this op
    result = check(fn, *args, expect=want, rtol=1e-5, atol=1e-6)
    assert result.verdict == "verified" and result.exhaustive
