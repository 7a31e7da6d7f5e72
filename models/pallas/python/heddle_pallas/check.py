"""check(fn, *args): export fn's pallas_call and explore it with heddle."""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

from heddle_pallas.export import export_all


class BugFound(AssertionError):
    """heddle found a bug; str() is its report with the counterexample schedule."""

    def __init__(self, report: str, result: "Result"):
        super().__init__(report)
        self.result = result


@dataclasses.dataclass
class Result:
    """One heddle run: exit code, report text and the summary JSON."""
    code: int
    report: str
    summary: dict
    path: str
    kernels: list = dataclasses.field(default_factory=list)  # check(): every kernel's Result

    @property
    def verdict(self) -> str:
        return self.summary.get("verdict", "")

    @property
    def exhaustive(self) -> bool:
        return bool(self.summary.get("exhaustive"))


def heddle_binary() -> str:
    """$HEDDLE, else the repository's build/kernels/heddle, else heddle on PATH."""
    if os.environ.get("HEDDLE"):
        return os.environ["HEDDLE"]
    repo = pathlib.Path(__file__).resolve().parents[4]
    built = repo / "build" / "kernels" / "heddle"
    if built.exists():
        return str(built)
    found = shutil.which("heddle")
    if found is None:
        raise FileNotFoundError("heddle is not built: run ./setup.sh, or set HEDDLE=/path/to/heddle")
    return found


def run(path: str, *flags: str, out: str | None = None) -> Result:
    """Runs `heddle run --pallas path` with extra flags; never raises on a bug.

    out: where the counterexample schedule goes (default: next to the
    export, PATH.cex.json), so the report's "replay with" line names a file
    that is still there after the run."""
    out = out or re.sub(r"(\.json)?$", ".cex.json", path, count=1)
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "summary.json")
        cmd = [heddle_binary(), "run", "--pallas", path, "--quiet", "--summary-json", summary,
               "--out", out, *flags]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 2:
            raise ValueError(f"heddle rejected {path}:\n{proc.stderr}{proc.stdout}")
        data = json.loads(pathlib.Path(summary).read_text()) if os.path.exists(summary) else {}
        return Result(proc.returncode, proc.stdout, data, path)


def check(fn, *args, expect=None, path=None, flags=(), **options) -> Result:
    """Exports every pallas_call of fn(*args) and explores each, in program
    order; raises BugFound on the first bug. Returns the last kernel's
    Result, with every kernel's in `.kernels`.

    expect: the outputs fn must produce (e.g. JAX's own run); heddle then
    checks every schedule leaves exactly these values. Exports made without
    `path` go to heddle_pallas.export_dir(); those of verified kernels are
    removed, a failing one stays with its counterexample for `heddle replay`.
    """
    paths = export_all(fn, *args, path=path, expect=expect, **options)
    results = []
    for p in paths:
        result = run(p, *flags)
        results.append(result)
        if result.code == 1:
            break
    if path is None:  # keep only a failing kernel's export and schedule
        for r in results:
            if r.code != 1:
                _remove(r.path, re.sub(r"(\.json)?$", ".cex.json", r.path, count=1))
    results[-1].kernels = results
    if results[-1].code == 1:
        raise BugFound(results[-1].report, results[-1])
    return results[-1]


def _remove(*files):
    for f in files:
        if os.path.exists(f):
            os.remove(f)
