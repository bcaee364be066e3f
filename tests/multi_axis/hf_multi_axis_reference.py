# SPDX-License-Identifier: MIT
# Expected values for tests/multi_axis/layouts.cpp, computed from Hugging Face transformers'
# formulas (restated here, evaluated with torch / float64), independently of posenc.
#
#   Qwen2-VL M-RoPE (models/qwen2_vl/modeling_qwen2_vl.py, apply_multimodal_rotary_pos_emb):
#     emb = cat(freqs, freqs) per axis; split the last dim into mrope_section * 2; chunk c
#     takes axis c % 3; concatenate.
#   Qwen3-VL interleaved M-RoPE (models/qwen3_vl/modeling_qwen3_vl.py, apply_interleaved_mrope):
#     start from axis 0; for axis 1 (offset 1) and axis 2 (offset 2) overwrite the slice
#     [offset : 3 * section[axis] : 3].
#   Vision towers: Qwen2-VL VisionRotaryEmbedding(head_dim // 2) indexed by (row, col) and
#     flattened; Pixtral freqs[::2] (rows) and freqs[1::2] (columns); Llama 4 vision
#     repeat_interleave(2), cat(x, y), [..., ::2].
# To find which axis each pair reads, every axis gets a distinct tag (its index) as its
# "position" with a unit frequency, so the resulting angle of a pair is its axis.
# Run: /usr/bin/python3 tests/multi_axis/hf_multi_axis_reference.py
import torch

torch.set_default_dtype(torch.float64)


def qwen2_vl_axes(section, pairs):
    tags = torch.arange(3.0)[:, None] * torch.ones(pairs)  # axis a: angle a on every pair
    emb = torch.cat((tags, tags), dim=-1)                  # [3, 2P]
    chunks = emb.split(list(section) * 2, dim=-1)
    picked = torch.cat([m[i % 3] for i, m in enumerate(chunks)], dim=-1)
    assert torch.equal(picked[:pairs], picked[pairs:])     # both halves agree
    return [int(v) for v in picked[:pairs]]


def qwen3_vl_axes(section, pairs):
    tags = torch.arange(3.0)[:, None] * torch.ones(pairs)
    out = tags[0].clone()
    for axis, offset in ((1, 1), (2, 2)):
        idx = slice(offset, section[axis] * 3, 3)
        out[idx] = tags[axis, idx]
    return [int(v) for v in out]


def qwen2_vl_vision(head_dim, theta=10000.0):
    dim = head_dim // 2
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    # rot_pos_emb: table[pos_ids].flatten(1) with pos_ids = (row, col): [row * inv, col * inv]
    freqs = torch.cat((inv, inv))
    axes = [0] * len(inv) + [1] * len(inv)
    return freqs, axes


def pixtral_vision(head_dim, theta=10000.0):
    f = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    freqs = torch.cat((f[::2], f[1::2]))
    axes = [0] * len(f[::2]) + [1] * len(f[1::2])
    return freqs, axes


def llama4_vision(head_dim, theta=10000.0):
    freq_dim = head_dim // 2
    rope = 1.0 / (theta ** (torch.arange(0, freq_dim, 2)[: freq_dim // 2].double() / freq_dim))
    # tag x with axis 0 and y with axis 1 in a second tensor carried through the same reshuffle
    fx = rope.repeat_interleave(2)
    fy = rope.repeat_interleave(2)
    tx = torch.zeros(freq_dim)
    ty = torch.ones(freq_dim)
    freqs = torch.cat((fx, fy))[::2]
    axes = torch.cat((tx, ty))[::2]
    return freqs, [int(a) for a in axes]


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[half:], x[:half]))


def head_vector(head_dim):
    # q[d] = sin(d + 1) + d / head_dim: a fixed, irregular test vector
    d = torch.arange(head_dim, dtype=torch.float64)
    return torch.sin(d + 1) + d / head_dim


def text_inv_freq(rotary_dim, theta):
    return 1.0 / (theta ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim))


