#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent evaluation of the values pasted into tests/scaling/longrope_switch.cpp.

Restates what Hugging Face transformers does past the original length L0 (seq_len =
max(position_ids) + 1), per family, NOT posenc's code:
  Phi-3 (modeling_phi3.py; longrope_frequency_update in modeling_rope_utils.py):
      n <= L0: inv_j = base^(-2j/R) / short_factor[j];  n > L0: / long_factor[j];
      attention factor sqrt(1 + ln s / ln L0) at every n.
  PhiMoE (modeling_phimoe.py, PhimoeRotaryEmbedding.forward): the rope init function is called
      without seq_len, so inv_j = base^(-2j/R) / short_factor[j] at every n; cos/sin times
      long_mscale if n > L0 else short_mscale.
Values: Phi-3-mini-128k's lists (R 96, base 10000, L0 4096), entries j = 1 and 47.

Run:  python3 tests/scaling/longrope_switch_reference_values.py   (needs only mpmath)
"""
import mpmath

mpmath.mp.dps = 60

short_factor = {1: 1.1, 47: 3.049999999999997}
long_factor = {1: 1.1200000047683716, 47: 64.76000213623047}


def theta(j, base=10000, R=96):
    return mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * j) / R)


for j in (1, 47):
    print("j %d: short %s  long %s" % (j, mpmath.nstr(theta(j) / mpmath.mpf(short_factor[j]), 20),
                                       mpmath.nstr(theta(j) / mpmath.mpf(long_factor[j]), 20)))
print("attention factor sqrt(1 + ln 32 / ln 4096) =", mpmath.nstr(mpmath.sqrt(1 + mpmath.log(32) / mpmath.log(4096)), 20))
