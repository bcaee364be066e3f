#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""posenc's CUDA kernels from torch, on a machine with an NVIDIA GPU (scripts/cuda-device-check.sh).

Builds benchmarks/cuda/torch_ext.cu against this machine's torch (torch.utils.cpp_extension.load)
and compares, on CUDA tensors (Qwen3-8B shapes: 32 Q + 8 K heads of 128, base 1e6):
  * cos/sin through the kernel (the pair (1, 0) rotates to (cos, sin)) with mpmath at 200 bits,
    at positions up to 2^31 - 1, and transformers' formula in float32 (inv_freq = 1 / base **
    (arange(0, R, 2) / R), freqs = position * inv_freq, emb = cat(freqs, freqs), x * cos +
    rotate_half(x) * sin, written here from that formula) at the same positions;
  * whole outputs with transformers' formula evaluated in float64 at positions below 2^20 (where
    float64 angles are exact to 1e-10);
  * FlashInfer's apply_rope_pos_ids, when flashinfer imports, on the same inputs and positions;
  * the time of one prefill call (32k tokens) and one decode call, posenc against FlashInfer.
Prints one line per result; with --out FILE also writes them as JSON. Exit status 1 when a
posenc agreement check fails.
"""
import argparse
import json
import os
import sys

import torch
from torch.utils.cpp_extension import load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE, HEAD_DIM, QH, KH = 1e6, 128, 32, 8
results = {}
failed = False


def record(name, value, verdict=""):
    results[name] = value
    print(f"{name:64} {value:14.6g} {verdict}")


def check(name, value, bound):
    global failed
    ok = value <= bound
    failed |= not ok
    record(name, value, f"(bound {bound:g}) {'PASS' if ok else 'FAIL'}")


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def transformers_formula(x, positions, dtype):
    """x [tokens, heads, R] rotated as transformers' Llama does, with angles in `dtype`."""
    r = x.shape[-1]
    inv_freq = 1.0 / (BASE ** (torch.arange(0, r, 2, dtype=torch.int64, device=x.device).to(dtype) / r))
    freqs = positions.to(dtype)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]
    xd = x.to(dtype)
    return xd * cos + rotate_half(xd) * sin


def angle_errors(ext, positions):
    """Largest |cos/sin - mpmath| of pair 0 (theta = 1): posenc's kernel, transformers in float32."""
    import mpmath
    mpmath.mp.prec = 200
    pos = torch.tensor(positions, dtype=torch.int64, device="cuda")
    q = torch.zeros(len(positions), 1, HEAD_DIM, device="cuda")
    q[:, :, : HEAD_DIM // 2] = 1.0  # every pair (1, 0)
    k = torch.zeros(len(positions), 1, HEAD_DIM, device="cuda")
    hf = transformers_formula(q, pos, torch.float32)
    status = torch.zeros(1, dtype=torch.int32, device="cuda")
    ext.apply_rope_(q, k, pos, status, BASE, HEAD_DIM, False)
    assert int(status.item()) == 0
    worst_posenc = worst_hf = 0.0
    for t, m in enumerate(positions):
        c, s = float(mpmath.cos(mpmath.mpf(m))), float(mpmath.sin(mpmath.mpf(m)))
        worst_posenc = max(worst_posenc, abs(q[t, 0, 0].item() - c), abs(q[t, 0, HEAD_DIM // 2].item() - s))
        worst_hf = max(worst_hf, abs(hf[t, 0, 0].item() - c), abs(hf[t, 0, HEAD_DIM // 2].item() - s))
    return worst_posenc, worst_hf


def time_call(f, reps):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    f()
    times = []
    for _ in range(7):
        start.record()
        for _ in range(reps):
            f()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / reps)
    return sorted(times)[3]  # microseconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name()}")
    ext = load(name="posenc_cuda_ext", sources=[os.path.join(ROOT, "benchmarks/cuda/torch_ext.cu")],
               extra_include_paths=[os.path.join(ROOT, "include")],
               extra_cflags=["-std=c++17", "-O2"], extra_cuda_cflags=["-std=c++17", "--expt-relaxed-constexpr", "-O3"])

    positions = [1, 4095, 1_000_000, 16_777_216, 2**31 - 1]
    worst_posenc, worst_hf = angle_errors(ext, positions)
    check("posenc kernel: cos/sin vs mpmath to 2^31-1", worst_posenc, 1.5e-7)
    record("transformers float32 formula: cos/sin vs mpmath to 2^31-1", worst_hf)
    worst_posenc_1e6, worst_hf_1e6 = angle_errors(ext, [1_000_000])
    record("transformers float32 formula: cos/sin error at 10^6", worst_hf_1e6)

    torch.manual_seed(0)
    tokens = 4096
    pos = torch.randint(0, 2**20, (tokens,), device="cuda")
    for dtype, bound in ((torch.float32, 2e-6), (torch.bfloat16, 1.6e-2)):
        q = torch.randn(tokens, QH, HEAD_DIM, device="cuda").to(dtype)
        k = torch.randn(tokens, KH, HEAD_DIM, device="cuda").to(dtype)
        q_ref, k_ref = transformers_formula(q, pos, torch.float64), transformers_formula(k, pos, torch.float64)
        status = torch.zeros(1, dtype=torch.int32, device="cuda")
        ext.apply_rope_(q, k, pos, status, BASE, HEAD_DIM, False)
        assert int(status.item()) == 0
        err = max(((q.double() - q_ref).abs() / (q_ref.abs() + 1)).max().item(),
                  ((k.double() - k_ref).abs() / (k_ref.abs() + 1)).max().item())
        check(f"posenc kernel {str(dtype)[6:]}: vs transformers formula in float64 (positions < 2^20)", err, bound)

    try:
        import flashinfer
    except Exception as e:  # noqa: BLE001 - any import failure means "not installed here"
        print(f"flashinfer: not importable ({type(e).__name__}); its comparison is skipped")
        flashinfer = None
    if flashinfer is not None:
        q = torch.randn(tokens, QH, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(tokens, KH, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
        big = torch.full((tokens,), 1_000_000, device="cuda", dtype=torch.int64)
        q_ref = transformers_formula(q, big, torch.float64)
        fq, _ = flashinfer.rope.apply_rope_pos_ids(q, k, big.to(torch.int32), rotary_dim=HEAD_DIM, interleave=False,
                                                   rope_theta=BASE)
        pq, pk = q.clone(), k.clone()
        ext.apply_rope_(pq, pk, big, torch.zeros(1, dtype=torch.int32, device="cuda"), BASE, HEAD_DIM, False)
        record("flashinfer: largest |q - float64 formula| at position 10^6", (fq.double() - q_ref).abs().max().item())
        record("posenc:     largest |q - float64 formula| at position 10^6", (pq.double() - q_ref).abs().max().item())

    for tokens, reps, label in ((32768, 20, "prefill 32k"), (1, 500, "decode 1 token")):
        q = torch.randn(tokens, QH, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(tokens, KH, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
        pos = torch.arange(tokens, device="cuda") + 1000
        status = torch.zeros(1, dtype=torch.int32, device="cuda")
        record(f"posenc {label} (us per call)", time_call(lambda: ext.apply_rope_(q, k, pos, status, BASE, HEAD_DIM, False), reps))
        if flashinfer is not None:
            p32 = pos.to(torch.int32)
            record(f"flashinfer {label} (us per call)", time_call(
                lambda: flashinfer.rope.apply_rope_pos_ids_inplace(q, k, p32, rotary_dim=HEAD_DIM, interleave=False,
                                                                   rope_theta=BASE), reps))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    print("torch check:", "FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
