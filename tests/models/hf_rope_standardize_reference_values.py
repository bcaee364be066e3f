# SPDX-License-Identifier: MIT
"""Independent expected values for tests/models/hf_rope_standardize_tests.cpp.

Hugging Face transformers' rules, written out here from the transformers sources named below (NOT
from posenc's C++ code), evaluated with mpmath at 50 digits:

  standardize_rope_params (modeling_rope_utils.py, transformers 5):
    a single RoPE dict of type yarn / llama3 / longrope takes the configuration's
    original_max_position_embeddings attribute when it has one (Phi-3's class default is 4096,
    phi3/configuration_phi3.py), else its own value, else max_position_embeddings;
    a per-layer-type dict keeps its own value, else max_position_embeddings (no top-level key).
  _compute_longrope_parameters: factor = max_position_embeddings / L0 when missing;
    attention_factor = sqrt(1 + ln(factor) / ln(L0)); inv_j = 1 / (ext_j * base ** (2j / R)),
    ext = long_factor when seq_len > L0, else short_factor.
  _compute_yarn_parameters: attention_factor = 0.1 ln(factor) + 1; c(r) = R ln(L0 / (2 pi r)) / (2 ln b);
    lo = max(floor(c(beta_fast)), 0), hi = min(ceil(c(beta_slow)), R - 1);
    ramp_j = clamp((j - lo) / (hi - lo), 0, 1); inv_j = ramp_j / (s p_j) + (1 - ramp_j) / p_j, p_j = b ** (2j / R).
  apply_interleaved_mrope (qwen3_vl/modeling_qwen3_vl.py): pair j is height when j % 3 == 1 and
    j < 3 * s[1], width when j % 3 == 2 and j < 3 * s[2], else temporal; s defaults to [24, 20, 20].
  GPT-J (gptj/configuration_gptj.py): rotary_dim defaults to 64.

Run:  /usr/bin/python3 tests/models/hf_rope_standardize_reference_values.py
and paste the printed lines into the test file.
"""
import mpmath

mpmath.mp.dps = 50


def show(name, x):
    print(f"{name} = {mpmath.nstr(mpmath.mpf(x), 17)}")


# ---- Phi-3: class-default L0 4096, longrope factor from the lengths ----
L, L0, R, b = 131072, 4096, 96, 10000
factor = mpmath.mpf(L) / L0
show("phi3_attention_factor", mpmath.sqrt(1 + mpmath.log(factor) / mpmath.log(L0)))
short = [1 + mpmath.mpf(j) / 100 for j in range(R // 2)]
long = [2 + mpmath.mpf(j) / 2 for j in range(R // 2)]
for j in (0, 1, 47):
    p = mpmath.power(b, mpmath.mpf(2 * j) / R)
    show(f"phi3_short_inv[{j}]", 1 / (short[j] * p))
    show(f"phi3_long_inv[{j}]", 1 / (long[j] * p))

# ---- per-layer-type YaRN: L0 = max_position_embeddings, not the top-level key ----
R, b, s, L0 = 256, mpmath.mpf(10) ** 6, 8, 131072
show("yarn_attention_factor", mpmath.mpf("0.1") * mpmath.log(s) + 1)


def c(r):
    return R * mpmath.log(L0 / (2 * mpmath.pi * r)) / (2 * mpmath.log(b))


lo, hi = max(int(mpmath.floor(c(32))), 0), min(int(mpmath.ceil(c(1))), R - 1)
print(f"yarn_correction_range = [{lo}, {hi}]  (raw {mpmath.nstr(c(32), 10)}, {mpmath.nstr(c(1), 10)})")
for j in (lo - 1, lo + 5, hi + 1, R // 2 - 1):
    p = mpmath.power(b, mpmath.mpf(2 * j) / R)
    ramp = min(max(mpmath.mpf(j - lo) / (hi - lo), 0), 1)
    show(f"yarn_inv[{j}]", ramp / (s * p) + (1 - ramp) / p)

# ---- Qwen3-VL: interleaved M-RoPE, default sections ----
sec = [24, 20, 20]
axes = []
for j in range(64):
    axes.append(1 if (j % 3 == 1 and j < 3 * sec[1]) else 2 if (j % 3 == 2 and j < 3 * sec[2]) else 0)
for j in (0, 1, 2, 58, 59, 60, 61, 62, 63):
    print(f"qwen3_vl_axis[{j}] = {axes[j]}")

# ---- GPT-J: rotary_dim 64 of a 256-wide head ----
show("gptj_inv[1]", mpmath.power(10000, -mpmath.mpf(2) / 64))
show("gptj_inv[31]", mpmath.power(10000, -mpmath.mpf(62) / 64))
