"""A double-buffered HBM -> VMEM pipeline: BlockSpecs over a grid, so Pallas
copies block i+1 in while the core computes block i (one device)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2 + pl.program_id(0)


def make(blocks=3, block=4, parallel=False, interpret=None):
    """parallel=True marks the grid dimension parallel (split across cores)."""
    call = pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((blocks * block,), jnp.int32),
        grid=(blocks,),
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel",) if parallel else ("arbitrary",)),
        in_specs=[pl.BlockSpec((block,), lambda i: (i,))],
        out_specs=pl.BlockSpec((block,), lambda i: (i,)),
        interpret=interpret or pltpu.InterpretParams(dma_execution_mode="eager"))
    x = np.arange(blocks * block, dtype=np.int32)
    want = x * 2 + np.repeat(np.arange(blocks, dtype=np.int32), block)

    def double_buffered(v):
        return call(v)
    return double_buffered, jnp.asarray(x), want


def matmul_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...].T, preferred_element_type=jnp.int32)


def make_matmul(n=3, interpret=None):
    """x @ y.T on one VMEM block each (dot_general and transpose)."""
    call = pl.pallas_call(
        matmul_kernel,
        out_shape=jax.ShapeDtypeStruct((n, n), jnp.int32),
        interpret=interpret or pltpu.InterpretParams(dma_execution_mode="eager"))
    x = np.arange(n * n, dtype=np.int32).reshape(n, n)
    y = (np.arange(n * n, dtype=np.int32) % 4 - 1).reshape(n, n)

    def matmul(a, b):
        return call(a, b)
    return matmul, (jnp.asarray(x), jnp.asarray(y)), x @ y.T
