#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent evaluation of the values pasted into tests/scaling/hf_proportional_vectors.cpp.

Written from Hugging Face transformers' `_compute_proportional_rope_parameters`
(modeling_rope_utils.py, rope_type "proportional") as a formula, NOT from posenc's C++ code:
    K       = int(p * H // 2)                     (Python: float multiply, floor division by 2)
    inv_i   = base ** (-2i / H) / factor          i < K    (exact: mpmath at 60 digits)
    inv_i   = 0                                   K <= i < H/2
    hf32    : 1 / pow32(fl(base), fl(2i) / fl(H)), then / fl(factor), one float32 rounding per
              operation (pow32 correctly rounded, as in tests/scaling/hf_reference_values.py).

Run:  python3 tests/scaling/proportional_reference_values.py   (needs only mpmath)
"""
import struct

import mpmath

mpmath.mp.dps = 60


def fl(x):
    return struct.unpack('<f', struct.pack('<f', float(x)))[0]


def round24(x):
    with mpmath.workprec(24):
        y = +mpmath.mpf(x)
    return fl(float(y))


def rotated_pairs(p, H):
    return int(p * H // 2)


def exact(base, H, i, factor=1):
    return mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / H) / factor


def hf32(base, H, i, factor=1.0):
    e = fl(fl(2 * i) / fl(H))
    p = round24(mpmath.power(mpmath.mpf(fl(base)), mpmath.mpf(e)))
    inv = fl(1.0 / p)
    return fl(inv / fl(factor))


def main():
    print("Gemma 4 full attention: H 512, partial_rotary_factor 0.25, base 1e6")
    K = rotated_pairs(0.25, 512)
    print("  K =", K, " zero pairs =", 512 // 2 - K)
    for i in (0, 1, 2, 32, 63):
        print("  exact inv[%d] = %s   hf32 = %r" % (i, mpmath.nstr(exact(1e6, 512, i), 20), hf32(1e6, 512, i)))
    print("Same with factor 8:")
    for i in (1, 63):
        print("  exact inv[%d] = %s   hf32 = %r" % (i, mpmath.nstr(exact(1e6, 512, i, 8), 20), hf32(1e6, 512, i, 8.0)))
    print("Truncation: int(p * H // 2)")
    for p, H in ((0.29, 100), (0.3, 10), (0.75, 6), (1.0, 256), (0.0, 64), (0.5, 2), (0.33, 128)):
        print("  p %r H %d: p*H = %r -> K = %d" % (p, H, p * H, rotated_pairs(p, H)))
    print("A partial rotary width R = 128 instead (exponent over R): 1e6^(-2/128) = %s"
          % mpmath.nstr(exact(1e6, 128, 1), 20))
    print("Gemma 4 sliding attention is default RoPE (H 256, base 1e4): inv[1] = %s"
          % mpmath.nstr(exact(1e4, 256, 1), 20))


if __name__ == "__main__":
    main()
