# SPDX-License-Identifier: MIT
"""Independent expected values for tests/models/model_rope_tests.cpp.

For each config file in tests/data/configs/ that the model-level reader is tested on, this script
applies Hugging Face transformers' rules, written out here from the transformers sources named
below (NOT from posenc's C++ code), and prints a C++ table:

  - which layers carry no RoPE (NoPE), and which group every other layer uses;
  - per group: head_dim, rotary_dim, base, pairing, and every inv_freq twice:
      exact   the real-number formula, evaluated with mpmath at 50 digits;
      float32 Hugging Face's float32 computation emulated with numpy float32 (each operation
              rounded to float32, in the order transformers performs it);
  - the M-RoPE axis of every pair where there is one.

Rules used (paths in the transformers repository):
  default   inv_j = 1 / base ** (arange(0, R, 2).float() / R)          modeling_rope_utils.py
  linear    default / factor                                          modeling_rope_utils.py
  llama3    wavelen = 2 pi / inv; low/high bands at L0/lf and L0/hf;   modeling_rope_utils.py
            smooth = (L0 / wavelen - lf) / (hf - lf) in the middle band
  HunYuan   base' = rope_theta * alpha ** (H / (H - 2)) (Python double), then default over H
            models/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py
  Gemma 3   layer i sliding unless (i + 1) % sliding_window_pattern == 0; sliding layers use
            rope_local_base_freq unscaled, full layers rope_theta + rope_scaling
            models/gemma3/configuration_gemma3.py, modeling_gemma3.py
  SmolLM3 / Llama 4   no_rope_layers[i] == 1 uses RoPE; absent (Llama 4: or empty) ->
            int((i + 1) % no_rope_layer_interval != 0)
            models/smollm3/configuration_smollm3.py, models/llama4/configuration_llama4.py
  Cohere 2  RoPE only on sliding_attention layers; pattern default 4
            models/cohere2/modular_cohere2.py
  EXAONE 4  RoPE on sliding layers, or on every layer when sliding_window is None
            models/exaone4/modeling_exaone4.py
  Qwen3-Next  linear_attention layers have no RoPE; partial_rotary_factor default 0.25
            models/qwen3_next/configuration_qwen3_next.py
  M-RoPE    sections: cos/sin split by mrope_section * 2, chunk c takes axis c % 3
            (models/qwen2_vl/modeling_qwen2_vl.py apply_multimodal_rotary_pos_emb);
            interleaved: H on pairs 1::3 below 3 * s[1], W on 2::3 below 3 * s[2]
            (models/qwen3_vl/modeling_qwen3_vl.py apply_interleaved_mrope)
  pairing   interleaved for gptj, cohere, cohere2, glm, glm4, deepseek_v3, ernie4_5, llama4_text

Run:  /usr/bin/python3 tests/models/model_rope_reference_values.py > tests/models/model_rope_reference_values.inc
(needs mpmath and numpy only)
"""
import math

import mpmath
import numpy as np

mpmath.mp.dps = 50
F = np.float32


def f32_default(base, R):
    e = np.arange(0, R, 2, dtype=np.int64).astype(F) / F(R)
    return F(1.0) / (F(base) ** e)


