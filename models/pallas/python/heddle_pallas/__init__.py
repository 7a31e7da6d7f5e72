"""heddle_pallas: check a real Pallas kernel with heddle.

    from heddle_pallas import check
    check(my_fn, x)   # raises heddle_pallas.BugFound with the counterexample

export(fn, *args) writes the kernel as JSON; check() exports it and runs
`heddle run --pallas FILE` on it.
"""
from heddle_pallas.export import (ExportError, describe, describe_all, export, export_all,
                                  export_dir)
from heddle_pallas.check import BugFound, Result, check, heddle_binary

__all__ = ["BugFound", "ExportError", "Result", "check", "describe", "describe_all", "export",
           "export_all", "export_dir", "heddle_binary"]
