# SPDX-License-Identifier: MIT
# posenc.torch.RotaryEmbedding's two paths and the families it serves:
#  - the device path (used for every tensor not on the CPU: digit tables on the device, products in
#    float64, one rounding) run here on CPU tensors and on the "meta" device: no host
#    synchronisation (Tensor.item / .cpu / .numpy / .tolist and Python conversions fail the test),
#    and values against mpmath at positions 2^24 and beyond (an independent evaluation);
#  - the CPU path (an exact table per dtype, gathered) equal to the device path;
#  - interleaved-pair families whose transformers module returns cos/sin rows (modeling_glm.py,
#    modeling_deepseek_v3.py: cat(freqs, freqs); modeling_cohere2.py: repeat_interleave(freqs, 2)),
#    restated with mpmath;
#  - config objects holding sets (transformers' Qwen2.5-VL config: ignore_keys_at_rope_validation).
import json
import math
import os

import numpy as np
import pytest

import posenc

mpmath = pytest.importorskip("mpmath", reason="mpmath is not installed (Debian python3-mpmath)")

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "configs")
LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
         "max_position_embeddings": 8192}
FAR = [0, 1, 2**24 - 1, 2**24, 2**24 + 1, 123456789, 2**30 + 12345, 2**31 - 1]


@pytest.fixture(scope="module")
def pt(torch):
    import posenc.torch

    return posenc.torch


def thetas(base, rotary_dim):
    mpmath.mp.dps = 40
    return [float(mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / rotary_dim)) for i in range(rotary_dim // 2)]


def exact_half(positions, th):
    mpmath.mp.dps = 40
    cos = np.array([[float(mpmath.cos(mpmath.mpf(m) * mpmath.mpf(t))) for t in th] for m in positions])
    sin = np.array([[float(mpmath.sin(mpmath.mpf(m) * mpmath.mpf(t))) for t in th] for m in positions])
    return cos, sin


def half_ulp(want, bits, min_exp):
    _, e = np.frexp(np.abs(want))
    return np.ldexp(0.5, np.maximum(e - 1, min_exp) - (bits - 1))


@pytest.mark.parametrize("dtype,bits,min_exp", [("float32", 24, -126), ("bfloat16", 8, -126), ("float16", 11, -14)])
def test_device_path_is_within_one_rounding_of_mpmath_at_2_24_and_beyond(torch, pt, dtype, bits, min_exp):
    rotary = pt.RotaryEmbedding.from_config(LLAMA)
    ids = torch.tensor([FAR])
    key, table = rotary._table(rotary.rope.groups[0], None)
    cos, sin = rotary._device_forward(key, table, getattr(torch, dtype), ids)
    want_cos, want_sin = exact_half(FAR, thetas(500000.0, 128))
    for got, want in ((cos[0], want_cos), (sin[0], want_sin)):
        got = got.double().numpy()
        assert np.array_equal(got[:, :64], got[:, 64:])  # cat(freqs, freqs)
        # one rounding of a value within 3 * 6e-15 of exact (OnTheFlyAngles' bound)
        assert np.all(np.abs(got[:, :64] - want) <= half_ulp(want, bits, min_exp) + 2e-14)


def test_cpu_table_path_equals_device_path_and_float32_formula_is_far_off(torch, pt):
    rotary = pt.RotaryEmbedding.from_config(LLAMA)
    gen = torch.Generator().manual_seed(5)
    ids = torch.cat((torch.randint(0, 300000, (2, 64), generator=gen), torch.tensor([FAR[:4] * 16] * 2)), 1)
    key, table = rotary._table(rotary.rope.groups[0], None)
    for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.float64):
        cpu = rotary(torch.zeros(1, dtype=dtype), ids)
        dev = rotary._device_forward(key, table, dtype, ids)
        assert cpu[0].dtype == dtype and cpu[0].shape == (2, 128, 128)
        assert torch.equal(cpu[0], dev[0]) and torch.equal(cpu[1], dev[1])
    # far positions on the CPU take the direct rows (no 2^24-row table) and agree too
    far = rotary(torch.zeros(1), torch.tensor([FAR]))
    assert torch.equal(far[0], rotary._device_forward(key, table, torch.float32, torch.tensor([FAR]))[0])


