"""One core's local operations: a run_scoped VMEM buffer, jnp.where, a
while loop, iota and a reduction (one device).
A coverage kernel for the interpreter's primitives; its output is JAX's."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def local_ops_kernel(x_ref, o_ref):
    def scoped(buf):
        buf[...] = x_ref[...]
        v = buf[...]
        o_ref[...] = jnp.where(v % 2 == 0, v, -v)

    pl.run_scoped(scoped, pltpu.VMEM(x_ref.shape, jnp.int32))

    def step(i):
        o_ref[...] = o_ref[...] + jax.lax.broadcasted_iota(jnp.int32, o_ref.shape, 0) * i
        return i + 1

    jax.lax.while_loop(lambda i: i < 3, step, jnp.int32(0))
    o_ref[pl.ds(0, 1)] = o_ref[pl.ds(0, 1)] + jnp.max(x_ref[...]) - jnp.sum(x_ref[...])


def make(n=6, interpret=None):
    call = pl.pallas_call(
        local_ops_kernel,
        out_shape=jax.ShapeDtypeStruct((n,), jnp.int32),
        interpret=interpret or pltpu.InterpretParams(dma_execution_mode="eager"))
    x = np.arange(n, dtype=np.int32) * 3 + 1
    want = np.where(x % 2 == 0, x, -x) + np.arange(n, dtype=np.int32) * 3
    want[0] += x.max() - x.sum()

    def local_ops(v):
        return call(v)
    return local_ops, jnp.asarray(x), want
