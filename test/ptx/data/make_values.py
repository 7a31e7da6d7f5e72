#!/usr/bin/env python3
"""Test vectors for the PTX narrow-float and bit instructions (values_test.cpp).

Made once, checked in as values.txt:
    /work/main/.venv/bin/python test/ptx/data/make_values.py > test/ptx/data/values.txt
(numpy 2.4.6, ml_dtypes 0.7.0). Expected values come from numpy's float16,
ml_dtypes' bfloat16/float8_e4m3fn/float8_e5m2 (round-to-nearest-even
conversions of an exactly computed value) and, for the bit instructions,
the PTX ISA's pseudocode written out in Python. Lines: the instruction,
the destination width, the sources as WIDTH:HEX, the expected result.
NaN results are PTX's canonical NaN (0x7fff for .f16/.bf16, 0x7f for fp8).
"""
from fractions import Fraction
import random

import ml_dtypes
import numpy as np

rng = random.Random(46)
F16, BF16, E4M3, E5M2 = np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2


def bits(x, t):
    a = np.array([x], dtype=t)
    if np.isnan(a[0].astype(np.float64)):
        return {F16: 0x7FFF, BF16: 0x7FFF}.get(t, 0x7F)
    return int(a.view({1: np.uint8, 2: np.uint16}[a.itemsize])[0])


def val(b, t):
    size = np.dtype(t).itemsize
    return np.array([b], dtype={1: np.uint8, 2: np.uint16}[size]).view(t)[0].astype(np.float64)


def exact(x):
    return Fraction(float(x))


def rounded(q, t):
    """q (a Fraction) rounded to t: q must be exact in float32 (one rounding then)."""
    f = float(q)
    assert Fraction(f) == q and Fraction(float(np.float32(f))) == q
    return bits(np.float32(f), t)


def half_bits(t):
    """A random value's bits: mostly ordinary numbers, some zeros, subnormals, infinities, NaNs."""
    r = rng.random()
    if t == F16:
        if r < 0.05: return rng.choice([0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00])
        if r < 0.12: return rng.randrange(1, 0x400) | rng.choice([0, 0x8000])
        return rng.randrange(0x2000, 0x5800) | rng.choice([0, 0x8000])  # 2^-7 .. 2^7
    if r < 0.05: return rng.choice([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0])
    return rng.randrange(0x3800, 0x4700) | rng.choice([0, 0x8000])  # 2^-15 .. 2^15


def emit(instr, width, srcs, want):
    print(f"{instr}\t{width}\t" + " ".join(f"{w}:{v:x}" for w, v in srcs) + f"\t{want:x}")


def arith(op, t, name):
    for _ in range(24):
        a, b, c = half_bits(t), half_bits(t), half_bits(t)
        x, y, z = val(a, t), val(b, t), val(c, t)
        if op in ("neg", "abs"):
            if np.isnan(x): continue
            want = bits(-x if op == "neg" else abs(x), t)
            emit(f"{op}.{name}", 16, [(16, a)], want)
            continue
        if any(np.isnan(v) or np.isinf(v) for v in (x, y, z)) and op == "fma": continue
        with np.errstate(all="ignore"):
            if op in ("min", "max"):
                if np.isnan(x) or np.isnan(y):
                    want = bits(y if np.isnan(x) else x, t) if not (np.isnan(x) and np.isnan(y)) else 0x7FFF
                elif x == y == 0:
                    continue  # the sign of min(+0, -0) is its own case below
                else:
                    want = bits(min(x, y) if op == "min" else max(x, y), t)
                emit(f"{op}.{name}", 16, [(16, a), (16, b)], want)
                continue
            if any(np.isinf(v) or np.isnan(v) for v in (x, y)):
                r = {"add": x + y, "sub": x - y, "mul": x * y}[op]
                emit(f"{op}.rn.{name}", 16, [(16, a), (16, b)], bits(r, t))
                continue
        q = {"add": lambda: exact(x) + exact(y), "sub": lambda: exact(x) - exact(y),
             "mul": lambda: exact(x) * exact(y), "fma": lambda: exact(x) * exact(y) + exact(z)}[op]()
        if q == 0:  # a zero's sign (IEEE 754 section 6.3) is what float64 arithmetic gives
            zero = {"add": x + y, "sub": x - y, "mul": x * y, "fma": x * y + z}[op]
            emit(f"{op}.rn.{name}", 16, [(16, a), (16, b)] + ([(16, c)] if op == "fma" else []), bits(zero, t))
            continue
        try:
            want = rounded(q, t)
        except AssertionError:
            continue  # not exact in float32: left out rather than rounded twice
        srcs = [(16, a), (16, b)] + ([(16, c)] if op == "fma" else [])
        emit(f"{op}.rn.{name}", 16, srcs, want)


