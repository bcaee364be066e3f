# SPDX-License-Identifier: MIT
# posenc.export against the engines' layout rules restated here and mpmath:
#   vLLM rotary_embedding/base.py _compute_cos_sin_cache: cache = cat((cos(freqs), sin(freqs)), -1),
#     freqs = outer(positions, inv_freq) [max_positions, rotary_dim / 2];
#   FlashInfer apply_rope_with_cos_sin_cache: the same layout, float32;
#   transformers LlamaRotaryEmbedding.forward: emb = cat((freqs, freqs), -1), (cos(emb), sin(emb));
#   llama.cpp convert_hf_to_gguf.py: rope_freqs for llama3, rope_factors_long / _short for LongRoPE.
# Expected values: mpmath at 40 digits of m * theta_i, theta_i the double nearest base^(-2i/R)
# (mpmath, then rounded to double: the frequency a float64 table holds).
import math
import os

import numpy as np
import pytest

import posenc

mpmath = pytest.importorskip("mpmath", reason="mpmath is not installed (Debian python3-mpmath)")

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "configs")

LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
         "max_position_embeddings": 8192}
POSITIONS = [0, 1, 4095, 1_000_000, 2**31 - 1]


def thetas(base, rotary_dim):
    mpmath.mp.dps = 40
    return [float(mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / rotary_dim)) for i in range(rotary_dim // 2)]


def exact_cos_sin(m, theta, a=1.0):
    mpmath.mp.dps = 40
    angle = mpmath.mpf(m) * mpmath.mpf(theta)
    return float(a * mpmath.cos(angle)), float(a * mpmath.sin(angle))


def half_ulp(values, dtype):
    """Half an ulp of each value in `dtype` (the largest error of one rounding)."""
    values = np.abs(np.asarray(values, dtype=np.float64))
    bits, min_exp = {"float32": (24, -126), "float16": (11, -14)}[dtype]
    _, e = np.frexp(values)
    return np.ldexp(0.5, np.maximum(e - 1, min_exp) - (bits - 1))


def test_vllm_cache_is_cos_half_then_sin_half_within_half_a_float32_ulp_of_mpmath_up_to_2_31():
    th = thetas(500000.0, 128)
    for m in POSITIONS:
        row = posenc.export.cos_sin_cache(LLAMA, 1, "vllm", "float32", first_position=m)
        assert row.shape == (1, 128) and row.dtype == np.float32
        expected = np.array([exact_cos_sin(m, t) for t in th])  # [64, 2]
        want = np.concatenate((expected[:, 0], expected[:, 1]))
        assert np.all(np.abs(row[0].astype(np.float64) - want) <= half_ulp(want, "float32") * 1.0001), m


def test_vllm_cache_in_float16_is_rounded_once_from_the_exact_value():
    th = thetas(500000.0, 128)
    row = posenc.export.cos_sin_cache(LLAMA, 1, "vllm", "float16", first_position=1_000_000)
    assert row.dtype == np.float16
    expected = np.array([exact_cos_sin(1_000_000, t) for t in th])
    want = np.concatenate((expected[:, 0], expected[:, 1]))
    assert np.all(np.abs(row[0].astype(np.float64) - want) <= half_ulp(want, "float16") * 1.0001)


def test_whole_vllm_table_rows_are_positions_0_to_n_minus_1():
    table = posenc.export.cos_sin_cache(LLAMA, 300, "vllm", "float64")
    assert table.shape == (300, 128)
    th = thetas(500000.0, 128)
    for m in (0, 17, 299):
        for i in (0, 31, 63):
            c, s = exact_cos_sin(m, th[i])
            assert abs(table[m, i] - c) <= 1e-14 and abs(table[m, 64 + i] - s) <= 1e-14


def test_flashinfer_is_the_vllm_layout_in_float32_and_refuses_other_dtypes():
    fi = posenc.export.cos_sin_cache(LLAMA, 64, "flashinfer", first_position=123456)
    assert fi.dtype == np.float32
    assert np.array_equal(fi, posenc.export.cos_sin_cache(LLAMA, 64, "vllm", "float32", first_position=123456))
    with pytest.raises(posenc.Error, match="must be float32 for layout \"flashinfer\""):
        posenc.export.cos_sin_cache(LLAMA, 4, "flashinfer", "float16")


def test_hf_pair_is_cat_freqs_freqs_and_folds_the_yarn_attention_factor_into_both():
    # YaRN's attention factor 0.1 ln(s) + 1 (transformers _compute_yarn_parameters, get_mscale).
    config = dict(LLAMA, rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192})
    cos, sin = posenc.export.cos_sin_cache(config, 50, "hf", "float64", first_position=2**31 - 50)
    assert cos.shape == sin.shape == (1, 50, 128)  # transformers' module: [batch 1, seq, rotary_dim]
    cos, sin = cos[0], sin[0]
    assert np.array_equal(cos[:, :64], cos[:, 64:]) and np.array_equal(sin[:, :64], sin[:, 64:])
    a = 0.1 * math.log(4.0) + 1.0
    assert np.max(np.abs(np.hypot(cos, sin) - a)) <= 1e-14


