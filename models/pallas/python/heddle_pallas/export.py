"""export(fn, *args) -> path: the pallas_call inside `fn`, as heddle's JSON.

The user's function may be jitted, a functools.partial, a custom_vjp or
custom_jvp function, a shard_map over a device mesh, and may make several
pallas_calls (under vmap, scan or cond too). evaluate.py runs its jaxpr on
the arguments and stops at each pallas_call with its operands' values (per
device inside a shard_map); export_all writes one file per call, in program
order, with the kernel jaxpr, its grid, block specs, memory spaces and
scratch shapes. Format: FORMAT, VERSION below; models/pallas/README.md.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile

import jax
import numpy as np
from jax._src import core as jax_core

from heddle_pallas.evaluate import Evaluator, device_blocks
from heddle_pallas.export_gpu import describe_gpu, tpu_core_map
from heddle_pallas.jaxpr_json import Writer, aval_json, json_values, relative_path, source_json

FORMAT = "heddle-pallas"
VERSION = 3  # 3: NaN/Inf as "nan"/"inf"/"-inf", null expected outputs; 2: Mosaic GPU
MAX_VALUES = 1 << 16  # elements per operand and device written as input values


class ExportError(Exception):
    """The function cannot be exported (the message says what to change)."""


def _mesh_json(mesh):
    if mesh is None:
        return {"axes": [], "devices": 1}
    return {"axes": [{"name": str(n), "size": int(s)} for n, s in mesh.shape.items()],
            "devices": int(mesh.devices.size)}


def _values(blocks):
    if any(np.asarray(b).size > MAX_VALUES for b in blocks):
        return None
    return [json_values(b) for b in blocks]


def _grid(gm, bounds):
    """The grid, its dynamic dimensions given by `bounds` (their operands' values)."""
    dynamic = iter(bounds)
    grid = []
    for g in gm.grid:
        if isinstance(g, int):
            grid.append(int(g))
            continue
        values = {int(np.asarray(b).reshape(-1)[0]) for b in next(dynamic)}
        if len(values) != 1:
            raise ExportError(f"a dynamic grid bound differs between devices ({sorted(values)})")
        grid.append(values.pop())
    return grid


def _grid_json(eqn, writer, bounds):
    gm = eqn.params["grid_mapping"]
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
    return {"grid": _grid(gm, bounds), "dimension_semantics": semantics,
            "num_index_operands": gm.num_index_operands, "num_inputs": gm.num_inputs,
            "num_outputs": gm.num_outputs, "num_scratch": gm.num_scratch_operands,
            "blocks": blocks}


def _function_name(fn):
    """fn's name; a functools.partial or a jitted function by the function inside."""
    while not hasattr(fn, "__name__") and hasattr(fn, "func"):
        fn = fn.func
    return getattr(fn, "__name__", "kernel")


def describe_all(fn, *args, name=None, expect=None, **options):
    """The JSON descriptions (dicts) of every pallas_call in fn(*args), in program order."""
    closed = jax.make_jaxpr(fn)(*args)
    flat_args = jax.tree_util.tree_leaves(args)
    ev = Evaluator()
    ev.run(closed, [np.asarray(a) for a in flat_args])
    base = name or _function_name(fn)
    if not ev.found:
        return [_describe_gpu(fn, closed, flat_args, base, expect)]
    expected = _expected_per_call(expect, closed, ev)
    docs = []
    for f in ev.found:
        label = base if len(ev.found) == 1 else f"{base}.{f.index}"
        docs.append(describe_call(f, label, expected[f.index], options))
    return docs


def describe(fn, *args, name=None, expect=None, **options):
    """The JSON description (a dict) of the one pallas_call in fn(*args)."""
    docs = describe_all(fn, *args, name=name, expect=expect, **options)
    if len(docs) > 1:
        raise ExportError(f"the traced function makes {len(docs)} pallas_calls: use describe_all"
                          " or export_all (check() checks them all)")
    return docs[0]


def describe_call(found, name, expected, options):
    """The JSON description of one found pallas_call (evaluate.Found)."""
    eqn, mesh = found.eqn, found.mesh
    writer = Writer()
    kernel = eqn.params["jaxpr"]
    for k, blocks in enumerate(found.operands):
        if isinstance(blocks, str):
            raise ExportError(f"operand {k} of the pallas_call at {_call_site(eqn)}: {blocks}")
    # The first operands of a call with a dynamic grid are its bounds (known
    # here: the grid is exported with their values).
    n_bounds = eqn.params["grid_mapping"].num_dynamic_grid_bounds
    operands = [{"aval": aval_json(eqn.invars[k].aval), "values": _values(blocks)}
                for k, blocks in enumerate(found.operands) if k >= n_bounds]
    return {
        "format": FORMAT, "version": VERSION,
        "name": name,
        "mesh": _mesh_json(mesh),
        "cores": int(options.get("cores", 1)),
        "operands": operands,
        "outputs": [aval_json(a) for a in eqn.params["out_avals"]],
        "input_output_aliases": [list(p) for p in eqn.params["input_output_aliases"]],
        "grid_mapping": _grid_json(eqn, writer, found.operands[:n_bounds]),
        "kernel": writer.jaxpr(kernel),
        "arg_names": _arg_names(kernel),
        "kernel_source": _kernel_source(kernel),
        "call_source": source_json(eqn),
        "expected_outputs": expected,
        "expected_tolerance": _tolerance(options),
    }


def _tolerance(options):
    """rtol=/atol= of export/check: how far a float output may be from expect=
    (XLA's exp, log, ... and its dot order differ from heddle's in the last
    places); None: exactly equal."""
    rtol, atol = float(options.get("rtol", 0)), float(options.get("atol", 0))
    if rtol < 0 or atol < 0 or not np.isfinite(rtol + atol):
        raise ExportError(f"rtol={rtol}, atol={atol}: tolerances are finite numbers >= 0")
    return {"rtol": rtol, "atol": atol} if rtol or atol else None


def _call_site(eqn):
    s = source_json(eqn)
    return f"{s['file']}:{s['line']}" if s else "an unknown line"


def _describe_gpu(fn, closed, flat_args, name, expect):
    """A Mosaic GPU (plgpu.kernel) kernel's description (export_gpu.py)."""
    try:
        gpu = describe_gpu(closed, flat_args, expect, _values)
    except ValueError as e:
        raise ExportError(str(e)) from None
    if gpu is None:
        tpu = tpu_core_map(closed.jaxpr)
        if tpu is not None:  # issue 52: not interpreted yet
            raise ExportError(f"pl.core_map over a TPU TensorCore mesh at {_call_site(tpu)} is not "
                              "supported by heddle yet; write the kernel as a pallas_call")
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


def _expected_per_call(expect, closed, ev):
    """expect= (the function's results) as each call's expected outputs:
    [call][output][device][element], None where nothing is expected."""
    per_call = [None] * len(ev.found)
    if expect is None:
        return per_call
    outs = jax.tree_util.tree_leaves(expect)
    if len(outs) != len(closed.jaxpr.outvars):
        raise ExportError(f"expect= has {len(outs)} arrays, the function returns "
                          f"{len(closed.jaxpr.outvars)}")
    for i, (want, var) in enumerate(zip(outs, closed.jaxpr.outvars)):
        origin = None if isinstance(var, jax_core.Literal) else ev.origin.get(id(var))
        if origin is None:
            raise ExportError(f"result {i} of the function is not a pallas_call's output (it is "
                              "computed after the kernel); heddle compares only what a kernel "
                              "writes: return the pallas_call's outputs, or pass expect=None")
        found = ev.found[origin.call]
        if per_call[origin.call] is None:
            per_call[origin.call] = [None] * len(found.eqn.outvars)
        blocks = device_blocks(want, origin.spec, found.mesh)
        per_call[origin.call][origin.output] = _values(blocks)
    return per_call


def _unique_path(doc, directory):
    """A content-addressed file in `directory`: the same kernel, the same file."""
    text = json.dumps(doc, indent=None, separators=(",", ":"), allow_nan=False)
    digest = hashlib.sha1(text.encode()).hexdigest()[:12]
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", doc["name"])[:80]
    os.makedirs(directory, exist_ok=True)
    return os.path.join(directory, f"{safe}-{digest}.json"), text


def export_dir():
    """Where exports without a path go: $HEDDLE_PALLAS_DIR, else <tmp>/heddle-pallas."""
    return os.environ.get("HEDDLE_PALLAS_DIR") or os.path.join(tempfile.gettempdir(),
                                                               "heddle-pallas")


def write_doc(doc, path):
    """Writes doc to path (None: a content-addressed file in export_dir())."""
    if path is None:
        path, text = _unique_path(doc, export_dir())
    else:
        text = json.dumps(doc, indent=None, separators=(",", ":"), allow_nan=False)
    with open(path, "w") as f:
        f.write(text + "\n")
    return path


def export_all(fn, *args, path=None, name=None, expect=None, **options):
    """Writes every pallas_call of fn(*args), in program order; returns their paths.

    path: the file of the first call (the others get .1.json, .2.json, ...);
    None: content-addressed files in export_dir(), rewritten, not piled up."""
    docs = describe_all(fn, *args, name=name, expect=expect, **options)
    paths = []
    for i, doc in enumerate(docs):
        p = path if path is None or i == 0 else re.sub(r"(\.json)?$", f".{i}.json", path, count=1)
        paths.append(write_doc(doc, p))
    return paths


def export(fn, *args, path=None, name=None, expect=None, **options):
    """Writes the description of fn's one pallas_call to `path` (see export_all)."""
    return write_doc(describe(fn, *args, name=name, expect=expect, **options), path)
