# SPDX-License-Identifier: MIT
"""Attention logits far into a long context: transformers' float32 RoPE table against posenc's.

    PYTHONPATH=<build>/python /usr/bin/python3 examples/python/long_context_precision.py chart.png

A query at position p + 16 and a key at position p (one head of Qwen3-8B's RoPE: head_dim 128,
base 1e6). RoPE makes their logit q_rot . k_rot / sqrt(128) depend on the distance 16 only, so the
exact logit is the same at every p. As p grows to 1,000,000:

  transformers' float32 table  inv_freq and p * inv_freq in float32, as LlamaRotaryEmbedding forms
                               them (emulated here in NumPy float32), then x cos + rotate_half(x) sin
                               in float32: the angle error grows like p * 2^-24 rad, and the logit
                               drifts from its exact value;
  posenc                       posenc.apply_rope on the same float32 vectors: exact angles rounded
                               once to float32; the error stays at float32 rounding.

Prints the error of each at a few positions and draws |logit error| against p (log-log) into the
file given on the command line, with matplotlib's Agg backend (never shown). Without matplotlib
(Debian python3-matplotlib) it prints the numbers, says so, and exits 0.
"""
import sys

import numpy as np

import posenc

HEAD_DIM, BASE, DISTANCE = 128, 1e6, 16


def rotate_half_float32(x, angles):
    """transformers' x * cos + rotate_half(x) * sin in float32 for angles [P] (float32)."""
    cos = np.cos(np.concatenate((angles, angles))).astype(np.float32)
    sin = np.sin(np.concatenate((angles, angles))).astype(np.float32)
    half = HEAD_DIM // 2
    rotated = np.concatenate((-x[half:], x[:half]))
    return (x * cos + rotated * sin).astype(np.float32)


def transformers_float32_logit(q, k, p, inv_freq32):
    q_rot = rotate_half_float32(q, np.float32(p + DISTANCE) * inv_freq32)
    k_rot = rotate_half_float32(k, np.float32(p) * inv_freq32)
    return float(np.dot(q_rot.astype(np.float64), k_rot.astype(np.float64))) / np.sqrt(HEAD_DIM)


def posenc_logit(q, k, p, spec, table):
    q_rot = posenc.apply_rope(spec, table, q[None, None, :].copy(), positions=p + DISTANCE)[0, 0]
    k_rot = posenc.apply_rope(spec, table, k[None, None, :].copy(), positions=p)[0, 0]
    return float(np.dot(q_rot.astype(np.float64), k_rot.astype(np.float64))) / np.sqrt(HEAD_DIM)


def exact_logit(q, k):
    """(R(DISTANCE) q) . k / sqrt(d) in float64: a rotation by the distance alone (small angles)."""
    half = HEAD_DIM // 2
    theta = BASE ** (-np.arange(0, HEAD_DIM, 2) / HEAD_DIM)
    c, s = np.cos(DISTANCE * theta), np.sin(DISTANCE * theta)
    q64, k64 = q.astype(np.float64), k.astype(np.float64)
    a, b = q64[:half], q64[half:]
    q_rot = np.concatenate((a * c - b * s, b * c + a * s))
    return float(np.dot(q_rot, k64)) / np.sqrt(HEAD_DIM)


def measure():
    rng = np.random.default_rng(0)
    q = rng.standard_normal(HEAD_DIM).astype(np.float32)
    k = rng.standard_normal(HEAD_DIM).astype(np.float32)
    spec = posenc.RopeSpec.full(HEAD_DIM, BASE)
    table = posenc.FrequencyTable.from_spec(spec)
    inv_freq32 = (np.float32(1.0) / (np.float32(BASE) ** (np.arange(0, HEAD_DIM, 2, dtype=np.float32)
                                                          / np.float32(HEAD_DIM)))).astype(np.float32)
    exact = exact_logit(q, k)
    positions = np.unique(np.geomspace(1, 1_000_000, 49).astype(np.int64))
    hf = np.array([abs(transformers_float32_logit(q, k, int(p), inv_freq32) - exact) for p in positions])
    ours = np.array([abs(posenc_logit(q, k, int(p), spec, table) - exact) for p in positions])
    return positions, hf, ours, exact


def main(argv):
    if len(argv) != 2:
        print("usage: long_context_precision.py CHART.png", file=sys.stderr)
        return 2
    positions, hf, ours, exact = measure()
    print("exact logit at distance %d: %.9f" % (DISTANCE, exact))
    print("%12s  %22s  %14s" % ("position", "transformers float32", "posenc"))
    for p, a, b in zip(positions, hf, ours):
        if p in (1, 1000, 10000, 100000, 1000000) or p == positions[-1]:
            print("%12d  %22.3e  %14.3e" % (p, a, b))
    print("largest error up to %d: transformers float32 %.3e, posenc %.3e"
          % (positions[-1], hf.max(), ours.max()))
    try:
        import matplotlib
    except ImportError:
        print("long_context_precision.py: matplotlib is not installed; no chart drawn")
        return 0
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    floor = 1e-9  # a zero error drawn on the log axis
    ax.loglog(positions, np.maximum(hf, floor), "o-", color="#d62728", label="transformers' float32 table")
    ax.loglog(positions, np.maximum(ours, floor), "s-", color="#1f77b4", label="posenc (exact angles, float32)")
    ax.set_xlabel("key position p (query at p + %d)" % DISTANCE)
    ax.set_ylabel("|logit - exact logit|")
    ax.set_title("One head of Qwen3-8B's RoPE (d 128, base 1e6): logit error as the position grows")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(argv[1], dpi=100)
    plt.close(fig)
    print("chart written to %s" % argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
