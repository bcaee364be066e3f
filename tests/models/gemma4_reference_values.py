# SPDX-License-Identifier: MIT
# Expected values of the Gemma 4 config tests (hf_families_tests.cpp), restated from transformers'
# formulas with mpmath at 30 digits, independently of posenc:
#   sliding_attention: default RoPE over head_dim H = 256, theta_i = base^(-2i / H), base 1e4;
#   full_attention: proportional RoPE over global_head_dim H = 512 (modeling_rope_utils.py
#   _compute_proportional_rope_parameters): K = int(p * H // 2) = 64 pairs rotate at
#   theta_i = base^(-2i / H) / factor (exponent over the WHOLE H), base 1e6; pairs K .. H/2 - 1 are 0.
import mpmath as mp

mp.mp.dps = 30


def sliding(i, base=10000, head_dim=256):
    return mp.power(mp.mpf(base), mp.mpf(-2 * i) / head_dim)


def full(i, base=10**6, head_dim=512, p=mp.mpf("0.25"), factor=1):
    rotated = int(mp.floor(p * head_dim / 2))
    return mp.power(mp.mpf(base), mp.mpf(-2 * i) / head_dim) / factor if i < rotated else mp.mpf(0)


if __name__ == "__main__":
    print("rotated pairs", int(mp.floor(mp.mpf("0.25") * 512 / 2)))  # 64
    for i in (1, 63, 64, 255):
        print("full", i, mp.nstr(full(i), 20))  # 0.94746352565537539776, 0.033376246942920385462, 0, 0
    print("sliding 5", mp.nstr(sliding(5), 20))  # 0.69783058485986633841
