# SPDX-License-Identifier: MIT
"""posenc.apply_rope against the PyTorch formulation of Hugging Face (x * cos + rotate_half(x) * sin)
on a [4096 tokens, 32 heads, 128 dims] float32 tensor, one thread, from Python.

    PYTHONPATH=<build>/python /usr/bin/python3 python/benchmarks/bench_apply.py [--repeats N]

Both sides get the same job: rotate q in place to positions 0..4095 (Qwen3-8B: base 1e6, half-split).
PyTorch builds cos/sin from the float32 inverse frequencies per call, as LlamaRotaryEmbedding.forward
does; posenc reads a prebuilt CosSinCache (what an engine keeps). Prints the median of each side
and the ratio. Needs torch (Debian python3-torch); exits 0 with a note when it is absent.
"""
import argparse
import os
import sys

import numpy as np

import posenc
from timing import median_seconds

TOKENS, HEADS, HEAD_DIM, BASE = 4096, 32, 128, 1e6




def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("bench_apply: PyTorch is not installed; nothing to compare against")
        return 0
    torch.set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    spec = posenc.RopeSpec.full(HEAD_DIM, BASE)
    table = posenc.FrequencyTable.from_spec(spec)
    cache = posenc.CosSinCache(table, TOKENS)
    q = torch.randn(TOKENS, HEADS, HEAD_DIM)

    inv_freq = 1.0 / (BASE ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.int64).float() / HEAD_DIM))
    positions = torch.arange(TOKENS)

    def torch_rope():
        freqs = positions.float()[:, None] * inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]
        half = HEAD_DIM // 2
        rotated = torch.cat((-q[..., half:], q[..., :half]), dim=-1)
        q.copy_(q * cos + rotated * sin)

    q_numpy = q.numpy()  # the same memory

    def posenc_rope():
        posenc.apply_rope(spec, cache, q_numpy)

    t_torch = median_seconds(torch_rope, args.repeats)
    t_posenc = median_seconds(posenc_rope, args.repeats)
    gib = TOKENS * HEADS * HEAD_DIM * 4 * 2 / 2 ** 30  # read + write
    print("shape %dx%dx%d float32, one thread, median of %d (isa %s, torch %s)"
          % (TOKENS, HEADS, HEAD_DIM, args.repeats, posenc.isa(), torch.__version__))
    print("  pytorch x*cos + rotate_half(x)*sin : %8.2f ms" % (t_torch * 1e3))
    print("  posenc.apply_rope (CosSinCache)    : %8.2f ms  (%.1f GiB/s)" % (t_posenc * 1e3, gib / t_posenc))
    print("  ratio                              : %8.1fx" % (t_torch / t_posenc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
