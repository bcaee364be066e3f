# SPDX-License-Identifier: MIT
"""posenc.torch.RotaryEmbedding.forward and posenc.export.cos_sin_cache against transformers' rotary
formula written here in torch operations (float32 inv_freq, inv_freq x position_ids as a batched
outer product, cat(freqs, freqs), cos and sin, conversion to x.dtype), in the same process, one
thread, on the CPU. Llama 3 8B's RoPE (head 128, base 500000).

    PYTHONPATH=<build>/python /usr/bin/python3 python/benchmarks/bench_rotary.py [--repeats N]

Cases: prefill position_ids [1, 4096] and decode position_ids [32, 1] (positions 4096..4127 after
a prefill), float32 and bfloat16 outputs; the export of a 131072 x 128 vLLM table (float32 and
bfloat16) against the formula's own 131072-row table. Prints the median of each side and the ratio
baseline / posenc (above 1: posenc is faster). Needs torch (Debian python3-torch); exits 0 with a
note when it is absent.
"""
import argparse
import sys

from timing import median_seconds

HEAD_DIM, BASE = 128, 500000.0
CONFIG = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": BASE,
          "max_position_embeddings": 131072}




def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=51)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("bench_rotary.py: torch is not installed (Debian python3-torch); nothing measured")
        return 0
    import posenc.export
    import posenc.torch

    torch.set_num_threads(1)
    inv_freq = 1.0 / (BASE ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.int64).float() / HEAD_DIM))

    def formula(x, position_ids):  # the baseline: transformers' rotary forward, restated
        inv = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    rotary = posenc.torch.RotaryEmbedding.from_config(CONFIG)
    rotary(torch.zeros(1), torch.arange(8192)[None])  # the exact table for 8192 positions, as after a prefill
    print("torch %s, %d thread; medians of %d runs; ratio = baseline / posenc" % (torch.__version__, 1, args.repeats))
    cases = [("forward [1, 4096]", torch.arange(4096)[None]),
             ("forward [32, 1] (decode)", torch.arange(4096, 4128)[:, None])]
    for label, ids in cases:
        for dtype in (torch.float32, torch.bfloat16):
            x = torch.zeros(1, dtype=dtype)
            base = median_seconds(lambda: formula(x, ids), args.repeats)
            ours = median_seconds(lambda: rotary(x, ids), args.repeats)
            name = str(dtype).replace("torch.", "")
            print("  %-26s %-8s formula %9.1f us   posenc %9.1f us   ratio %6.2fx"
                  % (label, name, base * 1e6, ours * 1e6, base / ours))
    ids = torch.arange(131072)[None]
    repeats = max(3, args.repeats // 10)
    for dtype in ("float32", "bfloat16"):
        x = torch.zeros(1, dtype=getattr(torch, dtype))
        base = median_seconds(lambda: formula(x, ids), repeats)
        ours = median_seconds(
            lambda: posenc.export.cos_sin_cache(CONFIG, 131072, "vllm", getattr(torch, dtype), tensor=True), repeats)
        print("  %-26s %-8s formula %9.1f ms   posenc %9.1f ms   ratio %6.2fx"
              % ("export 131072 x 128", dtype, base * 1e3, ours * 1e3, base / ours))
    return 0


if __name__ == "__main__":
    sys.exit(main())
