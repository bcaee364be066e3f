#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent values for tests/models/hf_config_tests.cpp and tests/inspect/*.cpp.

Written from the Hugging Face rules of docs/formulas.md (H2-8, 12) and the lesson C2-5 text
(docs/lessons.md), NOT from posenc's C++ code: the real-number formulas evaluated in
mpmath at 50 digits, printed to 17 significant digits.

Run:  python3 tests/models/hf_config_reference_values.py   (needs only mpmath)
"""
import mpmath

mpmath.mp.dps = 50
PI2 = 2 * mpmath.pi


def theta(b, R, j):
    """theta_j = b^(-2j/R) (RoFormer eq. 15)."""
    return mpmath.power(mpmath.mpf(b), -mpmath.mpf(2 * j) / R)


def s17(x):
    return mpmath.nstr(mpmath.mpf(x), 17)


def yarn_exact(b, R, s, lo, hi, j):
    """HF yarn ramp in the pair index: ramp = clamp((j - lo) / (hi - lo), 0, 1)."""
    ramp = min(max((mpmath.mpf(j) - lo) / (mpmath.mpf(hi) - lo), 0), 1)
    t = theta(b, R, j)
    return t * (1 - ramp) + t / s * ramp


def corr(b, R, L0, r):
    """c(r) = R ln(L0 / (2 pi r)) / (2 ln b)."""
    return R * mpmath.log(mpmath.mpf(L0) / (PI2 * r)) / (2 * mpmath.log(b))


def llama3_exact(b, R, s, lf, hf, L0, j):
    t = theta(b, R, j)
    wl = PI2 / t
    if wl < mpmath.mpf(L0) / hf:
        return t
    if wl > mpmath.mpf(L0) / lf:
        return t / s
    m = (mpmath.mpf(L0) / wl - lf) / (mpmath.mpf(hf) - lf)
    return (1 - m) * t / s + m * t


def g(s, mscale=1):
    return 1 if s <= 1 else mpmath.mpf('0.1') * mscale * mpmath.log(s) + 1


print("== default tables (exact theta_j)")
for name, b, R, js in (("Llama-2 / Mistral", 1e4, 128, (1, 2, 32, 63)), ("CodeLlama", 1e6, 128, (1, 63)),
                       ("GLM-4 (R 64)", 1e4, 64, (1, 31)), ("Pythia (R 16)", 1e4, 16, (1, 7)),
                       ("Phi-2 (R 32)", 1e4, 32, (1, 15)), ("GPT-J (R 64)", 1e4, 64, (1, 31))):
    print(f"  {name}: " + ", ".join(f"[{j}] {s17(theta(b, R, j))}" for j in js))

print("== Llama-3.1-8B llama3 (R 128, b 5e5, s 8, lf 1, hf 4, L0 8192), exact")
for j in (0, 28, 29, 34, 35, 63):
    print(f"  [{j}] {s17(llama3_exact(5e5, 128, 8, 1, 4, 8192, j))}")

print("== YaRN, exact tables; HF truncate: lo = floor(c(32)), hi = ceil(c(1))")
for name, b, R, s, L0, trunc, js in (("Qwen x4", 1e6, 128, 4, 32768, True, (23, 24, 30, 39, 40)),
                                     ("DeepSeek-V3", 1e4, 64, 40, 4096, True, (10, 11, 22, 23)),
                                     ("gpt-oss-20b", 1.5e5, 64, 32, 4096, False, (1, 8, 9, 17, 18, 31))):
    lo, hi = corr(b, R, L0, 32), corr(b, R, L0, 1)
    if trunc:
        lo, hi = mpmath.floor(lo), mpmath.ceil(hi)
    lo, hi = max(lo, 0), min(hi, R - 1)
    print(f"  {name}: range [{s17(lo)}, {s17(hi)}]: " +
          ", ".join(f"[{j}] {s17(yarn_exact(b, R, s, lo, hi, j))}" for j in js))
print(f"  attention g(4) {s17(g(4))}, g(32) {s17(g(32))}; DeepSeek g(40)^2 {s17(g(40) ** 2)},"
      f" softmax scale 192^-1/2 g(40)^2 {s17(mpmath.mpf(192) ** -0.5 * g(40) ** 2)}")
print(f"  Qwen x4 pair 30 compression 1 - (30 - 23)/(40 - 23) * (1 - 1/4) = {s17(1 - mpmath.mpf(7) / 17 * mpmath.mpf(3) / 4)}")

PHI3_LONG = [1.0700000524520874, 64.76000213623047]   # entries [0] and [47] of H12's list
PHI3_SHORT = [1.1, 3.049999999999997]                 # entries [0] and [47]
print("== Phi-3-mini-128k longrope (R 96, b 1e4, L0 4096, s 32)")
print(f"  attention sqrt(1 + ln 32 / ln 4096) = {s17(mpmath.sqrt(1 + mpmath.log(32) / mpmath.log(4096)))}")
for k, j in ((0, 0), (1, 47)):
    print(f"  short[{j}] {s17(theta(1e4, 96, j) / mpmath.mpf(PHI3_SHORT[k]))}"
          f"  long[{j}] {s17(theta(1e4, 96, j) / mpmath.mpf(PHI3_LONG[k]))}")

print("== lesson C2-5 with Qwen3-8B (R 128, b 1e6, L 32768, x4 -> 131072)")
b, R, L, Lt = 1e6, 128, 32768, 131072
inc = [j for j in range(64) if L * theta(b, R, j) < PI2]
print(f"  never a full turn within L: {len(inc)} (pairs {inc[0]}..{inc[-1]}); pair 0 turns {s17(L / PI2)}")
# direct extrapolation: the incomplete pairs reach Lt theta_j > L theta_j -> all of them out of range
print(f"  none x4: out of range {len(inc)}")
bn = mpmath.mpf(b) * mpmath.power(4, mpmath.mpf(R) / (R - 2))
ntk = [j for j in inc if Lt * mpmath.power(bn, -mpmath.mpf(2 * j) / R) > L * theta(b, R, j)]
print(f"  ntk_aware x4: base' {s17(bn)}; out of range {len(ntk)} (pairs {ntk[0]}..{ntk[-1]});"
      f" pair 63 compression {s17(mpmath.power(bn, -mpmath.mpf(126) / R) / theta(b, R, 63))}")
bd = mpmath.mpf(b) * mpmath.power(4 * mpmath.mpf(Lt) / L - 3, mpmath.mpf(R) / (R - 2))
print(f"  dynamic x4 at 131072 (reference length 32768): base' {s17(bd)}, inv[1] {s17(mpmath.power(bd, -mpmath.mpf(2) / R))}")
print("== course small model (R 32, b 1e4, L 128)")
inc = [j for j in range(16) if 128 * theta(1e4, 32, j) < PI2]
print(f"  never a full turn within 128: {len(inc)} (pairs {inc[0]}..{inc[-1]})")
lo, hi = corr(1e4, 32, 128, 32), corr(1e4, 32, 128, 1)
print(f"  yarn x4 raw range {s17(lo)} {s17(hi)} -> [{max(mpmath.floor(lo), 0)}, {mpmath.ceil(hi)}]")
print("== Qwen3.8-27B (R 64, b 1e7, L 262144)")
inc = [j for j in range(32) if 262144 * theta(1e7, 64, j) < PI2]
print(f"  never a full turn: {len(inc)} (pairs {inc[0]}..{inc[-1]})")
print("== DeepSeek-V4.1-Flash (R 64, b 1e4, L 65536)")
print(f"  slowest period {s17(PI2 / theta(1e4, 64, 31))}; incomplete {sum(1 for j in range(32) if 65536 * theta(1e4, 64, j) < PI2)}")
