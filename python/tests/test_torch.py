# SPDX-License-Identifier: MIT
# posenc.apply_rope on PyTorch CPU tensors against the Hugging Face formulation written here
# (x * cos + rotate_half(x) * sin, float32 angles as LlamaRotaryEmbedding computes them), and both
# against an mpmath reference at position 1e6. Skipped with the reason when torch is absent.
import math

import numpy as np
import pytest

import posenc

mpmath = pytest.importorskip("mpmath", reason="mpmath is not installed (Debian python3-mpmath)")

BASE = 1e6
HEAD_DIM = 128


def rotate_half(torch, x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def hf_rope(torch, x, positions, base=BASE):
    """Hugging Face's Llama RoPE in float32: inv_freq = 1 / base^(arange(0, d, 2) / d), angle =
    position * inv_freq, emb = cat(freqs, freqs), out = x * cos + rotate_half(x) * sin.
    x: [tokens, heads, head_dim]."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    freqs = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]
    return x * cos + rotate_half(torch, x) * sin


def exact_rope(x, positions, base=BASE):
    """The exact rotation with mpmath at 40 digits: theta_i = base^(-2i/d), angle m theta_i, half-split
    pairs (i, i + d/2), of the float32 inputs x [tokens, heads, head_dim]; returns float64."""
    mpmath.mp.dps = 40
    d = x.shape[-1]
    half = d // 2
    out = np.empty(x.shape, dtype=np.float64)
    for t, m in enumerate(positions):
        for i in range(half):
            angle = mpmath.mpf(int(m)) * mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / d)
            c, s = mpmath.cos(angle), mpmath.sin(angle)
            for h in range(x.shape[1]):
                a, b = mpmath.mpf(float(x[t, h, i])), mpmath.mpf(float(x[t, h, i + half]))
                out[t, h, i] = float(a * c - b * s)
                out[t, h, i + half] = float(b * c + a * s)
    return out


def posenc_rope(torch, x, start):
    spec = posenc.RopeSpec.full(HEAD_DIM, BASE)
    q = x.clone()
    result = posenc.apply_rope(spec, posenc.FrequencyTable.from_spec(spec), q, positions=start)
    assert result is q
    return q


def test_posenc_equals_the_hf_formulation_to_1e_6_at_small_positions(torch):
    gen = torch.Generator().manual_seed(1)
    x = torch.rand(16, 4, HEAD_DIM, generator=gen) * 2 - 1
    expected = hf_rope(torch, x, torch.arange(16))
    got = posenc_rope(torch, x, 0)
    assert torch.max(torch.abs(got - expected)).item() <= 1e-6


def test_at_position_1e6_posenc_is_at_least_1000x_closer_to_exact_than_float32_pytorch(torch):
    gen = torch.Generator().manual_seed(2)
    x = torch.rand(4, 2, HEAD_DIM, generator=gen) * 2 - 1
    positions = [1_000_000 + t for t in range(4)]
    exact = exact_rope(x.numpy(), positions)
    hf_error = np.max(np.abs(hf_rope(torch, x, torch.tensor(positions)).numpy().astype(np.float64) - exact))
    posenc_error = np.max(np.abs(posenc_rope(torch, x, positions[0]).numpy().astype(np.float64) - exact))
    assert hf_error > 1e-3  # float32 angles near 1e6 rad are 0.03 rad apart
    assert posenc_error < 1e-6
    assert posenc_error * 1000 <= hf_error


def test_tensors_are_rotated_in_place_without_a_copy(torch):
    spec = posenc.RopeSpec.full(64, 1e4)
    table = posenc.FrequencyTable.from_spec(spec)
    q = torch.randn(3, 2, 64)
    pointer = q.data_ptr()
    before = q.clone()
    posenc.apply_rope(spec, table, q)
    assert q.data_ptr() == pointer
    assert not torch.equal(q, before)
    expected = before.numpy().copy()
    posenc.apply_rope(spec, table, expected)
    assert np.array_equal(q.numpy(), expected)


def test_bfloat16_tensors_are_the_float32_result_rounded_to_bfloat16(torch):
    spec = posenc.RopeSpec.full(128, 1e6)
    table = posenc.FrequencyTable.from_spec(spec)
    x = torch.randn(5, 3, 128).to(torch.bfloat16)
    expected = x.float().numpy().copy()
    posenc.apply_rope(spec, table, expected, positions=40)
    q = x.clone()
    posenc.apply_rope(spec, table, q, positions=40)
    assert q.dtype == torch.bfloat16
    assert torch.equal(q, torch.from_numpy(expected).to(torch.bfloat16))


def test_float16_out_of_place_and_hf_layout(torch):
    spec = posenc.RopeSpec.full(64, 1e4)
    table = posenc.FrequencyTable.from_spec(spec)
    # Hugging Face's [batch, heads, seq, dim]: a non-contiguous transpose of [batch, seq, heads, dim].
    x = torch.randn(2, 6, 4, 64).to(torch.float16).transpose(1, 2)
    out = torch.empty_like(x)
    result = posenc.apply_rope(spec, table, x, q_out=out, positions=3, layout="htd")
    assert result is out
    expected = x.float().numpy().copy()
    posenc.apply_rope(spec, table, expected, positions=3, layout="htd")
    assert torch.equal(out, torch.from_numpy(expected).to(torch.float16))


def test_non_cpu_and_integer_tensors_are_refused(torch):
    spec = posenc.RopeSpec.full(64, 1e4)
    table = posenc.FrequencyTable.from_spec(spec)
    with pytest.raises(posenc.Error, match="int32 must be float32"):
        posenc.apply_rope(spec, table, torch.zeros(2, 1, 64, dtype=torch.int32))
    with pytest.raises(posenc.Error, match="does not match"):
        posenc.apply_rope(spec, table, torch.zeros(2, 1, 64, dtype=torch.bfloat16), dtype="float16")
