"""pallas_tpu/ring_reuse_recv_sem as a real Pallas TPU kernel (seed 000).

A unidirectional ring all-gather whose receive side is a circular buffer of
`slots` VMEM slots, guarded by a capacity semaphore: the receiver hands a
slot back to its left neighbour once it has copied the chunk out. The bug:
every step signals ONE receive semaphore. With two remote DMAs into one
receiver in flight, the later one can land first and signal it; the wait for
the earlier step returns and the core reads a slot the earlier DMA has not
written yet. fixed=True gives each slot its own receive semaphore.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import PartitionSpec as P

from collectives import handshake


def ring_kernel(x_ref, out_ref, recv_buf, send_sem, recv_sems, capacity, *, n, steps, slots,
                chunk, fixed):
    handshake(n)  # both neighbours are in the kernel: their VMEM buffers exist
    d = jax.lax.axis_index("x")
    left = jax.lax.rem(d + n - 1, n)
    right = jax.lax.rem(d + 1, n)
    out_ref[...] = x_ref[...]
    for s in range(steps):
        slot = s % slots
        if s >= slots:
            pltpu.semaphore_wait(capacity, 1)  # the right neighbour freed my slot there
        send = jax.lax.rem(d + n - s, n)
        recv_sem = recv_sems.at[slot if fixed else 0]
        dma = pltpu.make_async_remote_copy(
            out_ref.at[pl.ds(send * chunk, chunk)], recv_buf.at[pl.ds(slot * chunk, chunk)],
            send_sem, recv_sem, device_id=(right,), device_id_type=pltpu.DeviceIdType.MESH)
        dma.start()
        dma.wait_recv()  # the chunk of step s from the left is in my slot, or so I believe
        got = jax.lax.rem(d + 2 * n - 1 - s, n)
        out_ref[pl.ds(got * chunk, chunk)] = recv_buf[pl.ds(slot * chunk, chunk)]
        if s + slots < steps:
            pltpu.semaphore_signal(capacity, 1, device_id=(left,),
                                   device_id_type=pltpu.DeviceIdType.MESH)
        dma.wait_send()


def chunk_value(owner, i):
    return 100 * (owner + 1) + i


def make(devices=3, steps=2, slots=2, chunk=1, fixed=False, interpret=None):
    """(fn, x, expected): the ring all-gather over `devices` CPU devices."""
    n = devices
    mesh = jax.make_mesh((n,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    kernel = functools.partial(ring_kernel, n=n, steps=steps, slots=slots, chunk=chunk,
                               fixed=fixed)
    call = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((n * chunk,), jnp.int32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=0,
            in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
            out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
            scratch_shapes=[pltpu.VMEM((slots * chunk,), jnp.int32), pltpu.SemaphoreType.DMA,
                            pltpu.SemaphoreType.DMA((slots if fixed else 1,)),
                            pltpu.SemaphoreType.REGULAR]),
        compiler_params=pltpu.CompilerParams(collective_id=0),
        interpret=interpret or pltpu.InterpretParams(dma_execution_mode="eager"))

    def ring_all_gather(x):
        return jax.shard_map(call, mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                             check_vma=False)(x)

    x = np.zeros((n, n * chunk), np.int32)
    want = np.zeros((n, n * chunk), np.int32)
    for dev in range(n):
        for i in range(chunk):
            x[dev, dev * chunk + i] = chunk_value(dev, i)
        for k in range(steps + 1):
            owner = (dev - k) % n
            for i in range(chunk):
                want[dev, owner * chunk + i] = chunk_value(owner, i)
    return ring_all_gather, jnp.asarray(x.reshape(-1)), want.reshape(-1)
