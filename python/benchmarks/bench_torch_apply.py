# SPDX-License-Identifier: MIT
"""posenc.torch.apply_rope (autograd, forward + backward) against the usual PyTorch formulation.

    PYTHONPATH=<build>/python /usr/bin/python3 python/benchmarks/bench_torch_apply.py [--repeats 7]

Both on x [1, 4096, 32, 128] float32 with requires_grad, in one process, one thread
(torch.set_num_threads(1); posenc's kernels run on one thread):
  pytorch  y = x * cos + rotate_half(x) * sin with cos/sin [4096, 1, 128] precomputed in float32 as
           transformers builds them; y.backward(g) through autograd
  posenc   y = posenc.torch.apply_rope(x, spec, cache, 0) with a precomputed CosSinCache; y.backward(g)
           (the inverse rotation of g by the same kernels)
Prints the median of --repeats timings of forward + backward for each, and the ratio.
"""
import argparse

import torch

import posenc
from timing import median_seconds
import posenc.torch as pt

SEQ, HEADS, DIM, BASE = 4096, 32, 128, 1e6


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)




def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(1, SEQ, HEADS, DIM, generator=gen).requires_grad_()
    g = torch.randn(1, SEQ, HEADS, DIM, generator=gen)

    inv_freq = 1.0 / (BASE ** (torch.arange(0, DIM, 2, dtype=torch.int64).float() / DIM))
    freqs = torch.arange(SEQ).float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]

    spec = posenc.RopeSpec.full(DIM, BASE)
    cache = posenc.CosSinCache(posenc.FrequencyTable.from_spec(spec), SEQ)

    def pytorch_step():
        x.grad = None
        (x * cos + rotate_half(x) * sin).backward(g)

    def posenc_step():
        x.grad = None
        pt.apply_rope(x, spec, cache, 0).backward(g)

    ours = median_seconds(posenc_step, args.repeats)
    theirs = median_seconds(pytorch_step, args.repeats)
    print("forward + backward, x [1, %d, %d, %d] float32, one thread, median of %d:" % (SEQ, HEADS, DIM, args.repeats))
    print("  pytorch x*cos + rotate_half(x)*sin : %9.2f ms" % (theirs * 1e3))
    print("  posenc.torch.apply_rope            : %9.2f ms" % (ours * 1e3))
    print("  ratio                              : %9.1fx" % (theirs / ours))


if __name__ == "__main__":
    main()
