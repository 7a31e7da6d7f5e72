"""Finds every pallas_call of a traced function, in program order, with the
values of its operands.

The user passes whatever they call: a jitted function, a functools.partial,
a custom_vjp/custom_jvp function (JAX's flash_attention), a shard_map over
a device mesh, several pallas_calls with data flowing between them, or
pallas_calls under vmap/scan/cond. We evaluate the function's jaxpr
equation by equation on concrete values (numpy), stepping into the
sub-jaxprs of calls and control flow, so an operand computed inside the
function has its value when its pallas_call is reached. Inside a shard_map
a value is one array per device (`PerDevice`), evaluated per device
(`axis_index` is the device's coordinate).

A pallas_call's own results are computed only when a later equation reads
them (`Lazy`): by JAX's interpret mode, the kernel run on the CPU. Each
found call remembers where each of its results went, so `expect=` values
of the function's results map back to the outputs of the calls that made
them (`origins`).
"""
from __future__ import annotations

import dataclasses

import jax
import numpy as np
from jax._src import core as jax_core

# Equations whose parameter holds a sub-jaxpr that runs once on the inputs.
CALLS = {"jit": "jaxpr", "pjit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
         "remat": "jaxpr", "checkpoint": "jaxpr", "custom_jvp_call": "call_jaxpr",
         "custom_vjp_call": "call_jaxpr", "custom_vjp_call_jaxpr": "fun_jaxpr",
         "custom_lin": None}
# Equations that move or annotate a value without changing it.
PASS_THROUGH = {"reshard", "sharding_constraint", "device_put", "pvary", "copy", "copy_p",
                "optimization_barrier"}

# Equations that keep the elements and their row-major order.
RESHAPES = {"reshape", "squeeze", "expand_dims"}


class EvaluationError(Exception):
    """A value a pallas_call needs could not be computed (the message says which)."""


@dataclasses.dataclass
class Found:
    """One pallas_call reached by the evaluation."""
    eqn: object                 # the pallas_call equation
    mesh: object                # the enclosing shard_map's mesh, or None
    operands: list              # per operand: one array per device, or an error text
    index: int = 0              # its position in program order
    results: list = dataclasses.field(default_factory=list)  # filled by the lazy run


@dataclasses.dataclass(frozen=True)
class Origin:
    """A value that is output `output` of found call `call`, sharded by `spec`."""
    call: int
    output: int
    spec: object = None


class PerDevice(list):
    """One value per device of the enclosing shard_map mesh (row-major)."""


class Lazy:
    """A pallas_call result, computed (by JAX's interpret mode) when read."""

    def __init__(self, thunk, k):
        self.thunk, self.k = thunk, k

    def force(self):
        return self.thunk()[self.k]


def _inner(j):
    return j.jaxpr if isinstance(j, jax_core.ClosedJaxpr) else j


def _consts(j):
    return list(j.consts) if isinstance(j, jax_core.ClosedJaxpr) else []


