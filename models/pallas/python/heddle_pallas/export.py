"""export(fn, *args) -> path: the pallas_call inside `fn`, as heddle's JSON.

The user's function calls pallas_call, possibly inside shard_map over a
device mesh (and inside jit). We trace it, find the pallas_call, map its
operands back to the function's arguments (sliced per device as shard_map
would), and write the kernel jaxpr with its grid, block specs, memory spaces
and scratch shapes. Format: FORMAT, VERSION below; models/pallas/README.md.
"""
from __future__ import annotations

import json
import os
import re
import tempfile

import jax
import numpy as np
from jax._src import core as jax_core

from heddle_pallas.export_gpu import describe_gpu
from heddle_pallas.jaxpr_json import Writer, aval_json, relative_path, source_json

FORMAT = "heddle-pallas"
VERSION = 2  # 2: Mosaic GPU kernels ("kind": "mosaic_gpu"); 1 files still load
MAX_VALUES = 1 << 16  # elements per operand and device written as input values


class ExportError(Exception):
    """The function cannot be exported (the message says what to change)."""


# Equations that move or annotate a value without changing it.
_PASS_THROUGH = {"reshard", "sharding_constraint", "device_put", "pvary", "copy", "copy_p"}


def _find_pallas_call(jaxpr, sources, mesh):
    """Depth-first: (pallas_call eqn, sources of its operands, mesh, outer eqn chain)."""
    sources = dict(sources)
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _PASS_THROUGH and len(eqn.invars) == 1 and len(eqn.outvars) == 1:
            sources[eqn.outvars[0]] = _source(sources, eqn.invars[0])
            continue
        if name == "pallas_call":
            return eqn, [_source(sources, a) for a in eqn.invars], mesh
        sub, inner_mesh, specs = None, mesh, None
        if name == "shard_map":
            sub, inner_mesh, specs = eqn.params["jaxpr"], eqn.params["mesh"], eqn.params["in_specs"]
        elif name in ("pjit", "closed_call", "core_call", "remat", "checkpoint"):
            sub = eqn.params.get("jaxpr") or eqn.params.get("call_jaxpr")
        if sub is None:
            continue
        sub = sub.jaxpr if isinstance(sub, jax_core.ClosedJaxpr) else sub
        inner = {}
        for k, (outer, v) in enumerate(zip(eqn.invars, sub.invars)):
            src = _source(sources, outer)
            if specs is not None and src[0] == "arg":
                src = ("arg", src[1], specs[k])
            inner[v] = src
        found = _find_pallas_call(sub, inner, inner_mesh)
        if found:
            return found
    return None


def _source(sources, atom):
    if isinstance(atom, jax_core.Literal):
        return ("const", np.asarray(atom.val))
    return sources.get(atom, ("computed", None))


def _device_blocks(value, spec, mesh):
    """The block of `value` each device of `mesh` holds (row-major device order)."""
    value = np.asarray(value)
    if mesh is None:
        return [value]
    if spec is None:
        return [value] * mesh.devices.size
    sharding = jax.sharding.NamedSharding(mesh, spec)
    index = sharding.devices_indices_map(value.shape)
    return [value[index[d]] for d in mesh.devices.flat]


def _mesh_json(mesh):
    if mesh is None:
        return {"axes": [], "devices": 1}
    return {"axes": [{"name": str(n), "size": int(s)} for n, s in mesh.shape.items()],
            "devices": int(mesh.devices.size)}


def _values(blocks):
    if any(b.size > MAX_VALUES for b in blocks):
        return None
    return [b.reshape(-1).tolist() for b in blocks]


def _grid_json(eqn, writer):
    gm = eqn.params["grid_mapping"]
    if gm.num_dynamic_grid_bounds:
        raise ExportError("dynamic grid bounds are not supported: give the grid as Python ints")
    tpu = eqn.params["compiler_params"].get("mosaic_tpu")
    sem = getattr(tpu, "dimension_semantics", None) if tpu is not None else None
    semantics = [str(s).lower().split(".")[-1] for s in sem] if sem else ["arbitrary"] * len(gm.grid)
    blocks = []
    for bm in gm.block_mappings:
        dims = []
        for d in bm.block_shape:
            kind = type(d).__name__
            if kind not in ("Blocked", "Squeezed"):
                raise ExportError(f"block dimension {d} is not supported (use ints or None)")
            dims.append(None if kind == "Squeezed" else int(d.block_size))
        blocks.append({"block_shape": dims, "array": aval_json(bm.array_aval),
                       "index_map": writer.jaxpr(bm.index_map_jaxpr), "origin": str(bm.origin)})
    return {"grid": [int(g) for g in gm.grid], "dimension_semantics": semantics,
            "num_index_operands": gm.num_index_operands, "num_inputs": gm.num_inputs,
            "num_outputs": gm.num_outputs, "num_scratch": gm.num_scratch_operands,
            "blocks": blocks}


