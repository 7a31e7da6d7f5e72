"""pytest plugin: every interpret-mode pallas_call a test runs is checked by heddle.

    pytest -p heddle_pallas.plugin tests/...       (or --heddle when loaded)

JAX's TPU interpret mode lowers a pallas_call to
`interpret_pallas_call(*args, jaxpr=..., grid_mapping=..., ...)`. The plugin
wraps that function: the kernel still runs in JAX (its outputs come back
to the test unchanged), and an ordered io_callback after it receives the
operands' values, exports the kernel (export.py's format) and explores it
with heddle. Then:

- `interpret_pallas_call.races.races_found` is heddle's verdict (a race in
  any schedule) for a call with `detect_races=True` (False otherwise, as in
  JAX), not the luck of JAX's one run, so a test asserting it sees the
  same answer every run;
- a race or a deadlock that the test did not ask about (it never read
  `races_found`) fails the test with heddle's report;
- a kernel heddle cannot take (a primitive it does not interpret, a kernel
  on several devices) is recorded as refused, with the reason, and any
  other verdict (a model_error such as an out-of-bounds block, which JAX's
  tests check their own way) is recorded: neither fails the test.
  `pytest -rA` lists each test's kernels and verdicts.
"""
from __future__ import annotations

import dataclasses
import os
import types

import numpy as np
import pytest
from jax._src import core as jax_core
from jax.experimental import io_callback

from heddle_pallas.export import ExportError, describe_call, write_doc
from heddle_pallas.check import run
from heddle_pallas.evaluate import Found


@dataclasses.dataclass
class Checked:
    """One kernel a test ran: heddle's verdict, or why it was refused."""
    name: str
    verdict: str          # "verified", "race", "deadlock", ..., or "refused"
    report: str


class _Races:
    """Stands in for interpret mode's race state: tells the session it was read."""

    def __init__(self, found: bool, state, session):
        self._found, self._state, self._session = found, state, session

    @property
    def races_found(self):
        self._session.asked = True
        return self._found

    def __getattr__(self, name):
        return getattr(self._state, name)


class Session:
    """The kernels checked during the current test."""

    def __init__(self, interp_module):
        self.interp = interp_module
        self.checked: list[Checked] = []
        self.asked = False  # the test read races_found
        self.original = interp_module.interpret_pallas_call

    def install(self):
        self.interp.interpret_pallas_call = self.wrapped

    def uninstall(self):
        self.interp.interpret_pallas_call = self.original

    def wrapped(self, *args, **params):
        outs = self.original(*args, **params)

        def checked(*values):
            self.check(params, [np.asarray(v) for v in values[:len(args)]])
        io_callback(checked, None, *args, *outs, ordered=True)
        return outs

    def check(self, params, values):
        name = str(params.get("name") or "pallas_call")
        try:
            path = self.export(params, values, name)
            result = run(path)
        except Exception as e:  # noqa: BLE001 - a refusal is a result, not a crash
            text = str(e).strip()
            self.checked.append(Checked(name, "refused", text.splitlines()[-1] if text else
                                        type(e).__name__))
            return
        self.checked.append(Checked(name, result.verdict, result.report))
        if result.code == 0:  # keep only a failing kernel's export and schedule
            for f in (path, path[:-len(".json")] + ".cex.json"):
                if os.path.exists(f):
                    os.remove(f)
        # As in JAX, races_found reports only for detect_races=True calls.
        detect = bool(getattr(params.get("interpret_params"), "detect_races", False))
        self.interp.races = _Races(detect and result.verdict == "race", self.interp.races, self)

    @staticmethod
    def export(params, values, name):
        if params.get("mesh") is not None:
            raise ExportError("a pallas_call over a core mesh (pl.core_map) is not "
                                         "routed through heddle yet")
        avals = [jax_core.ShapedArray(v.shape, v.dtype) for v in values]
        eqn = types.SimpleNamespace(params=params,
                                    invars=[types.SimpleNamespace(aval=a) for a in avals])
        found = Found(eqn, None, [[v] for v in values])
        cores = getattr(params.get("interpret_params"), "num_cores_or_threads_per_device", 1)
        doc = describe_call(found, name, None, {"cores": int(cores or 1)})
        if _uses_devices(doc["kernel"]):
            raise ExportError("a kernel with remote DMAs or device ids needs every "
                                         "device's operands: not routed through heddle yet")
        return write_doc(doc, None)


def _uses_devices(jaxpr_json) -> bool:
    text = str(jaxpr_json)
    return "'device_id': {" in text or "'device_id': [" in text


def pytest_addoption(parser):
    parser.addoption("--heddle", action="store_true",
                     help="check every interpret-mode pallas_call with heddle")


def pytest_configure(config):
    config.addinivalue_line("markers", "heddle: kernels checked by heddle_pallas.plugin")


def _active(config) -> bool:
    """Loaded with -p heddle_pallas.plugin, or asked for with --heddle."""
    return bool(config.getoption("heddle")) or "heddle_pallas.plugin" in (
        getattr(config.option, "plugins", None) or [])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if not _active(item.config):
        yield
        return
    from jax._src.pallas.mosaic.interpret import interpret_pallas_call as interp
    session = Session(interp)
    session.install()
    try:
        outcome = yield
    finally:
        session.uninstall()
    item.user_properties.append(("heddle", [(c.name, c.verdict) for c in session.checked]))
    for c in session.checked:
        item.add_report_section("call", "heddle", f"{c.name}: {c.verdict}\n{c.report}")
    if outcome.excinfo is not None:
        return
    bugs = [c for c in session.checked if c.verdict in ("race", "deadlock")]
    if bugs and not session.asked:
        outcome.force_exception(AssertionError(f"heddle: {bugs[0].name}: {bugs[0].verdict}\n"
                                               f"{bugs[0].report}"))
