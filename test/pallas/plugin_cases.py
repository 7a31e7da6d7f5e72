"""Tests that pytest runs under heddle_pallas.plugin (test_plugin.py runs them in a
subprocess): two ask about races, one does not and must fail."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src.pallas.mosaic.interpret import interpret_pallas_call as mosaic_interpret
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def ok_kernel(x_ref, o_ref, t_ref, sem):
    copy = pltpu.make_async_copy(x_ref, t_ref, sem)
    copy.start()
    copy.wait()
    o_ref[...] = t_ref[...] + 1.0


def racy_kernel(x_ref, o_ref, t_ref, sem):
    copy = pltpu.make_async_copy(x_ref, t_ref, sem)
    copy.start()
    o_ref[...] = t_ref[...] + 1.0
    copy.wait()


def call(kernel, mode):
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    return x, pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM(x.shape, x.dtype), pltpu.SemaphoreType.DMA],
        interpret=pltpu.InterpretParams(detect_races=True, dma_execution_mode=mode))(x)


@pytest.mark.parametrize("mode", ["eager", "on_wait"])
def test_asks_and_sees_the_race(mode):
    call(racy_kernel, mode)[1].block_until_ready()
    assert mosaic_interpret.races.races_found


def test_asks_and_sees_no_race():
    x, y = call(ok_kernel, "on_wait")
    assert not mosaic_interpret.races.races_found
    np.testing.assert_allclose(y, x + 1.0)


def test_race_nobody_asked_about_fails():
    call(racy_kernel, "eager")[1].block_until_ready()
