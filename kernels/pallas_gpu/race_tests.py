"""JAX's Mosaic GPU interpret race tests (seed 004) as real plgpu kernels.

Each case is `CASES[name](**params) -> (fn, args, expect)`: `fn(*args)` is a
plgpu.kernel, `expect` the output the kernel must leave (None: unchecked).
Names and parameters are those of test/gpu/mosaic_conformance_test.cpp's
C++ ports (kernel "mosaic/<name>"), written for JAX 0.8.2: `out_shape` and
`scratch_shapes` (the seed's out_type/scratch_types). The two-thread tests
have both forms: "thread" (num_threads=2, axis 't') and "warp" (one Pallas
thread whose four warps run the body: 0.8.2 has no plgpu.warp_map, so it is
written as the core_map over plgpu.WarpMesh that warp_map wraps).
barrier_arrive_and_wait is written as arrive, then wait (0.8.2 has no
plgpu.barrier_arrive_and_wait).
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

I32 = jax.ShapeDtypeStruct((), jnp.int32)
CASES = {}


def case(fn):
    """Registers a case under its function name."""
    CASES[fn.__name__] = fn
    return fn


def kernel(out_shape=I32, num_threads=None, **scratch):
    """plgpu.kernel with named scratch (thread axis 't' when num_threads)."""
    extra = dict(num_threads=num_threads, thread_name="t") if num_threads else {}
    return functools.partial(plgpu.kernel, out_shape=out_shape, scratch_shapes=scratch, **extra)


def smem(*shape):
    return plgpu.SMEM(shape, jnp.int32)


def gmem(*shape):
    return plgpu.GMEM(shape, jnp.int32)


def two_threads(form, first, second):
    """Runs first on logical thread 0 and second on 1: Pallas threads of axis
    't' ("thread"), or warps of axis 'w' of one Pallas thread ("warp"); the
    seed's WarpSpecializeHelper.maybe_warp_specialize."""
    def split(axis):
        pl.when(jax.lax.axis_index(axis) == 0)(first)
        pl.when(jax.lax.axis_index(axis) == 1)(second)
    if form == "thread":
        split("t")
    else:
        pl.core_map(plgpu.WarpMesh(axis_name="w"))(lambda: split("w"))


def threads(form):
    """plgpu.kernel's num_threads in `form`."""
    return 2 if form == "thread" else None


def commit_if(flag):
    if flag:
        plgpu.commit_smem()


@case
def async_gmem_ops_not_visible_unless_synchronized(wait_barrier):
    @kernel(smem_ref=smem(), barrier_ref=plgpu.Barrier(num_arrivals=1))
    def k(out_ref, smem_ref, barrier_ref):
        plgpu.copy_gmem_to_smem(out_ref, smem_ref, barrier_ref)
        if wait_barrier:
            plgpu.barrier_wait(barrier_ref)
        plgpu.commit_smem()
        out_ref[...] = 42  # races with the load's read of out_ref unless waited
    return k, (), 42


@case
def single_thread_later_gmem_to_smem_copy(a, b, c, d):
    @kernel(smem_ref=smem(), barrier_ref=plgpu.Barrier(num_arrivals=1))
    def k(in_ref, out_ref, smem_ref, barrier_ref):
        commit_if(a)
        smem_ref[...] = 100
        commit_if(b)
        plgpu.copy_gmem_to_smem(in_ref, smem_ref, barrier_ref)
        commit_if(c)
        plgpu.barrier_wait(barrier_ref)
        commit_if(d)
        out_ref[...] = smem_ref[...]
    return k, (jnp.int32(42),), 42


@case
def single_thread_earlier_gmem_to_smem_copy(wait_barrier):
    @kernel(gmem_ref=gmem(), smem_ref=smem(), barrier_ref=plgpu.Barrier(num_arrivals=1))
    def k(out_ref, gmem_ref, smem_ref, barrier_ref):
        plgpu.copy_gmem_to_smem(gmem_ref, smem_ref, barrier_ref)
        if wait_barrier:
            plgpu.barrier_wait(barrier_ref)
        smem_ref[...] = 42
        out_ref[...] = smem_ref[...]
    return k, (), 42


def two_barriers():
    return dict(smem_ref=smem(), thread_barrier=plgpu.Barrier(num_arrivals=1),
                copy_barrier=plgpu.Barrier(num_arrivals=1))


@case
def multi_thread_gmem_to_smem_copy(form, a, b, c, d, e, f):
    @kernel(num_threads=threads(form), **two_barriers())
    def k(in_ref, out_ref, smem_ref, thread_barrier, copy_barrier):
        def first():
            commit_if(a)
            smem_ref[...] = 100
            commit_if(b)
            plgpu.copy_gmem_to_smem(in_ref, smem_ref, copy_barrier)
            commit_if(c)
            plgpu.barrier_arrive(thread_barrier)

        def second():
            commit_if(d)
            plgpu.barrier_wait(thread_barrier)
            commit_if(e)
            plgpu.barrier_wait(copy_barrier)
            commit_if(f)
            out_ref[...] = smem_ref[...]
        two_threads(form, first, second)
    return k, (jnp.int32(42),), 42