class Evaluator:
    """Evaluates one traced function; `found` lists its pallas_calls in order."""

    def __init__(self):
        self.found: list[Found] = []
        self.origin: dict = {}  # id(var) -> Origin of the value bound to it

    # -- values -------------------------------------------------------------
    @staticmethod
    def force(v):
        """The concrete value of v (forcing lazy kernel results)."""
        if isinstance(v, Lazy):
            return v.force()
        if isinstance(v, PerDevice):
            return PerDevice(Evaluator.force(x) for x in v)
        return v

    def read(self, env, atom):
        if isinstance(atom, jax_core.Literal):
            return np.asarray(atom.val)
        return env[atom]

    # -- the walk -----------------------------------------------------------
    def run(self, closed, args):
        """Evaluates closed jaxpr on args; returns its outputs (maybe lazy)."""
        return self.eval(_inner(closed), _consts(closed), args, None)

    def eval(self, jaxpr, consts, args, mesh):
        env = {}
        for v, c in zip(jaxpr.constvars, consts):
            env[v] = np.asarray(c)
        for v, a in zip(jaxpr.invars, args):
            env[v] = a
        for eqn in jaxpr.eqns:
            ins = [self.read(env, a) for a in eqn.invars]
            outs = self.eqn(eqn, ins, mesh)
            for v, o in zip(eqn.outvars, outs):
                env[v] = o
            self.track(eqn)
        return [self.read(env, v) for v in jaxpr.outvars]

    def track(self, eqn):
        """Origins flow through pass-through equations, and through reshapes
        (the same elements in the same row-major order: expected values
        compare flat)."""
        if (eqn.primitive.name in PASS_THROUGH or eqn.primitive.name in RESHAPES) and \
                len(eqn.outvars) == 1 and len(eqn.invars) >= 1 and \
                not isinstance(eqn.invars[0], jax_core.Literal):
            o = self.origin.get(id(eqn.invars[0]))
            if o is not None:
                self.origin[id(eqn.outvars[0])] = o

    def eqn(self, eqn, ins, mesh):
        name = eqn.primitive.name
        if name == "pallas_call":
            return self.pallas_call(eqn, ins, mesh)
        if name in PASS_THROUGH and len(ins) == len(eqn.outvars) == 1:
            return ins
        if name in CALLS and CALLS[name] and eqn.params.get(CALLS[name]) is not None:
            sub = eqn.params[CALLS[name]]
            return self.call(eqn, sub, ins, mesh)
        if name == "shard_map":
            return self.shard_map(eqn, ins)
        if name == "cond":
            return self.cond(eqn, ins, mesh)
        if name == "scan":
            return self.scan(eqn, ins, mesh)
        if name == "while":
            return self.while_loop(eqn, ins, mesh)
        return self.apply(eqn, ins, mesh)

    def call(self, eqn, sub, ins, mesh):
        """A sub-jaxpr run once; the origins of its results carry out."""
        j = _inner(sub)
        for outer, inner in zip(eqn.invars[len(eqn.invars) - len(ins):], j.invars):
            o = None if isinstance(outer, jax_core.Literal) else self.origin.get(id(outer))
            if o is not None:
                self.origin[id(inner)] = o
        outs = self.eval(j, _consts(sub), ins, mesh)
        for outer, inner in zip(eqn.outvars, j.outvars):
            o = None if isinstance(inner, jax_core.Literal) else self.origin.get(id(inner))
            if o is not None:
                self.origin[id(outer)] = o
        return outs

    def apply(self, eqn, ins, mesh):
        """Any other primitive: bound on concrete values (per device in a shard_map)."""
        if mesh is not None and eqn.primitive.name == "axis_index":
            names = eqn.params["axis_name"]
            names = names if isinstance(names, tuple) else (names,)
            return [PerDevice(np.int32(_axis_index(mesh, d, names))
                              for d in range(mesh.devices.size))]
        try:
            ins = [self.force(x) for x in ins]
            if mesh is not None:
                per = [PerDevice(x) if isinstance(x, PerDevice) else PerDevice([x] * mesh.devices.size)
                       for x in ins]
                outs = [self.bind(eqn, [p[d] for p in per]) for d in range(mesh.devices.size)]
                return [PerDevice(o[k] for o in outs) for k in range(len(eqn.outvars))]
            return self.bind(eqn, ins)
        except Exception as e:  # noqa: BLE001 - reported where the value is needed
            why = _failed(eqn, e)
            return [why] * len(eqn.outvars)

    @staticmethod
    def bind(eqn, ins):
        for x in ins:
            if isinstance(x, str):
                raise EvaluationError(x)
        out = eqn.primitive.bind(*ins, **eqn.params)
        out = out if eqn.primitive.multiple_results else [out]
        return [np.asarray(o) for o in out]

    # -- control flow -------------------------------------------------------
    def cond(self, eqn, ins, mesh):
        index = self.force(ins[0])
        if isinstance(index, str) or isinstance(index, PerDevice):
            return self.apply(eqn, ins, mesh)
        branch = eqn.params["branches"][int(np.clip(index, 0, len(eqn.params["branches"]) - 1))]
        return self.call(eqn, branch, ins[1:], mesh)

    def scan(self, eqn, ins, mesh):
        p = eqn.params
        if mesh is not None:
            return self.apply(eqn, ins, mesh)
        nc, nk = p["num_consts"], p["num_carry"]
        consts, carry, xs = ins[:nc], ins[nc:nc + nk], [self.force(x) for x in ins[nc + nk:]]
        ys = []
        steps = range(p["length"] - 1, -1, -1) if p["reverse"] else range(p["length"])
        for i in steps:
            out = self.eval(_inner(p["jaxpr"]), _consts(p["jaxpr"]),
                            [*consts, *carry, *[np.asarray(x)[i] for x in xs]], None)
            carry, y = out[:nk], [self.force(v) for v in out[nk:]]
            ys.append(y)
        if p["reverse"]:
            ys.reverse()
        stacked = [np.stack([np.asarray(y[k]) for y in ys]) if ys else
                   np.zeros(v.aval.shape, v.aval.dtype) for k, v in enumerate(eqn.outvars[nk:])]
        return [*carry, *stacked]

    def while_loop(self, eqn, ins, mesh):
        p = eqn.params
        if mesh is not None:
            return self.apply(eqn, ins, mesh)
        cn, bn = p["cond_nconsts"], p["body_nconsts"]
        cconsts, bconsts, carry = ins[:cn], ins[cn:cn + bn], ins[cn + bn:]
        cj, bj = p["cond_jaxpr"], p["body_jaxpr"]
        while bool(self.force(self.eval(_inner(cj), _consts(cj), [*cconsts, *carry], None)[0])):
            carry = self.eval(_inner(bj), _consts(bj), [*bconsts, *carry], None)
        return carry

    # -- shard_map ----------------------------------------------------------
    def shard_map(self, eqn, ins):
        p = eqn.params
        mesh = p["mesh"]
        per = []
        for x, spec in zip(ins, p["in_specs"]):
            x = self.force(x)
            per.append(x if isinstance(x, str) else PerDevice(device_blocks(x, spec, mesh)))
        j = _inner(p["jaxpr"])
        outs = self.eval(j, _consts(p["jaxpr"]), per, mesh)
        results = []
        for k, (v, spec) in enumerate(zip(eqn.outvars, p["out_specs"])):
            inner = j.outvars[k]
            o = None if isinstance(inner, jax_core.Literal) else self.origin.get(id(inner))
            if o is not None:
                self.origin[id(v)] = Origin(o.call, o.output, spec)
            results.append(_LazyAssemble(self, outs[k], v.aval, spec, mesh))
        return results

    # -- pallas_call --------------------------------------------------------
    def pallas_call(self, eqn, ins, mesh):
        found = Found(eqn, mesh, [], len(self.found))
        for x in ins:
            x = self.force(x)
            if isinstance(x, str):
                found.operands.append(x)
            elif isinstance(x, PerDevice):
                found.operands.append([np.asarray(b) for b in x])
            else:
                n = 1 if mesh is None else mesh.devices.size
                found.operands.append([np.asarray(x)] * n)
        self.found.append(found)
        for k, v in enumerate(eqn.outvars):
            self.origin[id(v)] = Origin(found.index, k)
        cache = []

        def run():
            if not cache:
                cache.append(_interpret(eqn, found, mesh))
            return cache[0]
        return [Lazy(run, k) for k in range(len(eqn.outvars))]


