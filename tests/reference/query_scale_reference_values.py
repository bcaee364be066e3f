#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent values for tests/reference/query_scale.cpp, from the formulas as Hugging Face
transformers writes them (not posenc's code), evaluated in mpmath at 60 digits with the
doubles beta read exactly:
  Llama 4 (modeling_llama4.py): log1p(floor((pos + 1) / floor_scale)) * attn_scale + 1
  Ministral 3 / Mistral 4 (get_llama_4_attn_scale): 1 + beta * log(1 + floor(pos / L0))
Also Hugging Face's float32 evaluation (position as float32, one rounding per operation; log
correctly rounded), to show where it departs from the exact floor (pos >= 2^24).

Run:  python3 tests/reference/query_scale_reference_values.py   (needs only mpmath)
"""
import struct

import mpmath

mpmath.mp.dps = 60


def fl(x):
    return struct.unpack('<f', struct.pack('<f', float(x)))[0]


def exact(beta, divisor, offset, pos):
    n = (pos + offset) // divisor
    return 1 + mpmath.mpf(beta) * mpmath.log(1 + n)


def hf32_llama4(attn_scale, floor_scale, pos):
    x = fl(fl(pos) + 1.0)
    q = fl(x / fl(floor_scale))
    n = float(mpmath.floor(q))
    return fl(fl(fl(float(mpmath.log1p(n))) * fl(attn_scale)) + 1.0)


print("Llama 4 temperature tuning (attn_scale 0.1, floor_scale 8192, offset 1)")
for pos in (0, 8190, 8191, 8192, 16383, 1000000, 2147483647):
    print("  {%d, %s}," % (pos, mpmath.nstr(exact(0.1, 8192, 1, pos), 20)))
print("Ministral 3 llama_4_scaling_beta (beta 0.1, L0 16384, offset 0)")
for pos in (0, 16383, 16384, 32768, 262143, 2147483647):
    print("  {%d, %s}," % (pos, mpmath.nstr(exact(0.1, 16384, 0, pos), 20)))
print("Float32 positions round above 2^24: Llama 4 at pos = 9216 * 8192 - 2 (= 75497470)")
pos = 75497470
print("  exact floor((pos + 1) / 8192) =", (pos + 1) // 8192, "; HF float32 floor =",
      int(mpmath.floor(fl(fl(fl(pos) + 1.0) / 8192.0))))