@case
def cross_thread_gmem_to_smem_copy(form, a, b, c, d, e, f):
    @kernel(num_threads=threads(form), **two_barriers())
    def k(in_ref, out_ref, smem_ref, thread_barrier, copy_barrier):
        def first():
            commit_if(a)
            smem_ref[...] = 100
            commit_if(b)
            plgpu.barrier_arrive(thread_barrier)

        def second():
            commit_if(c)
            plgpu.barrier_wait(thread_barrier)
            commit_if(d)
            plgpu.copy_gmem_to_smem(in_ref, smem_ref, copy_barrier)
            commit_if(e)
            plgpu.barrier_wait(copy_barrier)
            commit_if(f)
            out_ref[...] = smem_ref[...]
        two_threads(form, first, second)
    return k, (jnp.int32(42),), 42


@case
def single_thread_smem_to_gmem_copy(a, b, c):
    @kernel(gmem_ref=gmem(), smem_ref=smem())
    def k(out_ref, gmem_ref, smem_ref):
        commit_if(a)
        smem_ref[...] = 42
        commit_if(b)
        plgpu.copy_smem_to_gmem(smem_ref, gmem_ref)
        commit_if(c)
        plgpu.wait_smem_to_gmem(0)
        out_ref[...] = gmem_ref[...]
    return k, (), 42


@case
def non_fully_waited_smem_to_gmem_copy():
    @kernel(smem1=smem(), smem2=smem(), gmem1=gmem(), gmem2=gmem())
    def k(out_ref, smem1, smem2, gmem1, gmem2):
        smem1[...] = 1
        smem2[...] = 2
        plgpu.commit_smem()
        plgpu.copy_smem_to_gmem(smem1, gmem1)
        plgpu.copy_smem_to_gmem(smem2, gmem2)
        plgpu.wait_smem_to_gmem(1)
        out_ref[...] = gmem1[...] + gmem2[...]  # gmem2's store may be in flight
        plgpu.wait_smem_to_gmem(0)
    return k, (), None


@case
def allows_rewaiting_smem_to_gmem_copies():
    @kernel(smem_ref=smem(3), gmem_ref=gmem(3))
    def k(in_ref, out_ref, smem_ref, gmem_ref):
        smem_ref[...] = in_ref[...]
        plgpu.commit_smem()
        for i in range(3):
            plgpu.copy_smem_to_gmem(smem_ref.at[i], gmem_ref.at[i])
        plgpu.wait_smem_to_gmem(1)
        plgpu.wait_smem_to_gmem(2)
        out_ref[...] = gmem_ref[0] + gmem_ref[1]
        plgpu.wait_smem_to_gmem(0)
        out_ref[...] = gmem_ref[0] + gmem_ref[1] + gmem_ref[2]
    return k, (jnp.array([1, 2, 3], dtype=jnp.int32),), 6


@case
def smem_to_gmem_copy_waits_read_only(wait_only_once, check_location):
    @kernel(out_shape=jax.ShapeDtypeStruct((2,), jnp.int32), smem_ref=smem(2))
    def k(in_ref, out_ref, smem_ref):
        smem_ref[...] = in_ref[...]
        plgpu.commit_smem()
        plgpu.copy_smem_to_gmem(smem_ref.at[0], out_ref.at[0])
        plgpu.copy_smem_to_gmem(smem_ref.at[1], out_ref.at[1])
        targets = [smem_ref.at[0], out_ref.at[0], smem_ref.at[1], out_ref.at[1]]
        plgpu.wait_smem_to_gmem(1, wait_read_only=True)
        if not wait_only_once:
            plgpu.wait_smem_to_gmem(1)
        targets[check_location][...] = 3
        plgpu.wait_smem_to_gmem(0, wait_read_only=True)
    return k, (jnp.array([1, 2], dtype=jnp.int32),), None


@case
def wait_smem_to_gmem_isolated_per_thread(form, check_read):
    @kernel(num_threads=threads(form), smem=smem(), barrier=plgpu.Barrier(num_arrivals=1),
            cleanup_barrier=plgpu.Barrier(num_arrivals=1))
    def k(out_ref, smem, barrier, cleanup_barrier):
        def first():
            plgpu.copy_smem_to_gmem(smem, out_ref)
            plgpu.barrier_arrive(barrier)
            plgpu.barrier_wait(cleanup_barrier)
            plgpu.wait_smem_to_gmem(0)

        def second():
            plgpu.barrier_wait(barrier)
            plgpu.wait_smem_to_gmem(0)  # waits this thread's stores: none
            if check_read:
                smem[...] = 43
            else:
                out_ref[...] = 43
            plgpu.barrier_arrive(cleanup_barrier)
        two_threads(form, first, second)
    return k, (), None