class _LazyAssemble(Lazy):
    """A shard_map result: the per-device values put together by out_spec."""

    def __init__(self, ev, value, aval, spec, mesh):
        super().__init__(None, 0)
        self.ev, self.value, self.aval, self.spec, self.mesh = ev, value, aval, spec, mesh

    def force(self):
        v = self.ev.force(self.value)
        if isinstance(v, str):
            return v
        if not isinstance(v, PerDevice):
            return np.asarray(v)
        out = np.zeros(self.aval.shape, self.aval.dtype)
        sharding = jax.sharding.NamedSharding(self.mesh, self.spec)
        index = sharding.devices_indices_map(tuple(self.aval.shape))
        for d, block in zip(self.mesh.devices.flat, v):
            if isinstance(block, str):
                return block
            out[index[d]] = block
        return out


def _interpret(eqn, found, mesh):
    """The call's results from JAX's interpret mode (one list per output)."""
    for x in found.operands:
        if isinstance(x, str):
            return [x] * len(eqn.outvars)
    if mesh is not None:
        why = (f"the results of the pallas_call at {_where(eqn)} inside a shard_map are "
               "used later; heddle checks each kernel with its inputs but cannot run it to "
               "compute what a later one reads")
        return [why] * len(eqn.outvars)
    params = dict(eqn.params)
    if not params.get("interpret"):
        from jax.experimental.pallas import tpu as pltpu
        params["interpret"] = pltpu.InterpretParams()
    try:
        out = eqn.primitive.bind(*[x[0] for x in found.operands], **params)
    except Exception as e:  # noqa: BLE001
        return [_failed(eqn, e)] * len(eqn.outvars)
    found.results = [np.asarray(o) for o in out]
    return found.results


def _failed(eqn, e):
    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return f"{eqn.primitive.name} at {_where(eqn)} could not be evaluated: {first}"


def _where(eqn):
    from heddle_pallas.jaxpr_json import source_json
    s = source_json(eqn)
    return f"{s['file']}:{s['line']}" if s else "an unknown line"


def _axis_index(mesh, device, names):
    """The row-major coordinate of `device` (flat index) along mesh axes `names`."""
    sizes = dict(mesh.shape)
    axes = list(sizes)
    coords, rest = {}, device
    for a in reversed(axes):
        coords[a] = rest % sizes[a]
        rest //= sizes[a]
    index = 0
    for n in names:
        index = index * sizes[n] + coords[n]
    return index


def device_blocks(value, spec, mesh):
    """The block of `value` each device of `mesh` holds (row-major device order)."""
    value = np.asarray(value)
    if mesh is None:
        return [value]
    if spec is None:
        return [value] * mesh.devices.size
    sharding = jax.sharding.NamedSharding(mesh, spec)
    index = sharding.devices_indices_map(value.shape)
    return [value[index[d]] for d in mesh.devices.flat]
