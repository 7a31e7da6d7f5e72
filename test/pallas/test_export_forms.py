"""export/check accept what users pass: jit, functools.partial, custom_vjp and
custom_jvp, several pallas_calls with data flowing between them, pallas_calls
under vmap/scan/cond, operands computed in the function, functions returning
some of a kernel's outputs, NaN and Inf values; and check() leaves no
exports behind but keeps a failing kernel's replay file."""
import functools
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from heddle_pallas import BugFound, ExportError, check, describe, describe_all, export_dir

EAGER = pltpu.InterpretParams(dma_execution_mode="eager")


def add_kernel(x_ref, o_ref, *, k):
    o_ref[...] = x_ref[...] + k


def adder(k, n=8, block=4, dtype=jnp.float32):
    """A BlockSpec pipeline over n/block blocks computing x + k."""
    return pl.pallas_call(
        functools.partial(add_kernel, k=k),
        out_shape=jax.ShapeDtypeStruct((n,), dtype),
        grid=(n // block,),
        in_specs=[pl.BlockSpec((block,), lambda i: (i,))],
        out_specs=pl.BlockSpec((block,), lambda i: (i,)),
        interpret=EAGER)


def racy_kernel(x_ref, o_ref, buf, sem):
    """Starts a copy into buf and reads buf before waiting for it: a race."""
    copy = pltpu.make_async_copy(x_ref, buf, sem)
    copy.start()
    o_ref[...] = buf[...]
    copy.wait()


def racy(n=8):
    return pl.pallas_call(
        racy_kernel,
        out_shape=jax.ShapeDtypeStruct((n,), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((n,), jnp.float32), pltpu.SemaphoreType.DMA],
        interpret=EAGER)


X = np.arange(8, dtype=np.float32)


def test_jitted_function_is_exported():
    fn = jax.jit(lambda x: adder(1.0)(x))
    assert [e.primitive.name for e in jax.make_jaxpr(fn)(X).jaxpr.eqns] == ["jit"]
    result = check(fn, X, expect=X + 1)
    assert result.verdict == "verified" and result.exhaustive


def test_partial_of_a_jitted_function_takes_its_name():
    @functools.partial(jax.jit, static_argnames=["k"])
    def add_k(x, *, k):
        return adder(k)(x)
    fn = functools.partial(add_k, k=3.0)
    assert describe(fn, X)["name"] == "add_k"
    assert check(fn, X, expect=X + 3).verdict == "verified"


def test_custom_vjp_and_custom_jvp_wrappers_are_looked_through():
    @jax.custom_vjp
    def f(x):
        return adder(2.0)(x)
    f.defvjp(lambda x: (f(x), None), lambda _, g: (g,))

    @jax.custom_jvp
    def g(x):
        return adder(5.0)(x)
    g.defjvp(lambda p, t: (g(*p), t[0]))
    assert check(f, X, expect=X + 2).verdict == "verified"
    assert check(g, X, expect=X + 5).verdict == "verified"


def test_two_calls_are_checked_in_order_with_data_flowing():
    def two(x):
        return adder(4.0)(adder(1.0)(x) * 2)   # the second's operand is computed
    docs = describe_all(two, X)
    assert len(docs) == 2
    assert docs[1]["operands"][0]["values"] == [((X + 1) * 2).tolist()]
    result = check(two, X, expect=(X + 1) * 2 + 4)
    assert [k.verdict for k in result.kernels] == ["verified", "verified"]


def test_a_race_in_the_second_call_is_found():
    def then_racy(x):
        return racy()(adder(1.0)(x))
    with pytest.raises(BugFound, match="race") as bug:
        check(then_racy, X)
    assert len(bug.value.result.kernels) == 2


def test_vmap_scan_and_cond_reach_their_calls():
    xs = np.stack([X, X * 10])
    assert check(jax.vmap(adder(1.0)), xs, expect=xs + 1).verdict == "verified"

    def scanned(x):
        def body(c, _):
            y = adder(1.0)(c)
            return y, y
        return jax.lax.scan(body, x, None, length=3)[0]
    result = check(scanned, X)
    assert len(result.kernels) == 3
    assert json.loads(json.dumps(describe_all(scanned, X)[2]["operands"][0]["values"])) == \
        [(X + 2).tolist()]

    def branch(p, x):
        return jax.lax.cond(p > 0, lambda v: adder(7.0)(v), lambda v: adder(-7.0)(v), x)
    docs = describe_all(branch, np.int32(1), X)
    assert len(docs) == 1
    assert check(branch, np.int32(1), X, expect=X + 7).verdict == "verified"


def two_out_kernel(x_ref, a_ref, b_ref):
    a_ref[...] = x_ref[...] + 1
    b_ref[...] = x_ref[...] * 3


def test_function_returning_one_of_two_outputs_is_compared_on_it():
    call = pl.pallas_call(two_out_kernel, interpret=EAGER,
                          out_shape=[jax.ShapeDtypeStruct((8,), jnp.float32)] * 2)

    def second(x):
        return call(x)[1]
    doc = describe(second, X, expect=X * 3)
    assert doc["expected_outputs"][0] is None and doc["expected_outputs"][1] == [(X * 3).tolist()]
    assert check(second, X, expect=X * 3).verdict == "verified"
    with pytest.raises(BugFound, match="but JAX computes"):
        check(second, X, expect=X * 3 + 1)


def test_expect_of_a_value_computed_after_the_kernel_is_refused():
    with pytest.raises(ExportError, match="not a pallas_call's output"):
        describe(lambda x: adder(1.0)(x) * 2, X, expect=X)


def test_nan_and_inf_travel_as_valid_json():
    x = np.array([np.nan, np.inf, -np.inf, 1, 2, 3, 4, 5], np.float32)

    def fn(v):
        return adder(1.0)(v)
    doc = describe(fn, x, expect=x + 1)
    text = json.dumps(doc, allow_nan=False)   # raises on a bare NaN
    assert json.loads(text)["operands"][0]["values"][0][:3] == ["nan", "inf", "-inf"]
    assert check(fn, x, expect=x + 1).verdict == "verified"
    with pytest.raises(BugFound, match="but JAX computes"):
        check(fn, x, expect=np.where(np.isnan(x), 0, x + 1))


def test_check_removes_its_exports_and_keeps_a_failing_replay():
    def fresh(x):
        return adder(11.0)(x)
    before = set(os.listdir(export_dir())) if os.path.isdir(export_dir()) else set()
    check(fresh, X)
    check(fresh, X)
    assert set(os.listdir(export_dir())) <= before
    with pytest.raises(BugFound) as bug:
        check(racy(), X)
    line = next(t for t in str(bug.value).splitlines() if "replay with" in t)
    replay = line.split()[-1]
    assert os.path.exists(replay) and os.path.exists(bug.value.result.path)


def test_a_tpu_core_map_is_refused_naming_its_line():
    mesh = pltpu.create_tensorcore_mesh("x", num_cores=2)

    def f(x):
        def inner(refs):
            x_ref, y_ref = refs

            @pl.core_map(mesh, interpret=pltpu.InterpretParams())
            def _():
                y_ref[...] = x_ref[...] + 1

        return pl.run_state(inner)((x, jnp.zeros_like(x)))[1]

    with pytest.raises(ExportError, match=r"pl.core_map over a TPU TensorCore mesh at "
                                          r"test/pallas/test_export_forms.py:\d+ is not supported"):
        describe(f, np.ones((8, 128), np.float32))