def describe(fn, *args, name=None, expect=None, **options):
    """The JSON description (a dict) of the pallas_call in fn(*args)."""
    closed = jax.make_jaxpr(fn)(*args)
    flat_args = jax.tree_util.tree_leaves(args)
    sources = {v: ("arg", i, None) for i, v in enumerate(closed.jaxpr.invars)}
    found = _find_pallas_call(closed.jaxpr, sources, None)
    if found is None:
        return _describe_gpu(fn, closed, flat_args, name, expect)
    eqn, operand_sources, mesh = found
    writer = Writer()
    kernel = eqn.params["jaxpr"]
    operands = []
    for k, src in enumerate(operand_sources):
        if src[0] == "arg":
            blocks = _device_blocks(flat_args[src[1]], src[2], mesh)
        elif src[0] == "const":
            blocks = _device_blocks(src[1], None, mesh)
        else:
            raise ExportError(f"operand {k} of pallas_call is computed inside the traced function;"
                              " pass it as an argument of the function you export")
        operands.append({"aval": aval_json(eqn.invars[k].aval), "values": _values(blocks)})
    doc = {
        "format": FORMAT, "version": VERSION,
        "name": name or getattr(fn, "__name__", "kernel"),
        "mesh": _mesh_json(mesh),
        "cores": int(options.get("cores", 1)),
        "operands": operands,
        "outputs": [aval_json(a) for a in eqn.params["out_avals"]],
        "input_output_aliases": [list(p) for p in eqn.params["input_output_aliases"]],
        "grid_mapping": _grid_json(eqn, writer),
        "kernel": writer.jaxpr(kernel),
        "arg_names": _arg_names(kernel),
        "kernel_source": _kernel_source(kernel),
        "expected_outputs": _expected(expect, closed, mesh),
    }
    return doc


def _describe_gpu(fn, closed, flat_args, name, expect):
    """A Mosaic GPU (plgpu.kernel) kernel's description (export_gpu.py)."""
    try:
        gpu = describe_gpu(closed, flat_args, expect, _values)
    except ValueError as e:
        raise ExportError(str(e)) from None
    if gpu is None:
        raise ExportError("no pallas_call or Mosaic GPU kernel (plgpu.kernel) found in the traced "
                          "function")
    return {"format": FORMAT, "version": VERSION, "name": name or getattr(fn, "__name__", "kernel"),
            "mesh": {"axes": [], "devices": 1}, **gpu,
            "kernel_source": _gpu_source(closed)}


def _gpu_source(closed):
    """The first user line inside the kernel: where its outputs are checked."""
    stack = [closed.jaxpr]
    while stack:
        j = stack.pop(0)
        for e in j.eqns:
            s = source_json(e)
            if s and e.primitive.name not in ("custom_vmap_call", "run_state", "core_map",
                                              "run_scoped", "empty"):
                return s
            for v in e.params.values():
                if isinstance(v, (jax_core.Jaxpr, jax_core.ClosedJaxpr)):
                    stack.append(v.jaxpr if isinstance(v, jax_core.ClosedJaxpr) else v)
    return None


def _arg_names(kernel):
    """The kernel function's parameter names (x_ref, out_ref, ...), for reports."""
    info = getattr(kernel, "debug_info", None)
    names = list(getattr(info, "arg_names", None) or [])
    if len(names) != len(kernel.invars):
        names = [f"arg{i}" for i in range(len(kernel.invars))]
    return [n if n else f"arg{i}" for i, n in enumerate(names)]


def _kernel_source(kernel):
    """Where the kernel function is defined (the pipeline's copies are named
    there); else the first user line of the kernel."""
    info = getattr(getattr(kernel, "debug_info", None), "func_src_info", None) or ""
    match = re.fullmatch(r"(.*) at (.*):(\d+)", info)
    if match:
        name, file, line = match.groups()
        return {"file": relative_path(file), "line": int(line), "function": name}
    for e in kernel.eqns:
        s = source_json(e)
        if s:
            return s
    return None


def _expected(expect, closed, mesh):
    """Per output, per device, the values the kernel must leave (from JAX's run)."""
    if expect is None:
        return None
    outs = expect if isinstance(expect, (tuple, list)) else [expect]
    specs = [None] * len(outs)
    for eqn in closed.jaxpr.eqns:
        if eqn.primitive.name == "shard_map":
            specs = list(eqn.params["out_specs"])
    return [_values(_device_blocks(o, s, mesh)) for o, s in zip(outs, specs)]


def export(fn, *args, path=None, name=None, expect=None, **options):
    """Writes the description of fn's pallas_call to `path` (a temp file if None)."""
    doc = describe(fn, *args, name=name, expect=expect, **options)
    if path is None:
        fd, path = tempfile.mkstemp(prefix="heddle-pallas-", suffix=".json")
        os.close(fd)
    with open(path, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    return path
