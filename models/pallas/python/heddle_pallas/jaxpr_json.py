"""Serializes a kernel jaxpr (and its sub-jaxprs) as plain JSON for heddle.

Every variable gets a number unique within one export; an atom is
{"var": n} or {"lit": value, "dtype": d}. Each equation keeps its primitive
name, its parameters (sub-jaxprs included), and the user's Python line.
"""
from __future__ import annotations

import dataclasses
import enum
import math
import os

import numpy as np
from jax import tree_util
from jax._src import core as jax_core
from jax._src import source_info_util
from jax._src.state import indexing


def _finite(x):
    """A JSON-safe number: NaN and infinities as the strings "nan", "inf", "-inf"."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def json_values(value) -> list:
    """A numpy array's elements as a flat JSON list, row-major, with NaN and
    infinities written as strings (JSON has no such numbers)."""
    flat = np.asarray(value).reshape(-1)
    if flat.dtype.kind in "iub":
        return flat.tolist()
    return [_finite(x) for x in flat.astype(np.float64).tolist()]


def json_array(value):
    """A numpy array as nested lists of its shape (constants), NaN/Inf as strings."""
    a = np.asarray(value)
    if a.dtype.kind in "iub":
        return a.tolist()
    return np.vectorize(_finite, otypes=[object])(a.astype(np.float64)).tolist() if a.ndim \
        else _finite(float(a))


class Numbering:
    """Numbers the variables of one export (ids are stable within it)."""

    def __init__(self):
        self._ids: dict[int, int] = {}
        self._keep = []  # keeps numbered vars alive so id() stays unique

    def of(self, var) -> int:
        key = id(var)
        if key not in self._ids:
            self._ids[key] = len(self._ids)
            self._keep.append(var)
        return self._ids[key]


def aval_json(aval, default_space="vmem") -> dict:
    """Shape, dtype and, for refs, the memory space of an abstract value.

    A Mosaic GPU barrier ref has dtype "barrier" and its num_arrivals."""
    inner = getattr(aval, "inner_aval", None)
    if inner is not None:  # a Ref
        space = getattr(aval, "memory_space", None)
        out = {"ref": True, "shape": list(inner.shape), "dtype": str(inner.dtype),
               "space": memory_space_name(space, default_space)}
        arrivals = getattr(inner.dtype, "num_arrivals", None)
        if arrivals is not None:
            out.update(dtype="barrier", num_arrivals=int(arrivals))
        return out
    shape = getattr(aval, "shape", ())
    return {"shape": list(shape), "dtype": str(getattr(aval, "dtype", "token"))}


def memory_space_name(space, default="vmem") -> str:
    """'any', 'hbm', 'vmem', 'smem', 'gmem' or 'semaphore' (lower case, no enum prefix).

    A ref with no memory space is in `default`: VMEM for Pallas TPU (where
    BlockSpecs without memory_space put their blocks), GMEM for Mosaic GPU."""
    if space is None:
        return default
    text = str(space).lower()
    for name in ("semaphore", "vmem", "smem", "gmem", "hbm", "any"):
        if name in text:
            return name
    return text


def source_json(eqn) -> dict | None:
    """The user's frame of an equation: file, line and function."""
    info = getattr(eqn, "source_info", None)
    if info is None:
        return None
    frame = source_info_util.user_frame(info.traceback)
    if frame is None:
        return None
    return {"file": relative_path(frame.file_name), "line": frame.start_line,
            "function": frame.function_name}


def relative_path(path: str) -> str:
    """Paths under the working directory are written relative to it, so an
    export does not depend on where the tree was checked out."""
    cwd = os.getcwd() + os.sep
    return path[len(cwd):] if path.startswith(cwd) else path


def _arg_names(j) -> list:
    """The traced function's names of j's inputs (run_scoped scratch), when known."""
    names = list(getattr(getattr(j, "debug_info", None), "arg_names", None) or [])
    return [str(n) for n in names] if len(names) == len(j.invars) else []


class Writer:
    """Turns jaxprs into JSON, numbering variables with one Numbering."""

    def __init__(self, numbering: Numbering | None = None, default_space: str = "vmem"):
        self.numbers = numbering or Numbering()
        self.default_space = default_space  # of refs without a memory space

    def atom(self, a) -> dict:
        if isinstance(a, jax_core.Literal):
            return {"lit": json_array(a.val), "dtype": str(a.aval.dtype)}
        return {"var": self.numbers.of(a), **aval_json(a.aval, self.default_space)}

    def var(self, v) -> dict:
        return {"var": self.numbers.of(v), **aval_json(v.aval, self.default_space)}

    def jaxpr(self, j, consts=()) -> dict:
        if isinstance(j, jax_core.ClosedJaxpr):
            return self.jaxpr(j.jaxpr, j.consts)
        closed = len(consts) == len(j.constvars)
        return {
            "constvars": [dict(self.var(v), value=json_array(c))
                          for v, c in zip(j.constvars, consts)] if closed else [],
            # An open jaxpr's constvars are bound by its equation's inputs (run_scoped).
            "open_constvars": [] if closed else [self.var(v) for v in j.constvars],
            "invars": [self.var(v) for v in j.invars],
            "outvars": [self.atom(v) for v in j.outvars],
            "eqns": [self.eqn(e) for e in j.eqns],
            "arg_names": _arg_names(j),
        }

    def eqn(self, e) -> dict:
        # Pytree parameters take consecutive trailing inputs, in parameter
        # order; a Mosaic GPU copy's user predicate comes after them.
        trees = [v for v in e.params.values() if isinstance(v, tree_util.PyTreeDef)]
        extra = 1 if e.params.get("has_user_predicate") else 0
        start = len(e.invars) - extra - sum(t.num_leaves for t in trees)
        params = {}
        for key, value in e.params.items():
            if isinstance(value, tree_util.PyTreeDef):
                leaves = e.invars[start:start + value.num_leaves]
                start += value.num_leaves
                params[key] = self.value(tree_util.tree_unflatten(value, leaves))
            else:
                params[key] = self.value(value)
        return {"prim": e.primitive.name, "in": [self.atom(a) for a in e.invars],
                "out": [self.var(v) for v in e.outvars], "params": params,
                "src": source_json(e)}

    def value(self, v):
        """A parameter or pytree node as JSON (unknown objects by their repr)."""
        if isinstance(v, (jax_core.Jaxpr, jax_core.ClosedJaxpr)):
            return {"jaxpr": self.jaxpr(v)}
        if isinstance(v, (jax_core.Var, jax_core.Literal)):
            return self.atom(v)
        if isinstance(v, indexing.NDIndexer):
            return {"indexer": [self.value(i) for i in v.indices], "shape": list(v.shape)}
        if isinstance(v, indexing.Slice):
            return {"slice": {"start": self.value(v.start), "size": self.value(v.size),
                              "stride": v.stride}}
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, enum.Enum):
            return v.name
        if isinstance(v, (np.integer, np.bool_)):
            return v.item()
        if isinstance(v, (float, np.floating)):
            return _finite(float(v))
        if isinstance(v, (tuple, list)):
            return [self.value(x) for x in v]
        if isinstance(v, (np.dtype, type)) or hasattr(v, "dtype") and not hasattr(v, "shape"):
            return str(v)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            fields = {f.name: self.value(getattr(v, f.name)) for f in dataclasses.fields(v)
                      if f.name not in ("debug",)}
            return {"type": type(v).__name__, **fields}
        return {"repr": repr(v)}