def test_bfloat16_tensors_are_rounded_once_from_double(torch):
    # 1 + 2^-8 + 2^-30: through float32 first it becomes 1 + 2^-8, a tie that rounds to 1; rounded
    # once it is above the tie: 1 + 2^-7.
    value = 1 + 2.0**-8 + 2.0**-30
    assert posenc.export.round_once(np.array([value]), "bfloat16")[0] == 1 + 2.0**-7
    assert posenc.export.round_once(np.array([1 + 2.0**-8]), "bfloat16")[0] == 1.0  # tie to even
    t = posenc.export.cos_sin_cache(LLAMA, 8, "vllm", torch.bfloat16, tensor=True, first_position=99)
    assert t.dtype == torch.bfloat16 and t.shape == (8, 128)
    f64 = posenc.export.cos_sin_cache(LLAMA, 8, "vllm", "float64", first_position=99)
    assert torch.equal(t, torch.from_numpy(posenc.export.round_once(f64, "bfloat16")).to(torch.bfloat16))
    with pytest.raises(posenc.Error, match="needs tensor=True or dtype=torch.bfloat16"):
        posenc.export.cos_sin_cache(LLAMA, 8, "vllm", "bfloat16")


def test_a_torch_dtype_gives_torch_tensors_without_tensor_true(torch):
    t = posenc.export.cos_sin_cache(LLAMA, 8, "vllm", torch.bfloat16, first_position=99)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.bfloat16 and t.shape == (8, 128)
    f64 = posenc.export.cos_sin_cache(LLAMA, 8, "vllm", "float64", first_position=99)
    assert torch.equal(t, torch.from_numpy(posenc.export.round_once(f64, "bfloat16")).to(torch.bfloat16))
    cos, sin = posenc.export.cos_sin_cache(LLAMA, 8, "hf", torch.float16)
    assert cos.dtype == sin.dtype == torch.float16 and cos.shape == (1, 8, 128)
    assert isinstance(posenc.export.cos_sin_cache(LLAMA, 8, "vllm", np.float32), np.ndarray)


def test_hf_layout_has_transformers_module_shapes_for_m_rope(torch):
    # transformers Qwen2_5_VLRotaryEmbedding.forward: position_ids [3, batch, seq] -> cos [3, batch, seq, R];
    # text positions are the same on the three axes. Qwen2.5-VL-7B: head 128, base 1e6.
    cos, sin = posenc.export.cos_sin_cache(os.path.join(CONFIGS, "qwen2.5-vl-7b-instruct.json"), 5, "hf", "float64",
                                           first_position=1000)
    assert cos.shape == sin.shape == (3, 1, 5, 128)
    th = thetas(1000000.0, 128)
    for axis in range(3):
        for i in (0, 17, 63):
            want_cos, want_sin = exact_cos_sin(1003, th[i])
            assert abs(cos[axis, 0, 3, i] - want_cos) <= 1e-14 and abs(cos[axis, 0, 3, 64 + i] - want_cos) <= 1e-14
            assert abs(sin[axis, 0, 3, i] - want_sin) <= 1e-14


def test_longrope_export_past_the_original_length_uses_the_long_factors():
    # Phi-3-mini-128k (tests/data/configs): R 96, base 10000, original 4096, max 131072.
    # transformers _compute_longrope_parameters / longrope_frequency_update: seq_len > original ->
    # inv_freq = base^(-2i/R) / long_factor[i]; attention factor sqrt(1 + ln(131072/4096) / ln 4096).
    import json

    path = os.path.join(CONFIGS, "phi-3-mini-128k-instruct.json")
    with open(path) as f:
        config = json.load(f)
    long_factor = config["rope_scaling"]["long_factor"]
    short_factor = config["rope_scaling"]["short_factor"]
    a = math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))
    th = thetas(10000.0, 96)
    cache = posenc.export.cos_sin_cache(path, 8192, "vllm", "float64")
    short = posenc.export.cos_sin_cache(path, 4096, "vllm", "float64")
    for m in (1, 4000, 8191):
        for i in (0, 20, 47):
            want_cos, want_sin = exact_cos_sin(m, th[i] / long_factor[i], a)
            assert abs(cache[m, i] - want_cos) <= 1e-13 and abs(cache[m, 48 + i] - want_sin) <= 1e-13
    want_cos, _ = exact_cos_sin(4000, th[47] / short_factor[47], a)  # 4096 rows: the short factors
    assert abs(short[4000, 47] - want_cos) <= 1e-13