@case
def properly_waited_smem_to_gmem_visible_across_threads(form):
    @kernel(num_threads=threads(form), smem_ref=smem(), gmem_ref=gmem(),
            barrier=plgpu.Barrier(num_arrivals=1))
    def k(out_ref, smem_ref, gmem_ref, barrier):
        def first():
            smem_ref[...] = 42
            plgpu.commit_smem()
            plgpu.copy_smem_to_gmem(smem_ref, gmem_ref)
            plgpu.wait_smem_to_gmem(0)
            plgpu.barrier_arrive(barrier)

        def second():
            plgpu.barrier_wait(barrier)
            out_ref[...] = gmem_ref[...]
        two_threads(form, first, second)
    return k, (), 42


@case
def barrier_arrive_and_wait(form, wait):
    @kernel(num_threads=threads(form), smem_ref=smem(), barrier=plgpu.Barrier(num_arrivals=2))
    def k(out_ref, smem_ref, barrier):
        def first():
            smem_ref[...] = 42
            plgpu.barrier_arrive(barrier)

        def second():
            plgpu.barrier_arrive(barrier)
            if wait:
                plgpu.barrier_wait(barrier)
            out_ref[...] = smem_ref[...]
        two_threads(form, first, second)
    return k, (), 42 if wait else None


@case
def gmem_to_smem_visible_in_async_if_awaited(do_wait):
    @kernel(smem_ref=smem(2), gmem_ref=gmem(2),
            barrier=plgpu.Barrier(num_arrivals=1 if do_wait else 2))
    def k(_out_ref, smem_ref, gmem_ref, barrier):
        plgpu.commit_smem()
        plgpu.copy_gmem_to_smem(gmem_ref, smem_ref, barrier)
        if do_wait:
            plgpu.barrier_wait(barrier)
        plgpu.copy_gmem_to_smem(gmem_ref, smem_ref, barrier)
        plgpu.barrier_wait(barrier)
    return k, (), None


@case
def race_in_double_smem_to_gmem():
    @kernel(smem_ref=smem(2), gmem_ref=gmem(2))
    def k(_out_ref, smem_ref, gmem_ref):
        plgpu.commit_smem()
        plgpu.copy_smem_to_gmem(smem_ref, gmem_ref)
        plgpu.copy_smem_to_gmem(smem_ref, gmem_ref)
        plgpu.wait_smem_to_gmem(0)
    return k, (), None


@case
def exception_in_unawaited_smem_to_gmem(wait_read_only=False):
    @kernel(out_shape=jax.ShapeDtypeStruct((2,), jnp.int32), smem_ref=smem(2))
    def k(out_ref, smem_ref):
        plgpu.copy_smem_to_gmem(smem_ref, out_ref)
        if wait_read_only:
            plgpu.wait_smem_to_gmem(0, wait_read_only=True)
    return k, (), None


def cluster_kernel(**kw):
    return functools.partial(plgpu.kernel, out_shape=I32, cluster=(2,), cluster_names=("c0",), **kw)


@case
def race_in_async_copy_smem_to_gmem_in_cluster():
    @cluster_kernel(scratch_shapes=dict(smem_ref=smem()))
    def k(out_ref, smem_ref):
        plgpu.copy_smem_to_gmem(smem_ref, out_ref)
        plgpu.wait_smem_to_gmem(0)
    return k, (), None


@case
def no_race_in_async_copy_gmem_to_smem_in_cluster():
    @cluster_kernel(scratch_shapes=dict(smem_ref=smem(), barrier=plgpu.Barrier(num_arrivals=1)))
    def k(out_ref, smem_ref, barrier):
        plgpu.copy_gmem_to_smem(out_ref, smem_ref, barrier)
        plgpu.barrier_wait(barrier)
    return k, (), None


@case
def race_in_sync_copy_smem_to_gmem_in_cluster():
    @cluster_kernel(scratch_shapes=dict(smem_ref=smem()))
    def k(out_ref, smem_ref):
        out_ref[...] = smem_ref[...]
    return k, (), None


@case
def no_race_in_sync_copy_gmem_to_smem_in_cluster():
    @cluster_kernel(scratch_shapes=dict(smem_ref=smem()))
    def k(in_ref, _out_ref, smem_ref):
        smem_ref[...] = in_ref[...]
    return k, (jnp.int32(42),), None


@case
def no_race_in_smem_across_clusters():
    @cluster_kernel(scratch_shapes=dict(smem_ref=smem()), num_threads=2, thread_name="t")
    def k(_out_ref, smem_ref):
        first_cta = jax.lax.axis_index("c0") == 0
        second_cta = jax.lax.axis_index("c0") == 1
        pl.when(first_cta & (jax.lax.axis_index("t") == 0))(lambda: smem_ref.__setitem__(..., 42))
        pl.when(second_cta & (jax.lax.axis_index("t") == 1))(lambda: smem_ref.__setitem__(..., 43))
    return k, (), None
