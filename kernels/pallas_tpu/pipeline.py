"""A double-buffered HBM -> VMEM pipeline: BlockSpecs over a grid, so Pallas
copies block i+1 in while the core computes block i (one device)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2 + pl.program_id(0)


def make(blocks=3, block=4, interpret=None):
    call = pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((blocks * block,), jnp.int32),
        grid=(blocks,),
        in_specs=[pl.BlockSpec((block,), lambda i: (i,))],
        out_specs=pl.BlockSpec((block,), lambda i: (i,)),
        interpret=interpret or pltpu.InterpretParams(dma_execution_mode="eager"))
    x = np.arange(blocks * block, dtype=np.int32)
    want = x * 2 + np.repeat(np.arange(blocks, dtype=np.int32), block)

    def double_buffered(v):
        return call(v)
    return double_buffered, jnp.asarray(x), want
