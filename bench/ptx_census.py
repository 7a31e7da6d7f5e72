#!/usr/bin/env python3
"""The PTX opcode census: which opcodes of real kernels heddle interprets.

Runs build/bench/ptx_census (heddle's own decoder, census mode) on each PTX
file and prints a Markdown table: one row per distinct opcode with its
modifiers, one column per file (the count, and "no" where heddle refuses
it), then each refused opcode with the decoder's reason.

Usage: bench/ptx_census.py [--bin build/bench/ptx_census] [--entry PREFIX] [--refused-only] FILE.ptx...
"""
import argparse
import os
import subprocess
import sys


def census(binary, path, prefix):
    out = subprocess.run([binary, path] + ([prefix] if prefix else []), check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    rows = {}
    for line in lines[1:]:
        status, count, opcode, first_line, why = line.split("\t", 4)
        rows[opcode] = (status == "interpreted", int(count), int(first_line), why)
    return lines[0], rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "build", "bench", "ptx_census"))
    ap.add_argument("--entry", default="", help="only the entries whose (mangled) names start so")
    ap.add_argument("--refused-only", action="store_true", help="list only opcodes some file refuses")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if not os.path.exists(a.bin):
        sys.exit(f"ptx_census: {a.bin} is missing; build it with `ninja -C build benchmarks`")
    results = [census(a.bin, f, a.entry) for f in a.files]
    names = [os.path.basename(f) for f in a.files]
    for head, rows in results:
        refused = sum(1 for r in rows.values() if not r[0])
        print(f"- {head.lstrip('# ')} ({len(rows) - refused} interpreted)")
    print()
    print("| opcode | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    opcodes = sorted(set().union(*(rows.keys() for _, rows in results)))
    for op in opcodes:
        cells = []
        for _, rows in results:
            r = rows.get(op)
            cells.append("" if r is None else (str(r[1]) if r[0] else f"**no** ({r[1]})"))
        if a.refused_only and all("no" not in c for c in cells):
            continue
        print(f"| `{op}` | " + " | ".join(cells) + " |")
    print()
    reasons = {}
    for name, (_, rows) in zip(names, results):
        for op, r in rows.items():
            if not r[0]:
                reasons.setdefault(op, f"{name}:{r[2]}: {r[3]}")
    if reasons:
        print("Refused, with the decoder's reason (first file and line):")
        print()
        for op in sorted(reasons):
            print(f"- `{op}`: {reasons[op]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
