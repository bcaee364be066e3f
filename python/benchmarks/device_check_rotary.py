# SPDX-License-Identifier: MIT
"""posenc.torch.RotaryEmbedding on a CUDA device: no host synchronisation, CUDA-graph capture of the
decode step, values equal to the CPU path, and time against transformers' rotary formula written
here in torch operations (the same baseline as bench_rotary.py), in the same process.

    PYTHONPATH=<build>/python python3 python/benchmarks/device_check_rotary.py [--repeats N]

Checks (exit status 1 on the first that fails, with its reason):
  1. torch.cuda.set_sync_debug_mode("error"): forward at position_ids [1, 4096] and [32, 1] (Llama 3
     8B's RoPE, float32 and bfloat16) and Qwen3-VL's interleaved M-RoPE [3, 1, 64] raise nothing after
     one warm-up call (the warm-up uploads the digit tables);
  2. the decode forward [32, 1] captured in a torch.cuda.CUDAGraph and replayed with new positions
     (4096 + step, and 2^31 - 32 + step) gives the CPU path's values bit for bit;
  3. the device values at positions up to 2^31 - 1 equal the CPU path's (exact table) bit for bit.
Then prints medians (CUDA events) of forward against the formula, and the ratio formula / posenc.
Needs a CUDA device; exits 0 with a note when there is none.
"""
import argparse
import os
import statistics
import sys

CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "configs")
LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
         "max_position_embeddings": 131072}


def fail(reason):
    print("device_check_rotary.py: FAILED: " + reason)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=101)
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("device_check_rotary.py: no CUDA device; nothing checked")
        return 0
    import posenc.torch

    cuda = torch.device("cuda")
    print("device: %s, torch %s" % (torch.cuda.get_device_name(0), torch.__version__))
    rotary = posenc.torch.RotaryEmbedding.from_config(LLAMA)
    vl = posenc.torch.RotaryEmbedding.from_config(os.path.join(CONFIGS, "qwen3-vl-8b-instruct.json"))
    prefill = torch.arange(4096, device=cuda)[None]
    decode = torch.arange(4096, 4128, device=cuda)[:, None]
    vl_ids = torch.arange(3 * 64, device=cuda).view(3, 1, 64)
    cases = [(rotary, prefill), (rotary, decode), (vl, vl_ids)]

    # 1. no synchronisation after the warm-up
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.zeros(1, dtype=dtype, device=cuda)
        for module, ids in cases:
            module(x, ids)  # warm-up
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            for module, ids in cases:
                module(x, ids)
        except RuntimeError as e:
            fail("forward synchronised with the host (%s)" % e)
        finally:
            torch.cuda.set_sync_debug_mode("default")
    print("1. forward: no host synchronisation (set_sync_debug_mode error) - ok")

    # 2. CUDA graph of the decode step
    x = torch.zeros(1, dtype=torch.bfloat16, device=cuda)
    static_ids = decode.clone()
    rotary(x, static_ids)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        rotary(x, static_ids)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_cos, static_sin = rotary(x, static_ids)
    for start in (4096, 2**31 - 32):
        for step in range(3):
            ids = torch.arange(start + step, start + step + 32)[:, None]
            static_ids.copy_(ids)
            graph.replay()
            want_cos, want_sin = rotary(torch.zeros(1, dtype=torch.bfloat16), ids)
            if not (torch.equal(static_cos.cpu(), want_cos) and torch.equal(static_sin.cpu(), want_sin)):
                fail("graph replay at positions %d.. differs from the CPU path" % (start + step))
    print("2. decode [32, 1] captured in a CUDA graph, replayed at 4096.. and 2^31 - 32..: equal to the CPU path - ok")

    # 3. device values equal the CPU path's
    far = torch.tensor([[0, 1, 4095, 2**24, 2**24 + 1, 123456789, 2**31 - 1]])
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        got = rotary(torch.zeros(1, dtype=dtype, device=cuda), far.to(cuda))
        want = rotary(torch.zeros(1, dtype=dtype), far)
        if not (torch.equal(got[0].cpu(), want[0]) and torch.equal(got[1].cpu(), want[1])):
            fail("device values differ from the CPU path in %s" % dtype)
    print("3. values up to 2^31 - 1 equal to the CPU path (float32, bfloat16, float16) - ok")

    # timing against the formula
    inv_freq = 1.0 / (500000.0 ** (torch.arange(0, 128, 2, dtype=torch.int64, device=cuda).float() / 128))

    def formula(x, position_ids):
        inv = inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    def median_ms(run):
        run()
        times = []
        for _ in range(args.repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)

    for label, ids in (("forward [1, 4096]", prefill), ("forward [32, 1]", decode)):
        for dtype in (torch.float32, torch.bfloat16):
            x = torch.zeros(1, dtype=dtype, device=cuda)
            base = median_ms(lambda: formula(x, ids))
            ours = median_ms(lambda: rotary(x, ids))
            print("  %-18s %-8s formula %8.3f ms   posenc %8.3f ms   ratio %5.2fx"
                  % (label, str(dtype).replace("torch.", ""), base, ours, base / ours))
    replay = median_ms(graph.replay)
    print("  decode [32, 1] bfloat16 as a CUDA graph replay: %.3f ms" % replay)
    return 0


if __name__ == "__main__":
    sys.exit(main())
