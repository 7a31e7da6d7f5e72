"""Correct Pallas TPU collectives, as in the Pallas distributed-computing guide:
right_permute, all_gather (a grid over ring steps) and a one-shot all_reduce.
Each make_* returns (fn, x, expected) for `devices` CPU devices; fn runs in
JAX's TPU interpret mode, and heddle checks the same pallas_call.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import PartitionSpec as P

EAGER = pltpu.InterpretParams(dma_execution_mode="eager")


def _mesh(n):
    return jax.make_mesh((n,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))


def _sharded(call, n):
    return jax.shard_map(call, mesh=_mesh(n), in_specs=P("x"), out_specs=P("x"), check_vma=False)


def handshake(n, peers=None):
    """A barrier before the first DMA: tell the devices that will DMA into
    this one (by default the left neighbour) that its buffers exist, then
    wait until every device this one sends to has said the same."""
    d = jax.lax.axis_index("x")
    peers = peers or [n - 1]
    barrier = pltpu.get_barrier_semaphore()
    for k in peers:
        pltpu.semaphore_signal(barrier, 1, device_id=(jax.lax.rem(d + k, n),),
                               device_id_type=pltpu.DeviceIdType.MESH)
    pltpu.semaphore_wait(barrier, len(peers))


def right_permute_kernel(x_ref, out_ref, send_sem, recv_sem, *, n):
    handshake(n)
    d = jax.lax.axis_index("x")
    right = jax.lax.rem(d + 1, n)
    copy = pltpu.make_async_remote_copy(x_ref, out_ref, send_sem, recv_sem, device_id=(right,),
                                        device_id_type=pltpu.DeviceIdType.MESH)
    copy.start()
    copy.wait()


def make_right_permute(devices=2, block=2, interpret=None):
    n = devices
    call = pl.pallas_call(
        functools.partial(right_permute_kernel, n=n),
        out_shape=jax.ShapeDtypeStruct((block,), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA],
        compiler_params=pltpu.CompilerParams(collective_id=0),
        interpret=interpret or EAGER)
    x = np.arange(n * block, dtype=np.int32) + 10
    want = np.roll(x.reshape(n, block), 1, axis=0).reshape(-1)
    return _sharded(call, n), jnp.asarray(x), want


def all_gather_kernel(x_ref, out_ref, local_sem, send_sem, recv_sems, *, n):
    step = pl.program_id(0)
    d = jax.lax.axis_index("x")
    right = jax.lax.rem(d + 1, n)

    @pl.when(step == 0)
    def _():
        handshake(n)
        local = pltpu.make_async_copy(x_ref, out_ref.at[d], local_sem)
        local.start()
        local.wait()

    slot = jax.lax.rem(d + n - step, n)
    copy = pltpu.make_async_remote_copy(out_ref.at[slot], out_ref.at[slot], send_sem,
                                        recv_sems.at[step], device_id=(right,),
                                        device_id_type=pltpu.DeviceIdType.MESH)
    copy.start()
    copy.wait()


def make_all_gather(devices=2, block=2, interpret=None):
    n = devices
    call = pl.pallas_call(
        functools.partial(all_gather_kernel, n=n),
        out_shape=jax.ShapeDtypeStruct((n, block), jnp.int32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=0, grid=(n - 1,),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=pl.BlockSpec(memory_space=pl.ANY),
            scratch_shapes=[pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA,
                            pltpu.SemaphoreType.DMA((n - 1,))]),
        compiler_params=pltpu.CompilerParams(collective_id=0),
        interpret=interpret or EAGER)

    def gather(x):
        return jax.shard_map(call, mesh=_mesh(n), in_specs=P("x"), out_specs=P("x"),
                             check_vma=False)(x)

    x = (np.arange(n * block, dtype=np.int32) + 1).reshape(n, block)
    want = np.tile(x, (n, 1))
    return gather, jnp.asarray(x.reshape(-1)), want.reshape(n * n, block)


def all_reduce_kernel(x_ref, out_ref, gathered, send_sem, recv_sems, *, n):
    handshake(n, peers=list(range(1, n)))  # every device sends to every other
    d = jax.lax.axis_index("x")
    copies = []
    for k in range(1, n):
        to = jax.lax.rem(d + k, n)
        copy = pltpu.make_async_remote_copy(x_ref, gathered.at[d], send_sem, recv_sems.at[d],
                                            device_id=(to,),
                                            device_id_type=pltpu.DeviceIdType.MESH)
        copy.start()
        copies.append(copy)
    gathered[d] = x_ref[...]
    for k in range(1, n):
        src = jax.lax.rem(d + n - k, n)
        copies[k - 1].wait_send()
        pltpu.make_async_remote_copy(x_ref, gathered.at[src], send_sem, recv_sems.at[src],
                                     device_id=(src,),
                                     device_id_type=pltpu.DeviceIdType.MESH).wait_recv()

    def add_row(i, acc):
        return acc + gathered[i]

    out_ref[...] = jax.lax.fori_loop(0, n, add_row, jnp.zeros_like(out_ref))


def make_all_reduce(devices=2, block=2, interpret=None):
    n = devices
    call = pl.pallas_call(
        functools.partial(all_reduce_kernel, n=n),
        out_shape=jax.ShapeDtypeStruct((block,), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[pltpu.VMEM((n, block), jnp.int32), pltpu.SemaphoreType.DMA,
                        pltpu.SemaphoreType.DMA((n,))],
        compiler_params=pltpu.CompilerParams(collective_id=0),
        interpret=interpret or EAGER)
    x = (np.arange(n * block, dtype=np.int32) * 3 + 1)
    want = np.tile(x.reshape(n, block).sum(axis=0), n)
    return _sharded(call, n), jnp.asarray(x), want