def pairs(name, t):
    for _ in range(8):
        a0, a1, b0, b1 = (half_bits(t) for _ in range(4))
        if any(np.isnan(val(v, t)) or np.isinf(val(v, t)) for v in (a0, a1, b0, b1)): continue
        q0, q1 = exact(val(a0, t)) + exact(val(b0, t)), exact(val(a1, t)) + exact(val(b1, t))
        try:
            want = rounded(q0, t) | rounded(q1, t) << 16
        except AssertionError:
            continue
        emit(f"add.rn.{name}x2", 32, [(32, a0 | a1 << 16), (32, b0 | b1 << 16)], want)


def f32_bits(x):
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def random_f32():
    r = rng.random()
    if r < 0.1: return rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e-30, 70000.0, 500.0, 460.0])
    return float(np.float32(rng.uniform(-1, 1) * 2.0 ** rng.randrange(-20, 18)))


def conversions():
    for _ in range(20):
        x = random_f32()
        emit("cvt.rn.f16.f32", 16, [(32, f32_bits(x))], bits(np.float32(x), F16))
        emit("cvt.rn.bf16.f32", 16, [(32, f32_bits(x))], bits(np.float32(x), BF16))
        y = random_f32()
        for name, t, top in (("e4m3x2", E4M3, 448.0), ("e5m2x2", E5M2, 57344.0)):
            sat = lambda v: v if np.isnan(v) else float(np.clip(v, -top, top))  # .satfinite
            want = bits(sat(x), t) << 8 | bits(sat(y), t)  # the first source goes to the upper byte
            emit(f"cvt.rn.satfinite.{name}.f32", 16, [(32, f32_bits(x)), (32, f32_bits(y))], want)
        emit("cvt.rn.f16x2.f32", 32, [(32, f32_bits(x)), (32, f32_bits(y))],
             bits(np.float32(x), F16) << 16 | bits(np.float32(y), F16))
        emit("cvt.rn.bf16x2.f32", 32, [(32, f32_bits(x)), (32, f32_bits(y))],
             bits(np.float32(x), BF16) << 16 | bits(np.float32(y), BF16))
    for _ in range(12):
        h, b = half_bits(F16), half_bits(BF16)
        emit("cvt.f32.f16", 32, [(16, h)], f32_bits(np.float32(val(h, F16))) if not np.isnan(val(h, F16)) else 0x7FFFFFFF)
        emit("cvt.f32.bf16", 32, [(16, b)], f32_bits(np.float32(val(b, BF16))) if not np.isnan(val(b, BF16)) else 0x7FFFFFFF)
        lo, hi = rng.randrange(256), rng.randrange(256)
        for name, t in (("e4m3x2", E4M3), ("e5m2x2", E5M2)):
            if np.isnan(val(lo, t)) or np.isnan(val(hi, t)): continue
            emit(f"cvt.rn.f16x2.{name}", 32, [(16, hi << 8 | lo)],
                 bits(val(hi, t), F16) << 16 | bits(val(lo, t), F16))
        n = rng.randrange(-70000, 70000)
        emit("cvt.rn.f16.s32", 16, [(32, n & 0xFFFFFFFF)], bits(np.float64(n), F16))
        if not np.isnan(val(h, F16)):
            v = val(h, F16)
            want = 0x7FFFFFFF if v >= 2**31 else 0x80000000 if v < -2**31 else int(np.trunc(v)) & 0xFFFFFFFF
            emit("cvt.rzi.s32.f16", 32, [(16, h)], want)


