"""check(fn, *args): export fn's pallas_call and explore it with heddle."""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

from heddle_pallas.export import export


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


def run(path: str, *flags: str) -> Result:
    """Runs `heddle run --pallas path` with extra flags; never raises on a bug."""
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "summary.json")
        cex = os.path.join(tmp, "cex.json")
        cmd = [heddle_binary(), "run", "--pallas", path, "--quiet", "--summary-json", summary,
               "--out", cex, *flags]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 2:
            raise ValueError(f"heddle rejected {path}:\n{proc.stderr}{proc.stdout}")
        data = json.loads(pathlib.Path(summary).read_text()) if os.path.exists(summary) else {}
        return Result(proc.returncode, proc.stdout, data, path)


def check(fn, *args, expect=None, path=None, flags=(), **options) -> Result:
    """Exports fn(*args)'s pallas_call, explores it; raises BugFound on a bug.

    expect: the outputs fn must produce (e.g. JAX's own run); heddle then
    checks every schedule leaves exactly these values.
    """
    path = export(fn, *args, path=path, expect=expect, **options)
    result = run(path, *flags)
    if result.code == 1:
        raise BugFound(result.report, result)
    return result
