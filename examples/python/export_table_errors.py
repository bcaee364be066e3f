# SPDX-License-Identifier: MIT
"""The error of each engine layout's own float table beside posenc's export of it (docs/export.md).

    PYTHONPATH=<build>/python /usr/bin/python3 examples/python/export_table_errors.py

For Llama 3-style RoPE (rotary_dim 128, base 500,000, no scaling) at positions 4,096, 1,000,000
and 2^31 - 1: the largest |entry - exact| over a row's cos and sin entries, exact = mpmath at 40
digits of m * theta_i (theta_i the double nearest base^(-2i/R)). The engines' own tables are
emulated in NumPy float32 with each engine's formula:

  vLLM (rotary_embedding/base.py)   inv_freq = 1 / base^(arange(0, R, 2) / R) in float32;
                                    freqs = float32(t) * inv_freq; cat(cos, sin) in float32, then
                                    the model dtype (bfloat16 rows: that float32 value rounded)
  FlashInfer (include/flashinfer/pos_enc.cuh, no cache)   freq_i = (1 / base)^(2i / R) in float32,
                                    angle = float32(pos) * freq_i, sincos in float32
  transformers (LlamaRotaryEmbedding)   the vLLM formula's float32 values as (cos, sin), then
                                    .to(x.dtype)

FlashInfer's GPU code uses CUDA's approximate __powf for freq_i, so this emulation understates its
error. NumPy's float32 pow/cos stand in for torch's and CUDA's (within a few float32 ulps of them; the
error that matters, fl(m) * fl(theta) against m * theta, is the same arithmetic).
"""
import numpy as np

import posenc

mpmath = __import__("mpmath")

R, BASE = 128, 500000.0
POSITIONS = (4096, 1_000_000, 2**31 - 1)
CONFIG = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": BASE,
          "max_position_embeddings": 8192}


def exact_row(m):
    """[cos(m theta_i) for i < P | sin(m theta_i) for i < P] in float64 from mpmath."""
    mpmath.mp.dps = 40
    th = [mpmath.mpf(float(mpmath.power(mpmath.mpf(BASE), mpmath.mpf(-2 * i) / R))) for i in range(R // 2)]
    return np.array([float(mpmath.cos(m * t)) for t in th] + [float(mpmath.sin(m * t)) for t in th])


def vllm_float32_row(m):
    inv_freq = np.float32(1.0) / (np.float32(BASE) ** (np.arange(0, R, 2, dtype=np.float32) / np.float32(R)))
    freqs = np.float32(m) * inv_freq.astype(np.float32)
    return np.concatenate((np.cos(freqs), np.sin(freqs))).astype(np.float32)


def flashinfer_float32_row(m):
    freq = np.float32(1.0 / BASE) ** (np.float32(2.0) * np.arange(R // 2, dtype=np.float32) / np.float32(R))
    angle = np.float32(m) * freq.astype(np.float32)
    return np.concatenate((np.cos(angle), np.sin(angle))).astype(np.float32)


def error(row, exact):
    return float(np.max(np.abs(np.asarray(row, dtype=np.float64) - exact)))


def posenc_row(layout, dtype, m):
    if layout == "hf":
        cos, sin = posenc.export.cos_sin_cache(CONFIG, 1, "hf", "float64", first_position=m)
        row = np.concatenate((cos[0, : R // 2], sin[0, : R // 2]))
        return posenc.export.round_once(row, dtype)
    row = posenc.export.cos_sin_cache(CONFIG, 1, layout, "float64" if dtype == "bfloat16" else dtype,
                                      first_position=m)[0]
    return posenc.export.round_once(row, dtype)


def main():
    rows = [("vLLM cos_sin_cache", "vllm", "float32", vllm_float32_row),
            ("vLLM cos_sin_cache", "vllm", "bfloat16", vllm_float32_row),
            ("FlashInfer cos_sin_cache", "flashinfer", "float32", flashinfer_float32_row),
            ("transformers (cos, sin)", "hf", "float32", vllm_float32_row),
            ("transformers (cos, sin)", "hf", "bfloat16", vllm_float32_row)]
    exact = {m: exact_row(m) for m in POSITIONS}
    print("| layout | dtype | table | " + " | ".join("m = %d" % m for m in POSITIONS) + " |")
    print("|---|---|---|" + "---|" * len(POSITIONS))
    for name, layout, dtype, engine in rows:
        ours = [error(posenc_row(layout, dtype, m), exact[m]) for m in POSITIONS]
        theirs = [error(posenc.export.round_once(engine(m).astype(np.float64), dtype), exact[m]) for m in POSITIONS]
        print("| %s | %s | engine's own | %s |" % (name, dtype, " | ".join("%.2e" % e for e in theirs)))
        print("| %s | %s | posenc export | %s |" % (name, dtype, " | ".join("%.2e" % e for e in ours)))


if __name__ == "__main__":
    main()
