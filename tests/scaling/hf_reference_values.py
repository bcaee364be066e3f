#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent evaluation of the values pasted into tests/scaling/*.cpp and tests/analysis/*.cpp.

Written from the Hugging Face rules (H2-H8, H12) and the papers' worked numbers (P1-P4, P6) of
docs/formulas.md, NOT from posenc's C++ code. Two evaluations per quantity:

  exact  : the real-number formula in mpmath at 60 digits (what posenc's Precision::exact
           approximates in double);
  hf32   : Hugging Face's float32 tensor arithmetic, one rounding per operation, in HF's
           operation order. fl() rounds a double to float32 (struct 'f', nearest even); a float32
           op on two floats is evaluated in double and rounded once (double rounding is
           innocuous for + - * / since 53 >= 2*24 + 2); pow32 is the correctly rounded float32
           power (mpmath at 60 digits, rounded to a 24-bit significand), which is what torch's
           pow gives except in rare 1-ulp cases.
  Scalars HF computes in Python (correction dims, mscale, longrope factor, dynamic base at init)
  are Python doubles here too, in HF's operation order.

Run:  python3 tests/scaling/hf_reference_values.py   (needs only mpmath)
"""
import math
import struct
import sys

import mpmath

mpmath.mp.dps = 60


# ---------------------------------------------------------------- float32 emulation
def fl(x):
    return struct.unpack('<f', struct.pack('<f', float(x)))[0]


def f_add(a, b): return fl(a + b)
def f_sub(a, b): return fl(a - b)
def f_mul(a, b): return fl(a * b)
def f_div(a, b): return fl(a / b)


def round24(x):
    """mpmath value -> nearest float32 (24-bit significand)."""
    with mpmath.workprec(24):
        y = +mpmath.mpf(x)
    return fl(float(y))


def pow32(x, y):
    return round24(mpmath.power(mpmath.mpf(x), mpmath.mpf(y)))


def exponents32(R):
    return [f_div(fl(2 * j), fl(R)) for j in range(R // 2)]


def pos_freqs32(b, R):
    return [pow32(fl(b), e) for e in exponents32(R)]


def default32(b, R):
    return [f_div(1.0, p) for p in pos_freqs32(b, R)]


def ulp32(x):
    x = fl(abs(x))
    bits = struct.unpack('<I', struct.pack('<f', x))[0]
    nxt = struct.unpack('<f', struct.pack('<I', bits + 1))[0]
    return nxt - x


# ---------------------------------------------------------------- exact helpers
def theta(b, R, j):
    return mpmath.power(mpmath.mpf(b), -mpmath.mpf(2 * j) / R)


def g(x, mscale=1.0):
    # HF get_mscale / yarn_get_mscale, Python double, HF's order: 0.1 * mscale * log(x) + 1.0
    if x <= 1:
        return 1.0
    return 0.1 * mscale * math.log(x) + 1.0


# ---------------------------------------------------------------- YaRN
def correction_dim(r, R, b, L0):
    return (R * math.log(L0 / (r * 2 * math.pi))) / (2 * math.log(b))


def correction_range(bf, bs, R, b, L0, truncate):
    lo = correction_dim(bf, R, b, L0)
    hi = correction_dim(bs, R, b, L0)
    raw = (lo, hi)
    if truncate:
        lo = math.floor(lo)
        hi = math.ceil(hi)
    return raw, max(lo, 0), min(hi, R - 1)


def yarn(R, b, s, L0, bf=32, bs=1, truncate=True, mscale=None, mscale_all_dim=None):
    raw, lo, hi = correction_range(bf, bs, R, b, L0, truncate)
    if lo == hi:
        hi += 0.001
    P = R // 2
    # float32 path
    p = pos_freqs32(b, R)
    X = [f_div(1.0, pj) for pj in p]
    I = [f_div(1.0, f_mul(fl(s), pj)) for pj in p]
    ramp = [min(max(f_div(f_sub(fl(j), fl(lo)), fl(hi - lo)), 0.0), 1.0) for j in range(P)]
    E = [f_sub(1.0, r) for r in ramp]
    inv32 = [f_add(f_mul(I[j], f_sub(1.0, E[j])), f_mul(X[j], E[j])) for j in range(P)]
    # exact path
    inv = []
    for j in range(P):
        t = theta(b, R, j)
        rmp = min(max((mpmath.mpf(j) - mpmath.mpf(lo)) / (mpmath.mpf(hi) - mpmath.mpf(lo)), 0), 1)
        inv.append(t / s * rmp + t * (1 - rmp))
    if mscale and mscale_all_dim:
        af = float(g(s, mscale) / g(s, mscale_all_dim))
    else:
        af = g(s)
    return dict(raw=raw, lo=lo, hi=hi, inv32=inv32, inv=inv, af=af)


# ---------------------------------------------------------------- Llama 3
def llama3(R, b, s, lf, hf, L0):
    P = R // 2
    d32 = default32(b, R)
    two_pi32 = fl(2 * math.pi)
    lam_lo, lam_hi = L0 / lf, L0 / hf
    inv32, bands32 = [], []
    for j in range(P):
        inv = d32[j]
        wl = f_mul(f_div(1.0, inv), two_pi32)
        base = f_div(inv, fl(s)) if wl > fl(lam_lo) else inv
        sm = f_div(f_sub(f_mul(f_div(1.0, wl), fl(L0)), fl(lf)), fl(hf - lf))
        smooth = f_add(f_div(f_mul(f_sub(1.0, sm), base), fl(s)), f_mul(sm, base))
        medium = (not (wl < fl(lam_hi))) and (not (wl > fl(lam_lo)))
        inv32.append(smooth if medium else base)
        bands32.append('smoothed' if medium else ('divided' if wl > fl(lam_lo) else 'kept'))
    inv, bands, wls = [], [], []
    for j in range(P):
        t = theta(b, R, j)
        wl = 2 * mpmath.pi / t
        wls.append(wl)
        if wl < mpmath.mpf(L0) / hf:
            inv.append(t); bands.append('kept')
        elif wl > mpmath.mpf(L0) / lf:
            inv.append(t / s); bands.append('divided')
        else:
            sm = (mpmath.mpf(L0) / wl - lf) / (mpmath.mpf(hf) - lf)
            inv.append((1 - sm) * t / s + sm * t); bands.append('smoothed')
    return dict(inv32=inv32, bands32=bands32, inv=inv, bands=bands, wl=wls)


# ---------------------------------------------------------------- LongRoPE (Phi-3-mini-128k)
PHI3_LONG = [1.0700000524520874, 1.1200000047683716, 1.149999976158142, 1.4199999570846558, 1.5699999332427979,
             1.7999999523162842, 2.129999876022339, 2.129999876022339, 3.009999990463257, 5.910000324249268,
             6.950000286102295, 9.070000648498535, 9.930000305175781, 10.710000038146973, 11.130000114440918,
             14.609999656677246, 15.409998893737793, 19.809999465942383, 37.279998779296875, 38.279998779296875,
             38.599998474121094, 40.12000274658203, 46.20000457763672, 50.940006256103516, 53.66000747680664,
             54.9373893737793, 56.89738845825195, 57.28738784790039, 59.98738479614258, 60.86738586425781,
             60.887386322021484, 61.71739196777344, 62.91739273071289, 62.957393646240234, 63.41739273071289,
             63.8173942565918, 63.83739471435547, 63.897396087646484, 63.93739700317383, 64.06739807128906,
             64.11434936523438, 64.12435150146484, 64.15435028076172, 64.19435119628906, 64.24435424804688,
             64.57435607910156, 64.69000244140625, 64.76000213623047]
PHI3_SHORT = ([1.1] * 3 + [1.3000000000000003] + [1.3500000000000003] * 2 + [1.4000000000000004, 1.5500000000000005]
              + [2.000000000000001] * 17 + [2.0500000000000007] * 6 + [2.1000000000000005] * 2 + [2.1500000000000004]
              + [2.25] * 5 + [2.3999999999999995, 2.4499999999999993, 2.499999999999999] + [2.6999999999999984] * 2
              + [2.7499999999999982, 2.799999999999998, 2.8999999999999977, 3.049999999999997])
assert len(PHI3_LONG) == 48 and len(PHI3_SHORT) == 48


def longrope(R, b, ext):
    p = pos_freqs32(b, R)
    inv32 = [f_div(1.0, f_mul(fl(ext[j]), p[j])) for j in range(R // 2)]
    inv = [theta(b, R, j) / mpmath.mpf(ext[j]) for j in range(R // 2)]
    return inv32, inv


# ---------------------------------------------------------------- dynamic NTK
def dynamic_base_double(b, s, n, L, R):
    return b * ((s * n / L) - (s - 1)) ** (R / (R - 2))


def dynamic_runtime32(b, s, n, L, R):
    x = f_sub(f_div(f_mul(fl(s), fl(n)), fl(L)), fl(s - 1))
    b32 = f_mul(fl(b), pow32(x, fl(R / (R - 2))))
    e = exponents32(R)
    return b32, [f_div(1.0, pow32(b32, ej)) for ej in e]


# ---------------------------------------------------------------- angles
def wrap(x):
    x = mpmath.mpf(x)
    return x - 2 * mpmath.pi * mpmath.nint(x / (2 * mpmath.pi))


def main():
    out = sys.stdout.write
    sci = lambda x: mpmath.nstr(mpmath.mpf(x), 17)
    f9 = lambda x: repr(x)

    out("== YaRN Qwen3 x4 (R 128, b 1e6, L0 32768)\n")
    q = yarn(128, 1e6, 4.0, 32768)
    out(f"raw {q['raw']!r} range [{q['lo']}, {q['hi']}] af {q['af']!r}\n")
    for j in (0, 1, 23, 24, 30, 39, 40, 63):
        out(f"  inv[{j}] hf32 {f9(q['inv32'][j])}  exact {sci(q['inv'][j])}\n")

    out("== YaRN DeepSeek-V3 (R 64, b 1e4, L0 4096, s 40, mscale 1/1)\n")
    d = yarn(64, 1e4, 40.0, 4096, mscale=1.0, mscale_all_dim=1.0)
    out(f"raw {d['raw']!r} range [{d['lo']}, {d['hi']}] af {d['af']!r}\n")
    for j in (0, 10, 11, 22, 23, 31):
        out(f"  inv[{j}] hf32 {f9(d['inv32'][j])}  exact {sci(d['inv'][j])}\n")
    gm = g(40.0, 1.0)
    out(f"g(40) {gm!r}  softmax scale {192 ** (-0.5) * gm * gm!r}  192^-0.5 {192 ** (-0.5)!r}\n")

    out("== YaRN gpt-oss-20b (R 64, b 1.5e5, L0 4096, s 32, truncate False)\n")
    o = yarn(64, 150000.0, 32.0, 4096, truncate=False)
    out(f"raw {o['raw']!r} range [{o['lo']!r}, {o['hi']!r}] af {o['af']!r}\n")
    for j in (0, 1, 8, 9, 17, 18, 31):
        out(f"  inv[{j}] hf32 {f9(o['inv32'][j])}  exact {sci(o['inv'][j])}\n")

    out("== YaRN course small (R 32, b 1e4, L0 128, s 4)\n")
    c = yarn(32, 1e4, 4.0, 128)
    out(f"raw {c['raw']!r} range [{c['lo']}, {c['hi']}]\n")
    for j in (0, 1, 3, 5, 6, 15):
        out(f"  inv[{j}] hf32 {f9(c['inv32'][j])}  exact {sci(c['inv'][j])}  ratio {sci(c['inv'][j] / theta(1e4, 32, j))}\n")
    c2 = yarn(32, 1e4, 4.0, 128, truncate=False)
    out(f"  truncate=False raw range [{c2['lo']!r}, {c2['hi']!r}]\n")

    out("== YaRN lo == hi (R 32, b 1e4, L0 6, s 4)\n")
    z = yarn(32, 1e4, 4.0, 6)
    out(f"raw {z['raw']!r} lo {z['lo']} hi {z['hi']}\n")
    for j in (0, 1, 2):
        out(f"  inv[{j}] hf32 {f9(z['inv32'][j])} exact {sci(z['inv'][j])}\n")

    out("== YaRN high clamp at R-1 (R 16, b 10, L0 1024, s 8): c(1) = 17.7 -> ceil 18 -> clamp 15 (not P-1 = 7)\n")
    h = yarn(16, 10.0, 8.0, 1024)
    out(f"raw {h['raw']!r} lo {h['lo']} hi {h['hi']}\n")
    for j in (0, 5, 6, 7):
        out(f"  inv[{j}] hf32 {f9(h['inv32'][j])} exact {sci(h['inv'][j])} ratio {sci(h['inv'][j] / theta(10.0, 16, j))}\n")
    out("== YaRN low beyond the clamp (R 16, b 10, L0 65536, s 8): lo 20 > hi 15, every pair divided by s\n")
    h = yarn(16, 10.0, 8.0, 65536)
    out(f"raw {h['raw']!r} lo {h['lo']} hi {h['hi']}\n")
    for j in (0, 7):
        out(f"  inv[{j}] hf32 {f9(h['inv32'][j])} exact {sci(h['inv'][j])} ratio {sci(h['inv'][j] / theta(10.0, 16, j))}\n")

    out("== YaRN transformers 4.48-4.55 override: Qwen3-8B L 40960 / L0 32768 -> s 1.25\n")
    out(f"  af {g(40960 / 32768)!r}\n")

    out("== Llama 3.1 (R 128, b 5e5, s 8, lf 1, hf 4, L0 8192)\n")
    l = llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    for j in (0, 28, 29, 30, 34, 35, 63):
        out(f"  [{j}] band {l['bands'][j]}/{l['bands32'][j]} wl {mpmath.nstr(l['wl'][j], 8)} hf32 {f9(l['inv32'][j])} exact {sci(l['inv'][j])}\n")
    out("  bands: " + ",".join(str(l['bands'].count(k)) for k in ('kept', 'smoothed', 'divided')) + "\n")
    l2 = llama3(64, 500000.0, 32.0, 1.0, 4.0, 8192)
    kept = [j for j, x in enumerate(l2['bands']) if x == 'kept']
    sm = [j for j, x in enumerate(l2['bands']) if x == 'smoothed']
    dv = [j for j, x in enumerate(l2['bands']) if x == 'divided']
    out(f"== Llama 3.2-1B bands kept {kept[0]}-{kept[-1]} smoothed {sm[0]}-{sm[-1]} divided {dv[0]}-{dv[-1]} (hf32 same: {l2['bands'] == l2['bands32']})\n")
    for j in (14, 15, 17, 18, 31):
        out(f"  [{j}] hf32 {f9(l2['inv32'][j])} exact {sci(l2['inv'][j])}\n")

    out("== LongRoPE Phi-3-mini-128k (R 96, b 1e4, L0 4096, s 32)\n")
    af = math.sqrt(1 + math.log(32) / math.log(4096))
    out(f"  af {af!r} fl {fl(af)!r}\n")
    s32, sx = longrope(96, 1e4, PHI3_SHORT)
    l32, lx = longrope(96, 1e4, PHI3_LONG)
    for j in (0, 1, 17, 47):
        out(f"  short[{j}] hf32 {f9(s32[j])} exact {sci(sx[j])} | long[{j}] hf32 {f9(l32[j])} exact {sci(lx[j])}\n")

    out("== dynamic NTK (R 128, b 1e4, L 4096, s 2)\n")
    for n in (4096, 4097, 8192, 16384):
        out(f"  n {n}: b' {dynamic_base_double(1e4, 2.0, n, 4096, 128)!r}\n")
    b32, inv32 = dynamic_runtime32(1e4, 2.0, 8192, 4096, 128)
    out(f"  runtime float32 at 8192: b'32 {b32!r}\n")
    bx = mpmath.mpf(1e4) * (mpmath.mpf(2) * 8192 / 4096 - 1) ** (mpmath.mpf(128) / 126)
    for j in (0, 1, 32, 63):
        out(f"   inv[{j}] hf32 {f9(inv32[j])} exact {sci(mpmath.power(bx, -mpmath.mpf(2 * j) / 128))}\n")

    out("== NTK-aware / PI\n")
    for (R, b, s) in ((128, 1e4, 8), (128, 1e4, 4), (128, 1e4, 2), (128, 1e6, 4), (32, 1e4, 4)):
        out(f"  R {R} b {b} s {s}: b' {sci(mpmath.mpf(b) * mpmath.power(s, mpmath.mpf(R) / (R - 2)))}\n")
    bq = mpmath.mpf(1e6) * mpmath.power(4, mpmath.mpf(128) / 126)
    d32 = default32(1e6, 128)
    for j in (0, 1, 40, 62, 63):
        t = theta(1e6, 128, j)
        out(f"   qwen3 x4 ntk inv[{j}] exact {sci(mpmath.power(bq, -mpmath.mpf(2 * j) / 128))} hf32 {f9(default32(float(bq), 128)[j])}"
            f" | linear exact {sci(t / 4)} hf32 {f9(f_div(d32[j], fl(4.0)))}\n")

    out("== float32 drift, Qwen3-8B YaRN x4 table, angle fl(inv32 * fl(m)) vs exact m * theta'_j\n")
    for m in (131072, 1000000):
        worst = (0, None)
        for j in range(64):
            a32 = f_mul(q['inv32'][j], fl(m))
            dr = abs(wrap(mpmath.mpf(a32) - mpmath.mpf(m) * q['inv'][j]))
            if dr > worst[0]:
                worst = (dr, j)
        out(f"  m {m}: worst pair {worst[1]} drift {mpmath.nstr(worst[0], 12)} rad\n")
        for j in (0, 1, 2, 23, 40):
            a32 = f_mul(q['inv32'][j], fl(m))
            out(f"    pair {j}: hf angle {a32!r} reduced {sci(wrap(a32))} exact reduced {sci(wrap(mpmath.mpf(m) * q['inv'][j]))}"
                f" drift {sci(wrap(mpmath.mpf(a32) - mpmath.mpf(m) * q['inv'][j]))}\n")
        # cos/sin in HF float32: fl(cos(a32)) * fl(af)
        j = 1
        a32 = f_mul(q['inv32'][j], fl(m))
        c32 = f_mul(fl(float(mpmath.cos(a32))), fl(q['af']))
        s32_ = f_mul(fl(float(mpmath.sin(a32))), fl(q['af']))
        ce = q['af'] * mpmath.cos(mpmath.mpf(m) * q['inv'][j])
        se = q['af'] * mpmath.sin(mpmath.mpf(m) * q['inv'][j])
        out(f"    pair 1 cos/sin hf32 {c32!r} {s32_!r} exact {sci(ce)} {sci(se)}\n")
    out("== exact angles at large positions (Qwen3-8B YaRN x4, real-number theta'_j)\n")
    for m in (2 ** 24 + 1, 2 ** 31 - 1):
        for j in (1, 30, 40):
            out(f"  m {m} pair {j}: exact reduced {sci(wrap(mpmath.mpf(m) * q['inv'][j]))}\n")


if __name__ == "__main__" and len(sys.argv) == 1:
    main()


# ================================================================ bounds (docs/formulas.md P1, 2, 4)
def roformer_U(P, b, r, dps=30):
    """U(r) = (1/P) sum_{j=1..P} |S_j(r)|, S_j = sum_{k<j} exp(i r theta_k), theta_k = b^(-2k/(2P))."""
    with mpmath.workdps(dps):
        S = mpmath.mpc(0)
        total = mpmath.mpf(0)
        for k in range(P):
            t = mpmath.power(mpmath.mpf(b), -mpmath.mpf(2 * k) / (2 * P))
            S += mpmath.expj(mpmath.mpf(r) * t)
            total += abs(S)
        return total / P


def men_first_negative(R, b, limit):
    """Smallest m in 1..limit with sum_i cos(m theta_i) < 0 (float64 direct summation), or None."""
    th = [b ** (-2.0 * i / R) for i in range(R // 2)]
    for m in range(1, limit + 1):
        if math.fsum(math.cos(m * t) for t in th) < 0:
            return m
    return None


def bounds():
    out = sys.stdout.write
    out("== RoFormer U(r), 32 pairs (mpmath 30 digits)\n")
    for b in (1e4, 1e6, 1e7):
        out(f"  base {b:g}: " + ", ".join(f"U({r})={mpmath.nstr(roformer_U(32, b, r), 12)}"
                                         for r in (0, 1, 10, 100, 1000, 10000, 100000)) + "\n")
    out("  half-value scan (first integer r with U < 8.25):")
    for b in (1e4, 1e6, 1e7):
        r = 0
        while roformer_U(32, b, r, 20) >= 8.25:
            r += 1
        out(f" base {b:g}: {r} (U({r - 1}) = {mpmath.nstr(roformer_U(32, b, r - 1), 6)}, U({r}) = {mpmath.nstr(roformer_U(32, b, r), 6)})")
    out("\n")
    out(f"  d = 128, base 1e4: U(0) {mpmath.nstr(roformer_U(64, 1e4, 0), 12)} U(5) {mpmath.nstr(roformer_U(64, 1e4, 5), 8)}"
        f" U(250) {mpmath.nstr(roformer_U(64, 1e4, 250), 8)}\n")
    out(f"  d = 64, base 1e4, r = 10.5: {mpmath.nstr(roformer_U(32, 1e4, 10.5), 15)}\n")
    # At r = 2^40 the double rounding of theta_k (~1e-16 relative) moves r theta_k by ~1e-4 rad, so
    # the reference takes the same inputs a double implementation has: theta_k = 10000.0 ** (-k / 32)
    # (Python float pow, the nearest double), then sums exactly in mpmath.
    with mpmath.workdps(40):
        S = mpmath.mpc(0); tot = mpmath.mpf(0)
        for k in range(32):
            S += mpmath.expj(mpmath.mpf(2 ** 40) * mpmath.mpf(10000.0 ** (-k / 32)))
            tot += abs(S)
        out(f"  d = 64, base 1e4, r = 2^40, double theta_k: {mpmath.nstr(tot / 32, 15)}\n")

    out("== PI (Chen et al. 2023) d = 128 and 64, c = 1e4\n")
    for d in (128, 64):
        c = mpmath.mpf(10000)
        paper = d / (32 * mpmath.log(c))
        sum_theta2 = (1 - c ** -2) / (1 - c ** (-mpmath.mpf(4) / d))
        corrected = sum_theta2 / 8
        out(f"  d {d}: paper coefficient d/(32 ln c) {mpmath.nstr(paper, 15)}; d/(4 ln c) {mpmath.nstr(d / (4 * mpmath.log(c)), 15)};"
            f" sum theta^2 {mpmath.nstr(sum_theta2, 15)}; corrected coefficient {mpmath.nstr(corrected, 15)}\n")
        # B(s) = sum_{k=1..P} |A_k(s)| over integer s, float64 with exact-ish angles (math.fmod on the double product)
        P = d // 2
        th = [10000.0 ** (-2.0 * j / d) for j in range(P)]
        for last in (2048, 4096):
            best = (None, 1e300)
            for s in range(0, last + 1):
                re = im = 0.0
                tot = 0.0
                for t in th:
                    a = s * t
                    re += math.cos(a); im += math.sin(a)
                    tot += math.hypot(re, im)
                if tot < best[1]:
                    best = (s, tot)
            sB = best[1]
            sBm = roformer_U(P, 1e4, best[0], 30) * P
            out(f"   min B(s)/d on [0, {last}]: s = {best[0]}, B/d = {mpmath.nstr(sBm / d, 12)}; ratio paper {mpmath.nstr(2 * sBm / paper, 10)}"
                f" corrected {mpmath.nstr(2 * sBm / corrected, 10)}\n")
        out(f"   ratio at B/d = 1 (paper): {mpmath.nstr(2 * d / paper, 12)}\n")
    out(f"  interpolation bound eq. 5, d 128, c 1e4, s in [10, 11] at s = 10.25: "
        f"{mpmath.nstr(128 * 0.25 * 0.75 / (8 * mpmath.log(10000)), 15)}\n")

    out("== Men et al. 2024 (d = 128): L_theta(b) = first negative m - 1 (float64 direct sum)\n")
    for b, limit in ((27000.0, 5000), (310000.0, 17000), (26952.5, 5000), (4293.45, 1500)):
        m = men_first_negative(128, b, limit)
        out(f"  b {b:g}: first negative m {m} -> L_theta {None if m is None else m - 1}\n")


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "bounds":
    bounds()
