# SPDX-License-Identifier: MIT
# posenc.torch.RotaryEmbedding against transformers' rotary-module contract restated here
# (models/llama/modeling_llama.py LlamaRotaryEmbedding.forward: freqs = inv_freq x positions in
# float32, emb = cat(freqs, freqs), cos = emb.cos() * attention_scaling, .to(x.dtype);
# gemma3's forward(x, position_ids, layer_type); qwen2_vl's [3, batch, seq, dim] per-axis tables;
# qwen3_vl's apply_interleaved_mrope) and against mpmath at positions up to 2^31 - 1.
# Skipped with the reason when torch is absent. (transformers itself is not a Debian 12 package:
# its rotary classes are restated here, not run.)
import math
import os

import numpy as np
import pytest

import posenc

mpmath = pytest.importorskip("mpmath", reason="mpmath is not installed (Debian python3-mpmath)")

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "configs")
LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
         "max_position_embeddings": 8192}


@pytest.fixture(scope="module")
def pt(torch):
    import posenc.torch

    return posenc.torch


def thetas(base, rotary_dim, divide=1.0):
    mpmath.mp.dps = 40
    return [float(mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / rotary_dim)) / divide
            for i in range(rotary_dim // 2)]


def exact_emb(positions, th):
    """(cos, sin) float64 [len(positions), 2P] of cat(freqs, freqs) from mpmath."""
    mpmath.mp.dps = 40
    cos = np.array([[float(mpmath.cos(mpmath.mpf(m) * mpmath.mpf(t))) for t in th] for m in positions])
    sin = np.array([[float(mpmath.sin(mpmath.mpf(m) * mpmath.mpf(t))) for t in th] for m in positions])
    return np.concatenate((cos, cos), -1), np.concatenate((sin, sin), -1)


def transformers_float32(torch, base, dim, position_ids, scaling=1.0):
    """transformers' default rotary module restated: float32 inv_freq, float32 outer product."""
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    freqs = (inv_freq[None, :, None] @ position_ids[:, None, :].float()).transpose(1, 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos() * scaling, emb.sin() * scaling


def test_llama_within_float32_rounding_of_transformers_module_at_small_positions(torch, pt):
    rotary = pt.RotaryEmbedding.from_config(LLAMA)
    ids = torch.arange(32)[None].expand(2, -1)
    x = torch.zeros(1, dtype=torch.float32)
    cos, sin = rotary(x, ids)
    assert cos.shape == sin.shape == (2, 32, 128) and cos.dtype == torch.float32
    hf_cos, hf_sin = transformers_float32(torch, 500000.0, 128, ids)
    # float32 angle m*theta is within m * 2^-24 rad of exact: 2e-6 at m < 32, plus the roundings.
    assert torch.max(torch.abs(cos - hf_cos)).item() <= 4e-6
    assert torch.max(torch.abs(sin - hf_sin)).item() <= 4e-6


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_llama_equals_exact_formula_within_one_rounding_of_the_output_dtype_up_to_2_31(torch, pt, dtype):
    rotary = pt.RotaryEmbedding.from_config(LLAMA)
    positions = [0, 4095, 1_000_000, 2**31 - 1]
    cos, sin = rotary(torch.zeros(1, dtype=getattr(torch, dtype)), torch.tensor([positions]))
    assert cos.dtype == getattr(torch, dtype)
    want_cos, want_sin = exact_emb(positions, thetas(500000.0, 128))
    bits, min_exp = {"float32": (24, -126), "bfloat16": (8, -126), "float16": (11, -14)}[dtype]
    for got, want in ((cos[0], want_cos), (sin[0], want_sin)):
        _, e = np.frexp(np.abs(want))
        half_ulp = np.ldexp(0.5, np.maximum(e - 1, min_exp) - (bits - 1))
        assert np.all(np.abs(got.double().numpy() - want) <= half_ulp * 1.0001)


def test_float32_transformers_table_is_far_off_at_1e6_and_posenc_is_not(torch, pt):
    ids = torch.tensor([[1_000_000]])
    hf_cos, _ = transformers_float32(torch, 500000.0, 128, ids)
    cos, _ = pt.RotaryEmbedding.from_config(LLAMA)(torch.zeros(1), ids)
    want, _ = exact_emb([1_000_000], thetas(500000.0, 128))
    assert np.max(np.abs(hf_cos[0].double().numpy() - want)) > 1e-3
    assert np.max(np.abs(cos[0].double().numpy() - want)) < 1e-7


def test_yarn_attention_scaling_multiplies_cos_and_sin(torch, pt):
    config = dict(LLAMA, rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192})
    rotary = pt.RotaryEmbedding.from_config(config)
    a = 0.1 * math.log(4.0) + 1.0  # transformers get_mscale(4)
    assert abs(rotary.attention_scaling - a) <= 1e-15
    cos, sin = rotary(torch.zeros(1, dtype=torch.float64), torch.arange(0, 2**31 - 1, 2**26)[None])
    assert torch.max(torch.abs(torch.hypot(cos, sin) - a)).item() <= 1e-14


def test_gemma3_per_layer_type_forward(torch, pt):
    rotary = pt.RotaryEmbedding.from_config(os.path.join(CONFIGS, "gemma-3-4b-it.json"))
    ids = torch.tensor([[0, 7, 100000]])
    x = torch.zeros(1, dtype=torch.float64)
    # Gemma 3 4B: sliding layers base 10,000; full-attention layers base 1e6 with linear x8; head_dim 256.
    for layer_type, th in (("sliding_attention", thetas(10000.0, 256)),
                           ("full_attention", thetas(1e6, 256, divide=8.0))):
        cos, sin = rotary(x, ids, layer_type)
        want_cos, want_sin = exact_emb([0, 7, 100000], th)
        assert cos.shape == (1, 3, 256)
        assert np.max(np.abs(cos[0].numpy() - want_cos)) <= 1e-14
        assert np.max(np.abs(sin[0].numpy() - want_sin)) <= 1e-14
    with pytest.raises(posenc.Error, match="layer_type None must name one of this model's RoPE groups"):
        rotary(x, ids)
    with pytest.raises(posenc.Error, match="is not a RoPE group of this model"):
        rotary(x, ids, "local")
    # transformers 4.x keeps one module per layer type: a module bound to one group.
    local = pt.RotaryEmbedding.from_config(os.path.join(CONFIGS, "gemma-3-4b-it.json"), layer_type="sliding_attention")
    assert torch.equal(local(x, ids)[0], rotary(x, ids, "sliding_attention")[0])


def test_qwen2_vl_sections_return_one_table_per_axis(torch, pt):
    rotary = pt.RotaryEmbedding.from_config(os.path.join(CONFIGS, "qwen2.5-vl-7b-instruct.json"))
    ids = torch.stack([torch.tensor([[0, 5, 9]]), torch.tensor([[1, 2, 3]]), torch.tensor([[4, 4, 70000]])])
    cos, sin = rotary(torch.zeros(1, dtype=torch.float64), ids)
    assert cos.shape == (3, 1, 3, 128)
    th = thetas(1e6, 128)
    for axis in range(3):
        want_cos, want_sin = exact_emb(ids[axis, 0].tolist(), th)
        assert np.max(np.abs(cos[axis, 0].numpy() - want_cos)) <= 1e-14
        assert np.max(np.abs(sin[axis, 0].numpy() - want_sin)) <= 1e-14


def test_qwen3_vl_interleaved_pairs_read_their_axis(torch, pt):
    import json

    path = os.path.join(CONFIGS, "qwen3-vl-8b-instruct.json")
    with open(path) as fh:
        text = json.load(fh)["text_config"]
    section = (text.get("rope_scaling") or text.get("rope_parameters"))["mrope_section"]
    rotary = pt.RotaryEmbedding.from_config(path)
    ids = torch.stack([torch.tensor([[3, 11]]), torch.tensor([[5, 13]]), torch.tensor([[7, 17]])])
    cos, sin = rotary(torch.zeros(1, dtype=torch.float64), ids)
    assert cos.shape == (1, 2, 128)
    th = thetas(text["rope_theta"] if "rope_theta" in text else 5e6, 128)
    for t in range(2):
        for i in range(64):
            # transformers apply_interleaved_mrope: height on i % 3 == 1 below 3 s1, width on i % 3 == 2 below 3 s2.
            axis = 1 if (i % 3 == 1 and i < 3 * section[1]) else 2 if (i % 3 == 2 and i < 3 * section[2]) else 0
            m = int(ids[axis, 0, t])
            assert abs(cos[0, t, i].item() - math.cos(mpmath.mpf(m) * th[i])) <= 1e-14
            assert cos[0, t, i].item() == cos[0, t, 64 + i].item()
    # 2-D position ids: every axis alike, the 1-D table.
    flat_cos, _ = rotary(torch.zeros(1, dtype=torch.float64), torch.tensor([[3, 11]]))
    want, _ = exact_emb([3, 11], th)
    assert np.max(np.abs(flat_cos[0].numpy() - want)) <= 1e-14


def test_dynamic_ntk_follows_transformers_update_rule(torch, pt):
    config = dict(LLAMA, max_position_embeddings=4096, rope_scaling={"rope_type": "dynamic", "factor": 2.0})
    rotary = pt.RotaryEmbedding.from_config(config)
    x = torch.zeros(1, dtype=torch.float64)
    probe = torch.tensor([[100]])

    def table_now(seq_len):  # the pair-1 angle at position 100 after a call that saw seq_len tokens
        rotary(x, torch.tensor([[seq_len - 1]]))
        return rotary._tables[next(iter(rotary._tables))].inv_freq[1]

    def base_for(n):  # transformers _compute_dynamic_ntk_parameters
        return 500000.0 * ((2.0 * n / 4096) - (2.0 - 1)) ** (128 / (128 - 2))

    assert table_now(100) == pytest.approx(base_for(4096) ** (-2 / 128), rel=1e-14)
    assert table_now(10000) == pytest.approx(base_for(10000) ** (-2 / 128), rel=1e-14)
    assert table_now(6000) == pytest.approx(base_for(10000) ** (-2 / 128), rel=1e-14)  # kept: no shrink above L
    assert table_now(100) == pytest.approx(base_for(4096) ** (-2 / 128), rel=1e-14)   # reset below L
    del probe


def test_config_objects_and_the_one_line_swap(torch, pt):
    class Config:  # attribute access, as any object with config.json's attributes
        def __init__(self):
            for k, v in LLAMA.items():
                setattr(self, k, v)

    class WithToDict:
        def to_dict(self):
            return dict(LLAMA)

    a = pt.RotaryEmbedding.from_config(Config())
    b = pt.RotaryEmbedding.from_config(WithToDict())
    ids = torch.arange(5)[None]
    assert torch.equal(a(torch.zeros(1), ids)[0], b(torch.zeros(1), ids)[0])
    model = torch.nn.Module()
    model.model = torch.nn.Module()
    model.model.rotary_emb = torch.nn.Identity()
    model.model.rotary_emb = pt.RotaryEmbedding.from_config(WithToDict())  # the documented swap
    assert isinstance(model.model.rotary_emb, pt.RotaryEmbedding)


def test_bad_input_is_a_posenc_error_naming_the_argument(torch, pt):
    rotary = pt.RotaryEmbedding.from_config(LLAMA)
    ids = torch.arange(4)[None]
    with pytest.raises(posenc.Error, match="x.dtype int32 must be float32"):
        rotary(torch.zeros(1, dtype=torch.int32), ids)
    with pytest.raises(posenc.Error, match="position_ids.dtype float32 must be int32 or int64"):
        rotary(torch.zeros(1), ids.float())
    with pytest.raises(posenc.Error, match="position_ids.ndim 3 must be 2"):
        rotary(torch.zeros(1), ids[None])
    with pytest.raises(posenc.Error, match="x list must be a torch.Tensor"):
        rotary([0.0], ids)
    with pytest.raises(posenc.Error, match="position_ids 1152921504606846976 must be in \\[-2147483647, 2147483647\\]"):
        rotary(torch.zeros(1), torch.tensor([[2**60]]))
    bad = dict(LLAMA, rope_scaling={"rope_type": "linear", "factor": "four"})
    with pytest.raises(posenc.Error) as reader:
        posenc.model_from_hf_config(bad)
    with pytest.raises(posenc.Error) as ours:
        pt.RotaryEmbedding.from_config(bad)
    assert str(ours.value) == str(reader.value)
    interleaved = os.path.join(CONFIGS, "llama-4-scout-17b-16e-instruct.json")
    with pytest.raises(posenc.Error, match="pairing \"interleaved\" is not served"):
        pt.RotaryEmbedding.from_config(interleaved)