def bit_ops():
    M = 0xFFFFFFFF
    for _ in range(12):
        a, b, c = rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(32)
        pos, ln = rng.randrange(40), rng.randrange(40)
        field = [(a >> (pos + i)) & 1 if (i < ln and pos + i <= 31) else None for i in range(32)]
        for signed in (False, True):
            s = ((a >> min(pos + ln - 1, 31)) & 1) if (signed and ln) else 0
            want = sum((f if f is not None else s) << i for i, f in enumerate(field))
            emit(f"bfe.{'s' if signed else 'u'}32", 32, [(32, a), (32, pos), (32, ln)], want)
        want = b
        for i in range(ln):
            if pos + i > 31: break
            want = (want & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        emit("bfi.b32", 32, [(32, a), (32, b), (32, pos), (32, ln)], want & M)
        sel = rng.getrandbits(16)
        src = (b << 32 | a).to_bytes(8, "little")
        out = 0
        for i in range(4):
            s = (sel >> (4 * i)) & 0xF
            byte = src[s & 7]
            if s & 8: byte = 0xFF if byte & 0x80 else 0
            out |= byte << (8 * i)
        emit("prmt.b32", 32, [(32, a), (32, b), (32, sel)], out)
        emit("popc.b32", 32, [(32, a)], bin(a).count("1"))
        x = a >> rng.randrange(33)
        emit("clz.b32", 32, [(32, x)], 32 - x.bit_length())
        emit("brev.b32", 32, [(32, a)], int(f"{a:032b}"[::-1], 2))
        lut = rng.getrandbits(8)
        want = sum(((lut >> (((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1))) & 1) << i for i in range(32))
        emit("lop3.b32", 32, [(32, a), (32, b), (32, c), (32, lut)], want)
        n = rng.randrange(40)
        emit("shf.l.wrap.b32", 32, [(32, a), (32, b), (32, n)], ((b << 32 | a) << (n & 31)) >> 32 & M)
        emit("shf.r.clamp.b32", 32, [(32, a), (32, b), (32, n)], ((b << 32 | a) >> min(n, 32)) & M)


def bfind():
    """bfind (9.7.8.5): the position of the most significant bit set (.u32) or
    unlike the sign (.s32), 0xffffffff when none; .shiftamt gives 31 - it."""
    for _ in range(12):
        a = rng.getrandbits(32) >> rng.randrange(33)
        if rng.random() < 0.3: a = (~a) & 0xFFFFFFFF  # negative as .s32
        for name in ("bfind.u32", "bfind.s32", "bfind.shiftamt.u32", "bfind.shiftamt.s32"):
            v = a
            if ".s32" in name and a >> 31: v = (~a) & 0xFFFFFFFF
            pos = v.bit_length() - 1
            want = 0xFFFFFFFF if v == 0 else (31 - pos if "shiftamt" in name else pos)
            emit(name, 32, [(32, a)], want)


def main():
    print("# test vectors for test/ptx/values_test.cpp: instruction, destination bits, WIDTH:HEX sources, expected")
    print("# made by: .venv/bin/python test/ptx/data/make_values.py > test/ptx/data/values.txt")
    for op in ("add", "sub", "mul", "fma", "min", "max", "neg", "abs"):
        arith(op, F16, "f16")
        arith(op, BF16, "bf16")
    emit("min.f16", 16, [(16, 0x0000), (16, 0x8000)], 0x8000)  # -0 orders below +0
    emit("max.f16", 16, [(16, 0x8000), (16, 0x0000)], 0x0000)
    pairs("f16", F16)
    pairs("bf16", BF16)
    conversions()
    bit_ops()
    bfind()


if __name__ == "__main__":
    main()