def mrope_sections_rotate(head_dim, section, theta, pos):
    inv = text_inv_freq(head_dim, theta)
    freqs = torch.stack([p * inv for p in pos])            # [3, P]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    cos = torch.cat([m[i % 3] for i, m in enumerate(cos.split(list(section) * 2, dim=-1))])
    sin = torch.cat([m[i % 3] for i, m in enumerate(sin.split(list(section) * 2, dim=-1))])
    q = head_vector(head_dim)
    return q * cos + rotate_half(q) * sin


def mrope_interleaved_rotate(head_dim, section, theta, pos):
    inv = text_inv_freq(head_dim, theta)
    freqs = torch.stack([p * inv for p in pos])
    f = freqs[0].clone()
    for axis, offset in ((1, 1), (2, 2)):
        idx = slice(offset, section[axis] * 3, 3)
        f[idx] = freqs[axis, idx]
    emb = torch.cat((f, f))
    q = head_vector(head_dim)
    return q * emb.cos() + rotate_half(q) * emb.sin()


def qwen2_vl_vision_rotate(head_dim, row, col, theta=10000.0):
    dim = head_dim // 2
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    r = torch.cat((row * inv, col * inv))
    emb = torch.cat((r, r))
    q = head_vector(head_dim)
    return q * emb.cos() + rotate_half(q) * emb.sin()


def pixtral_rotate(head_dim, row, col, theta=10000.0):
    f = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    r = torch.cat((row * f[::2], col * f[1::2]))
    emb = torch.cat((r, r))
    q = head_vector(head_dim)
    return q * emb.cos() + rotate_half(q) * emb.sin()


def llama4_vision_rotate(head_dim, x, y, theta=10000.0):
    freq_dim = head_dim // 2
    rope = 1.0 / (theta ** (torch.arange(0, freq_dim, 2)[: freq_dim // 2].double() / freq_dim))
    fx = ((x + 1) * rope).repeat_interleave(2)
    fy = ((y + 1) * rope).repeat_interleave(2)
    freqs = torch.cat((fx, fy))[::2]
    ci = torch.complex(freqs.cos(), freqs.sin())
    q = head_vector(head_dim)
    qc = torch.complex(q[0::2], q[1::2]) * ci                 # view_as_complex of (.., -1, 2)
    return torch.stack((qc.real, qc.imag), dim=-1).flatten()


def show(name, values):
    print(name, "=", "{" + ", ".join(str(v) for v in values) + "}")


if __name__ == "__main__":
    show("qwen2_vl_16_24_24", qwen2_vl_axes([16, 24, 24], 64))
    show("qwen2_vl_8_12_12", qwen2_vl_axes([8, 12, 12], 32))
    show("qwen3_vl_24_20_20", qwen3_vl_axes([24, 20, 20], 64))
    show("qwen3_vl_11_11_10", qwen3_vl_axes([11, 11, 10], 32))
    show("qwen3_vl_10_30_24", qwen3_vl_axes([10, 30, 24], 64))
    f, a = qwen2_vl_vision(80)
    show("qwen2_vl_vision_80_freqs", [repr(float(v)) for v in f]); show("qwen2_vl_vision_80_axes", a)
    f, a = pixtral_vision(64)
    show("pixtral_64_freqs", [repr(float(v)) for v in f]); show("pixtral_64_axes", a)
    f, a = llama4_vision(88)
    show("rotated_sections_16", [repr(float(v)) for v in mrope_sections_rotate(16, [2, 3, 3], 10000.0, (5, 17, 3))])
    show("rotated_interleaved_16", [repr(float(v)) for v in mrope_interleaved_rotate(16, [3, 3, 2], 1e6, (40, 7, 123))])
    show("rotated_qwen2_vl_vision_16", [repr(float(v)) for v in qwen2_vl_vision_rotate(16, 3, 11)])
    show("rotated_pixtral_16", [repr(float(v)) for v in pixtral_rotate(16, 3, 11)])
    show("rotated_llama4_vision_16", [repr(float(v)) for v in llama4_vision_rotate(16, 3, 11)])
    show("llama4_vision_88_freqs", [repr(float(v)) for v in f]); show("llama4_vision_88_axes", a)
