#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent values for tests/models/new_families_tests.cpp, from Hugging Face transformers'
formulas (not posenc's code), mpmath at 60 digits:
  HunYuan-VL (modeling_hunyuan_vl.py, HunYuanVLRotaryEmbedding with rope_type xdrope -> dynamic and
    alpha): base' = rope_theta * alpha ** (H / (H - 2)); inv_i = base' ** (-2i / H)
  Gemma 4 full attention: proportional, inv_i = 1e6 ** (-2i / 512) for i < 64, else 0
  Llama 4 temperature tuning: 1 + 0.1 * ln(1 + floor((pos + 1) / 8192))
  PhiMoE: cos/sin magnitude short_mscale / long_mscale (the config's values, verbatim)

Run:  python3 tests/models/new_families_reference_values.py   (needs only mpmath)
"""
import mpmath

mpmath.mp.dps = 60

H = 128
base = mpmath.mpf(10000) * mpmath.power(1000, mpmath.mpf(H) / (H - 2))
print("HunyuanOCR base' =", mpmath.nstr(base, 20))
for i in (1, 63):
    print("  inv[%d] = %s" % (i, mpmath.nstr(mpmath.power(base, mpmath.mpf(-2 * i) / H), 20)))
print("Gemma 4 full inv[63] =", mpmath.nstr(mpmath.power(10 ** 6, mpmath.mpf(-126) / 512), 20))
print("Llama 4 at pos 100000: ", mpmath.nstr(1 + mpmath.mpf(0.1) * mpmath.log(1 + (100000 + 1) // 8192), 20))
