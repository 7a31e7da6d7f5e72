"""The Mosaic GPU (plgpu) half of export: a `core_map` over a plgpu Mesh.

`plgpu.kernel(body, out_shape, ...)` traces to custom_vmap_call -> run_state
-> core_map[mesh=Mesh(grid, grid_names, cluster, cluster_names, num_threads,
thread_name)]; the core_map's jaxpr closes over the refs of run_state (the
kernel's inputs, then its outputs, created by `empty`). We follow the refs
from the function's arguments to the core_map and from its results back,
and write the core_map jaxpr (its scratch is a run_scoped inside it).
Format: models/pallas/README.md, "Mosaic GPU kernels".
"""
from __future__ import annotations

import numpy as np
from jax._src import core as jax_core

from heddle_pallas.jaxpr_json import Writer, aval_json

# Equations whose jaxpr parameter holds the kernel, with the parameter's name.
_CALLS = {"custom_vmap_call": "call", "run_state": "jaxpr", "pjit": "jaxpr",
          "closed_call": "call_jaxpr", "jit": "jaxpr"}


def is_gpu_mesh(mesh) -> bool:
    """A Mosaic GPU mesh (it has threads and clusters; a TPU mesh has neither)."""
    return hasattr(mesh, "num_threads") and hasattr(mesh, "cluster")


def _inner(j):
    return j.jaxpr if isinstance(j, jax_core.ClosedJaxpr) else j


def _walk(jaxpr, sources):
    """(core_map eqn, its operands' sources) and the sources of jaxpr's outvars.

    A source is ("arg", i) for the traced function's argument i, or
    ("empty", n) for the n-th uninitialized buffer (a kernel output)."""
    sources = dict(sources)
    found = None
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name == "empty":
            sources[eqn.outvars[0]] = ("empty", sum(1 for s in sources.values() if s[0] == "empty"))
        elif name == "core_map" and found is None and is_gpu_mesh(eqn.params["mesh"]):
            found = (eqn, [sources.get(v) for v in eqn.invars])
        elif name in _CALLS and eqn.params.get(_CALLS[name]) is not None:
            sub = _inner(eqn.params[_CALLS[name]])
            inner = {v: sources.get(o) for o, v in zip(eqn.invars, sub.invars)}
            sub_found, outs = _walk(sub, inner)
            found = found or sub_found
            if name == "run_state":  # its results are its refs' final values
                outs = [sources.get(v) for v in eqn.invars]
            for v, s in zip(eqn.outvars, outs):
                sources[v] = s
    return found, [sources.get(v) if not isinstance(v, jax_core.Literal) else None
                   for v in jaxpr.outvars]


def tpu_core_map(jaxpr):
    """The first core_map over a TPU (TensorCore) mesh in jaxpr, through calls, or None."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name == "core_map" and not is_gpu_mesh(eqn.params["mesh"]):
            return eqn
        if name in _CALLS and eqn.params.get(_CALLS[name]) is not None:
            found = tpu_core_map(_inner(eqn.params[_CALLS[name]]))
            if found is not None:
                return found
    return None


def _mesh_json(mesh) -> dict:
    return {"grid": [int(g) for g in mesh.grid], "grid_names": [str(n) for n in mesh.grid_names],
            "cluster": [int(c) for c in mesh.cluster],
            "cluster_names": [str(n) for n in mesh.cluster_names],
            "num_threads": int(mesh.num_threads or 1),
            "thread_name": str(mesh.thread_name) if mesh.thread_name else None}


def describe_gpu(closed, flat_args, expect, values_of):
    """The JSON sections of a Mosaic GPU kernel in `closed`, or None if it has none."""
    found, outs = _walk(closed.jaxpr, {v: ("arg", i) for i, v in enumerate(closed.jaxpr.invars)})
    if found is None:
        return None
    eqn, srcs = found
    kernel = _inner(eqn.params["jaxpr"])
    writer = Writer(default_space="gmem")
    operands = []
    for k, src in enumerate(srcs):
        if src is None:
            raise ValueError(f"operand {k} of the Mosaic GPU kernel is computed inside the traced"
                             " function; pass it as an argument of the function you export")
        entry = {"aval": aval_json(eqn.invars[k].aval, "gmem"), "values": None, "output": None}
        if src[0] == "arg":
            entry["values"] = values_of([np.asarray(flat_args[src[1]])])
        else:
            entry["output"] = outs.index(src) if src in outs else None
        operands.append(entry)
    return {
        "kind": "mosaic_gpu",
        "gpu_mesh": _mesh_json(eqn.params["mesh"]),
        "gpu_operands": operands,
        "outputs": [aval_json(v.aval) for v in closed.jaxpr.outvars],
        "kernel": writer.jaxpr(kernel),
        "arg_names": [f"in{s[1]}" if s[0] == "arg" else f"out{o['output']}"
                      for s, o in zip(srcs, operands)],
        "expected_outputs": _expected(expect, values_of),
    }


def _expected(expect, values_of):
    if expect is None:
        return None
    outs = expect if isinstance(expect, (tuple, list)) else [expect]
    return [values_of([np.asarray(o)]) for o in outs]