def test_device_path_reads_nothing_back_to_the_host(torch, pt, monkeypatch):
    rotary = pt.RotaryEmbedding.from_config(os.path.join(CONFIGS, "qwen3-vl-8b-instruct.json"))
    ids = torch.tensor([[[5, 2**24 + 3, 7]], [[6, 8, 2**31 - 1]], [[9, 10, 11]]])
    key, table = rotary._table(rotary.rope.groups[0], None)
    want = rotary(torch.zeros(1, dtype=torch.bfloat16), ids)  # CPU path
    rotary._device_levels(key, table, ids.device)  # the one upload, before capture as with CUDA graphs

    def host_read(*args, **kwargs):
        raise AssertionError("the device path read a tensor back to the host")

    for name in ("item", "cpu", "numpy", "tolist", "__bool__", "__int__", "__index__", "__float__"):
        monkeypatch.setattr(torch.Tensor, name, host_read)
    got = rotary._device_forward(key, table, torch.bfloat16, ids)
    monkeypatch.undo()
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


def test_meta_tensors_take_the_device_path_with_transformers_shapes(torch, pt):
    rotary = pt.RotaryEmbedding.from_config(LLAMA)
    x = torch.zeros(1, device="meta")
    cos, sin = rotary(x, torch.zeros(32, 1, dtype=torch.int64, device="meta"))  # decode: [batch 32, 1]
    assert cos.device.type == "meta" and cos.shape == sin.shape == (32, 1, 128) and cos.dtype == torch.float32


def test_device_path_gives_nan_past_2_31_and_cpu_path_refuses(torch, pt):
    rotary = pt.RotaryEmbedding.from_config(LLAMA)
    key, table = rotary._table(rotary.rope.groups[0], None)
    cos, _ = rotary._device_forward(key, table, torch.float32, torch.tensor([[2**31, 5, -2**63, -(2**31 - 1)]]))
    assert torch.isnan(cos[0, 0]).all() and torch.isnan(cos[0, 2]).all()
    assert not torch.isnan(cos[0, 1]).any() and not torch.isnan(cos[0, 3]).any()
    with pytest.raises(posenc.Error, match="position_ids 2147483648 must be in \\[-2147483647, 2147483647\\]"):
        rotary(torch.zeros(1), torch.tensor([[2**31]]))