def exact_default(base, R):
    return [mpmath.power(mpmath.mpf(base), -mpmath.mpf(2 * j) / R) for j in range(R // 2)]


def f32_llama3(inv, factor, lf, hf, L0):
    wavelen = (F(1.0) / inv) * F(2 * math.pi)
    low_wl, high_wl = L0 / lf, L0 / hf
    base = np.where(wavelen > F(low_wl), inv / F(factor), inv)
    with np.errstate(divide="ignore", invalid="ignore"):
        smooth = (F(L0) * (F(1.0) / wavelen) - F(lf)) / F(hf - lf)
        smoothed = (F(1.0) - smooth) * base / F(factor) + smooth * base
    medium = ~(wavelen < F(high_wl)) & ~(wavelen > F(low_wl))
    return np.where(medium, smoothed, base).astype(F)


def exact_llama3(theta, factor, lf, hf, L0):
    out = []
    for t in theta:
        wl = 2 * mpmath.pi / t
        if wl < mpmath.mpf(L0) / hf:
            out.append(t)
        elif wl > mpmath.mpf(L0) / lf:
            out.append(t / factor)
        else:
            m = (mpmath.mpf(L0) / wl - lf) / (mpmath.mpf(hf) - lf)
            out.append((1 - m) * t / factor + m * t)
    return out


def group(name, H, R, base, pairing, scaling=None, hunyuan_alpha=None):
    """One RoPE group: its tables (exact and float32)."""
    exact_base = mpmath.mpf(base)
    if hunyuan_alpha is not None:
        exact_base = exact_base * mpmath.power(mpmath.mpf(hunyuan_alpha), mpmath.mpf(H) / (H - 2))
        base = base * hunyuan_alpha ** (H / (H - 2))  # Python double, as the modeling code
        R = H
    theta = exact_default(exact_base, R)
    f32 = f32_default(base, R)
    if scaling and scaling[0] == "linear":
        s = scaling[1]
        theta = [t / s for t in theta]
        f32 = (f32 / F(s)).astype(F)
    elif scaling and scaling[0] == "llama3":
        _, s, lf, hf, L0 = scaling
        theta = exact_llama3(theta, s, lf, hf, L0)
        f32 = f32_llama3(f32, s, lf, hf, L0)
    return {"name": name, "H": H, "R": R, "base": base, "pairing": pairing, "exact": theta, "f32": f32}


def pattern(n, p, odd, every):
    return [odd if (i + 1) % p != 0 else every for i in range(n)]


def sections_axes(section, P):
    # cos/sin of width 2P split into chunks mrope_section * 2; chunk c takes axis c % 3.
    axes, chunks = [], section * 2
    for c, width in enumerate(chunks):
        axes += [c % 3] * width
    return axes[:P]


def interleaved_axes(section, P):
    axes = [0] * P
    for i in range(1, 3 * section[1], 3):
        axes[i] = 1
    for i in range(2, 3 * section[2], 3):
        axes[i] = 2
    return axes


MODELS = []


def model(file, layers, groups, layer_group, axes=None):
    MODELS.append({"file": file, "layers": layers, "groups": groups, "layer_group": layer_group, "axes": axes})


# google/gemma-3-1b-it: 26 layers, pattern 6, head 256, theta 1e6 (no scaling), local 1e4
t = pattern(26, 6, "sliding_attention", "full_attention")
model("gemma-3-1b-it.json", 26,
      [group("sliding_attention", 256, 256, 10000.0, "half_split"), group("full_attention", 256, 256, 1e6, "half_split")],
      [0 if x == "sliding_attention" else 1 for x in t])
# google/gemma-3-4b-it: text_config defaults head_dim 256, rope_theta 1e6, local 1e4, pattern 6; linear x8 on full
t = pattern(34, 6, "sliding_attention", "full_attention")
for f in ("gemma-3-4b-it.json", "gemma-3-4b-it-v5-rope-parameters.json"):
    model(f, 34,
          [group("sliding_attention", 256, 256, 10000.0, "half_split"),
           group("full_attention", 256, 256, 1e6, "half_split", ("linear", 8.0))],
          [0 if x == "sliding_attention" else 1 for x in t])
# HuggingFaceTB/SmolLM3-3B: no_rope_layers given (every 4th 0), theta 5e6, head 2048/16 = 128
nr = [int((i + 1) % 4 != 0) for i in range(36)]
model("smollm3-3b.json", 36, [group("default", 128, 128, 5e6, "half_split")], [0 if x else -1 for x in nr])
# meta-llama/Llama-4-Scout-17B-16E-Instruct: no_rope_layers absent -> interval 4; llama3 16, lf = hf = 1, L0 8192
nr = [int((i + 1) % 4 != 0) for i in range(48)]
model("llama-4-scout-17b-16e-instruct.json", 48,
      [group("default", 128, 128, 500000.0, "interleaved", ("llama3", 16.0, 1.0, 1.0, 8192))], [0 if x else -1 for x in nr])
# CohereLabs/c4ai-command-r7b-12-2024: pattern 4, RoPE only on sliding layers, interleaved, theta 50000
t = pattern(32, 4, "sliding_attention", "full_attention")
model("command-r7b-12-2024.json", 32, [group("default", 128, 128, 50000.0, "interleaved")],
      [0 if x == "sliding_attention" else -1 for x in t])
# LGAI-EXAONE/EXAONE-4.0-32B: layer_types given (LLLG), window 4096 -> full layers NoPE; llama3 16, 1 / 4, L0 8192
t = pattern(64, 4, "sliding_attention", "full_attention")
model("exaone-4.0-32b.json", 64,
      [group("default", 128, 128, 1e6, "half_split", ("llama3", 16.0, 1.0, 4.0, 8192))],
      [0 if x == "sliding_attention" else -1 for x in t])
# baidu/ERNIE-4.5-0.3B-PT (and without rope_theta: class default 500000): interleaved, head 128
for f in ("ernie-4.5-0.3b-pt.json", "ernie-4.5-0.3b-no-rope-theta.json"):
    model(f, 18, [group("default", 128, 128, 500000.0, "interleaved")], [0] * 18)
# tencent/Hunyuan-A13B-Instruct: dynamic with alpha 1000: base = 1e4 * 1000 ** (128 / 126)
model("hunyuan-a13b-instruct.json", 32, [group("default", 128, 128, 10000.0, "half_split", hunyuan_alpha=1000.0)], [0] * 32)
# Qwen/Qwen2-VL-7B-Instruct, Qwen/Qwen2.5-VL-7B-Instruct: 3584 / 28 = 128, theta 1e6, sections [16, 24, 24]
for f in ("qwen2-vl-7b-instruct.json", "qwen2.5-vl-7b-instruct.json"):
    model(f, 28, [group("default", 128, 128, 1e6, "half_split")], [0] * 28, sections_axes([16, 24, 24], 64))
# Qwen/Qwen3-VL-8B-Instruct: head 128, theta 5e6, interleaved [24, 20, 20]
model("qwen3-vl-8b-instruct.json", 36, [group("default", 128, 128, 5e6, "half_split")], [0] * 36,
      interleaved_axes([24, 20, 20], 64))
# Qwen/Qwen3-Next-80B-A3B-Instruct (and without partial_rotary_factor: default 0.25): head 256 -> R 64, theta 1e7
t = pattern(48, 4, "linear_attention", "full_attention")
for f in ("qwen3-next-80b-a3b-instruct.json", "qwen3-next-no-partial-rotary-factor.json"):
    model(f, 48, [group("default", 256, 64, 1e7, "half_split")], [0 if x == "full_attention" else -1 for x in t])
# tiiuae/falcon-7b: 4544 / 71 = 64, theta default 10000, max_position_embeddings default 2048
model("falcon-7b.json", 32, [group("default", 64, 64, 10000.0, "half_split")], [0] * 32)
# allenai/OLMo-2-1124-7B: 4096 / 32 = 128, theta 500000
model("olmo-2-1124-7b.json", 32, [group("default", 128, 128, 500000.0, "half_split")], [0] * 32)
# EleutherAI/gpt-neox-20b without rotary_pct: 6144 / 64 = 96, rotary_pct default 0.25 -> 24
model("gpt-neox-20b-no-rotary-pct.json", 44, [group("default", 96, 24, 10000.0, "half_split")], [0] * 44)


def num(x):
    return mpmath.nstr(mpmath.mpf(x), 17, min_fixed=-5, max_fixed=5)


print("// SPDX-License-Identifier: MIT")
print("// Generated by tests/models/model_rope_reference_values.py; do not edit by hand.")
print("// clang-format off")
for m in MODELS:
    ident = m["file"].replace("-", "_").replace(".", "_")
    for g in m["groups"]:
        gid = ident + "_" + g["name"]
        print(f"inline const std::vector<double> {gid}_exact{{" + ", ".join(num(x) for x in g["exact"]) + "};")
        print(f"inline const std::vector<double> {gid}_f32{{" + ", ".join(repr(float(x)) for x in g["f32"]) + "};")
    print(f"inline const ExpectedModel {ident}{{\"{m['file']}\", {m['layers']},")
    print("    {" + ", ".join(str(x) for x in m["layer_group"]) + "},")
    print("    {")
    for g in m["groups"]:
        gid = ident + "_" + g["name"]
        print(f"        {{\"{g['name']}\", {g['H']}, {g['R']}, {g['base']!r}, posenc::Pairing::{g['pairing']}, &{gid}_exact, &{gid}_f32}},")
    print("    },")
    print("    {" + ("" if m["axes"] is None else ", ".join(str(a) for a in m["axes"])) + "}};")
print("inline const std::vector<const ExpectedModel*> expected_models{")
print("    " + ", ".join("&" + m["file"].replace("-", "_").replace(".", "_") for m in MODELS) + "};")
print("// clang-format on")