def test_llama3_rope_freqs_follow_llama_cpp_rule_restated_in_float64():
    path = os.path.join(CONFIGS, "llama-3.1-8b.json")
    factors = posenc.export.rope_freqs(path)
    assert list(factors) == ["rope_freqs"]
    f = factors["rope_freqs"]
    assert f.dtype == np.float32 and f.shape == (64,)
    # convert_hf_to_gguf.py's rule (Llama 3.1: factor 8, low 1, high 4, original 8192).
    expected = []
    for theta in thetas(500000.0, 128):
        wavelen = 2 * math.pi / theta
        if wavelen < 8192 / 4.0:
            expected.append(1.0)
        elif wavelen > 8192 / 1.0:
            expected.append(8.0)
        else:
            smooth = (8192 / wavelen - 1.0) / (4.0 - 1.0)
            expected.append(1 / ((1 - smooth) / 8.0 + smooth))
    expected = np.array(expected, dtype=np.float32)
    assert np.max(np.abs(f - expected) / np.spacing(expected)) <= 1.0
    assert np.sum(f == 1.0) == 29 and np.sum(f == 8.0) == 29


def test_longrope_rope_factors_are_the_configs_lists_in_float32():
    path = os.path.join(CONFIGS, "phi-3-mini-128k-instruct.json")
    import json

    with open(path) as fh:
        scaling = json.load(fh)["rope_scaling"]
    factors = posenc.export.rope_freqs(path)
    assert sorted(factors) == ["rope_factors_long", "rope_factors_short"]
    assert np.array_equal(factors["rope_factors_long"], np.array(scaling["long_factor"], dtype=np.float32))
    assert np.array_equal(factors["rope_factors_short"], np.array(scaling["short_factor"], dtype=np.float32))


def test_refusals_name_the_argument_and_configs_are_refused_with_the_readers_message():
    with pytest.raises(posenc.Error, match="rope_type \"none\" has no per-pair factor tensor"):
        posenc.export.rope_freqs(LLAMA)
    with pytest.raises(posenc.Error, match="layout 'jax' must be one of"):
        posenc.export.cos_sin_cache(LLAMA, 4, "jax")
    with pytest.raises(posenc.Error, match="dtype 'int8' must be one of"):
        posenc.export.cos_sin_cache(LLAMA, 4, "vllm", "int8")
    with pytest.raises(posenc.Error, match="num_positions 2 must be <= 1 so that the last position stays <= 2\\^31 - 1"):
        posenc.export.cos_sin_cache(LLAMA, 2, "vllm", first_position=2**31 - 1)
    bad = dict(LLAMA, rope_theta=-1.0)
    with pytest.raises(posenc.Error) as reader:
        posenc.model_from_hf_config(bad)
    with pytest.raises(posenc.Error) as ours:
        posenc.export.cos_sin_cache(bad, 4)
    assert str(ours.value) == str(reader.value)
    gemma = os.path.join(CONFIGS, "gemma-3-4b-it.json")
    with pytest.raises(posenc.Error, match="layer_type None must name one of this model's RoPE groups"):
        posenc.export.cos_sin_cache(gemma, 4)
    sliding = posenc.export.cos_sin_cache(gemma, 4, layer_type="sliding_attention", dtype="float64")
    c, s = exact_cos_sin(3, thetas(10000.0, 256)[5])
    assert abs(sliding[3, 5] - c) <= 1e-14 and abs(sliding[3, 128 + 5] - s) <= 1e-14


def test_float16_and_bfloat16_rows_equal_numpys_one_rounding_including_float16_subnormals(torch):
    # Positions 0..63: sin of the slow pairs is below 2^-14 (float16's subnormal range). NumPy's
    # float64 -> float16 cast rounds once; round_once restates bfloat16's rule.
    f64 = posenc.export.cos_sin_cache(LLAMA, 64, "vllm", "float64")
    f16 = posenc.export.cos_sin_cache(LLAMA, 64, "vllm", "float16")
    assert np.min(np.abs(f64[1:, 64:])) < 2.0**-14
    assert f16.dtype == np.float16 and np.array_equal(f16, f64.astype(np.float16))
    b16 = posenc.export.cos_sin_cache(LLAMA, 64, "vllm", torch.bfloat16)
    assert torch.equal(b16, torch.from_numpy(posenc.export.round_once(f64, "bfloat16")).to(torch.bfloat16))