def test_glm_and_deepseek_v3_return_cat_rows_and_cohere2_repeat_interleave(torch, pt):
    x = torch.zeros(1, dtype=torch.float64)
    ids = torch.tensor([[0, 3, 1000, 2**24 + 7]])
    positions = ids[0].tolist()
    # GLM-4-9B: interleaved pairs, partial rotary 0.5 of head 128 -> R 64, base 1e4.
    cos, sin = pt.RotaryEmbedding.from_config(os.path.join(CONFIGS, "glm-4-9b-chat-hf.json"))(x, ids)
    want_cos, want_sin = exact_half(positions, thetas(10000.0, 64))
    assert cos.shape == (1, 4, 64)
    assert np.max(np.abs(cos[0].numpy() - np.concatenate((want_cos, want_cos), -1))) <= 1e-13
    assert np.max(np.abs(sin[0].numpy() - np.concatenate((want_sin, want_sin), -1))) <= 1e-13
    # DeepSeek-V3: qk_rope_head_dim 64; YaRN keeps pair 0 (theta 1) unscaled; attention factor
    # get_mscale(40, 1) / get_mscale(40, 1) = 1.
    cos, sin = pt.RotaryEmbedding.from_config(os.path.join(CONFIGS, "deepseek-v3.json"))(x, ids)
    assert cos.shape == (1, 4, 64) and torch.equal(cos[..., :32], cos[..., 32:])
    want_cos, want_sin = exact_half(positions, [1.0])
    assert np.max(np.abs(cos[0, :, 0].numpy() - want_cos[:, 0])) <= 1e-13
    assert torch.max(torch.abs(torch.hypot(cos, sin) - 1)).item() <= 1e-14
    # Command R7B (cohere2): head 128, base 50000, sliding layers rotate; columns 2i, 2i + 1 = pair i.
    rotary = pt.RotaryEmbedding.from_config(os.path.join(CONFIGS, "command-r7b-12-2024.json"))
    cos, sin = rotary(x, ids)
    want_cos, want_sin = exact_half(positions, thetas(50000.0, 128))
    assert np.max(np.abs(cos[0].numpy() - np.repeat(want_cos, 2, -1))) <= 1e-13
    assert np.max(np.abs(sin[0].numpy() - np.repeat(want_sin, 2, -1))) <= 1e-13
    key, table = rotary._table(rotary.rope.groups[0], None)
    assert torch.equal(rotary._device_forward(key, table, torch.float64, ids)[1], sin)


def test_config_objects_with_sets_as_transformers_qwen2_5_vl_config_holds(torch, pt):
    with open(os.path.join(CONFIGS, "qwen2.5-vl-7b-instruct.json")) as f:
        data = json.load(f)

    class Qwen25VLConfig:  # to_dict() with the set-valued attribute transformers' config class carries
        def to_dict(self):
            return dict(data, ignore_keys_at_rope_validation={"mrope_section"})

    class Attributes:
        def __init__(self):
            self.__dict__.update(data)
            self.ignore_keys_at_rope_validation = {"mrope_section", "rope_type"}
            self.architectures = ("Qwen2_5_VLForConditionalGeneration",)

    ids = torch.arange(4)[None].expand(3, 1, -1)
    want = pt.RotaryEmbedding.from_config(data)(torch.zeros(1), ids)
    for config in (Qwen25VLConfig(), Attributes()):
        got = pt.RotaryEmbedding.from_config(config)(torch.zeros(1), ids)
        assert got[0].shape == (3, 1, 4, 128) and torch.equal(got[0], want[0])
        assert posenc.export.cos_sin_cache(config, 4, "vllm").shape == (4, 128)


def test_phi3_longrope_switches_at_the_original_length_by_the_librarys_rule(torch, pt):
    # transformers longrope_frequency_update: seq_len = max(position_ids) + 1 > 4096 -> long factors,
    # else short; the attention factor sqrt(1 + ln(131072 / 4096) / ln 4096) at every length.
    path = os.path.join(CONFIGS, "phi-3-mini-128k-instruct.json")
    with open(path) as f:
        scaling = json.load(f)["rope_scaling"]
    rotary = pt.RotaryEmbedding.from_config(path)
    a = math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))
    th = thetas(10000.0, 96)
    x = torch.zeros(1, dtype=torch.float64)
    for last, factors in ((4095, scaling["short_factor"]), (4096, scaling["long_factor"]),
                          (6000, scaling["long_factor"]), (100, scaling["short_factor"])):
        cos, _ = rotary(x, torch.tensor([[3, last]]))
        want, _ = exact_half([3], [t / f for t, f in zip(th, factors)])
        assert np.max(np.abs(cos[0, 0, :48].numpy() - a * want[0])) <= 1e-13, last
    assert len(rotary._tables) == 1  # one table in effect at a time
    rotary(x, torch.tensor([[5000]]))
    past = rotary._tables[("default", "past_original")] if ("default", "past_original") in rotary._tables else None
    rotary(x, torch.tensor([[7000]]))
    assert past is not None and rotary._tables.get(("default", "past_original")) is past  # no rebuild per length
