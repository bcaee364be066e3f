# SPDX-License-Identifier: MIT
# This year's model math from Python: proportional RoPE (Gemma 4), LongRoPE's per-family switch
# (Phi-3 tables, PhiMoE magnitude), per-position query scaling (Llama 4, Ministral 3), re-rotation
# of cached keys between tables, rotated slices at an offset, and multimodal layouts / position ids.
# Expected values are the formulas of Hugging Face transformers, restated here with math / numpy.
import math

import numpy as np
import pytest

import posenc


def test_proportional_gemma4_full_attention_table_is_hf_formula_with_exact_zeros():
    spec = posenc.RopeSpec.full(512, 1e6)
    table = posenc.frequency_table(spec, posenc.ProportionalScaling(0.25))
    k = int(0.25 * 512 // 2)  # transformers: rope_angles = int(rope_proportion * head_dim // 2)
    expected = np.zeros(256)
    expected[:k] = 1e6 ** (-2 * np.arange(k) / 512)
    assert np.allclose(table.inv_freq, expected, rtol=1e-14, atol=0)
    assert np.all(table.inv_freq[k:] == 0.0)
    assert table.zero_freq_pairs == 192 and table.rotated_pairs == 64
    assert math.isinf(table.period(100))
    assert posenc.scaling_type_name(posenc.ProportionalScaling(0.25)) == "proportional"
    with pytest.raises(posenc.Error, match="must equal head_dim 512 for proportional RoPE"):
        posenc.frequency_table(posenc.RopeSpec(512, 128, 1e6), posenc.ProportionalScaling(0.25))


def test_longrope_phimoe_keeps_short_factors_and_switches_magnitude():
    short, long_ = [1.0] * 8, [4.0] * 8
    spec = posenc.RopeSpec.full(16, 1e4)
    phi3 = posenc.LongRopeScaling(short, long_, 4096, 32.0)
    phimoe = phi3.with_phimoe_mscales(1.1, 1.3)
    assert phimoe.switch_rule == posenc.LongRopeSwitchRule.phimoe_magnitude_only
    theta = 1e4 ** (-2 * np.arange(8) / 16)
    assert np.allclose(posenc.frequency_table(spec, phi3, sequence_length=4097).inv_freq, theta / 4, rtol=1e-14)
    assert np.allclose(posenc.frequency_table(spec, phimoe, sequence_length=4097).inv_freq, theta, rtol=1e-14)
    assert posenc.longrope_attention_factor(phimoe, 4096) == 1.1
    assert posenc.longrope_attention_factor(phimoe, 4097) == 1.3
    assert posenc.longrope_attention_factor(phi3, 4097) == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))


def test_query_scale_llama4_and_ministral3_formulas():
    llama4 = posenc.QueryScale.llama4_temperature_tuning(0.1, 8192)
    ministral = posenc.QueryScale.llama_4_scaling_beta(0.1, 16384)
    for pos in (0, 8190, 8191, 100000, 2**31 - 1):
        assert llama4.multiplier(pos) == pytest.approx(1 + 0.1 * math.log(1 + (pos + 1) // 8192), rel=1e-15)
        assert ministral.multiplier(pos) == pytest.approx(1 + 0.1 * math.log(1 + pos // 16384), rel=1e-15)
    run = llama4.multipliers(8185, 10)
    assert run.dtype == np.float32
    assert list(run) == [np.float32(1 + 0.1 * math.log(1 + (p + 1) // 8192)) for p in range(8185, 8195)]
    with pytest.raises(posenc.Error, match="position -1 must be >= 0"):
        llama4.multiplier(-1)


def test_llama4_scout_preset_carries_temperature_tuning_on_nope_layers():
    rope = posenc.presets.llama_4_scout_rope()
    scale, layers = rope.query_scale
    assert layers == rope.nope_layers()
    assert (scale.beta, scale.divisor, scale.position_offset) == (0.1, 8192, 1)


def rotate(keys, positions, inv_freq, factor):
    """Half-split RoPE in float64, Hugging Face's x * cos + rotate_half(x) * sin."""
    angle = np.outer(positions, inv_freq)
    cos = np.concatenate([np.cos(angle), np.cos(angle)], axis=1)[:, None, :] * factor
    sin = np.concatenate([np.sin(angle), np.sin(angle)], axis=1)[:, None, :] * factor
    half = keys.shape[-1] // 2
    rotated_half = np.concatenate([-keys[..., half:], keys[..., :half]], axis=-1)
    return keys * cos + rotated_half * sin


def test_rerotate_keys_equals_direct_rotation_with_the_new_table():
    spec = posenc.RopeSpec.full(8, 1e4)
    theta = 1e4 ** (-2 * np.arange(4) / 8)
    old = posenc.FrequencyTable(theta / np.array([1.0, 1.5, 2.0, 3.0]), 1.1)
    new = posenc.FrequencyTable(theta / np.array([1.0, 4.0, 9.0, 30.0]), 1.3)
    rng = np.random.default_rng(5)
    keys = rng.standard_normal((6, 2, 8))
    positions = np.array([0, 1, 4096, 4097, 65536, 3000])  # float64 angles stay accurate to ~1e-12 here
    cached = rotate(keys, positions, old.inv_freq, 1.1)
    posenc.rerotate_keys(spec, old, new, cached, positions.tolist())
    assert np.allclose(cached, rotate(keys, positions, new.inv_freq, 1.3), rtol=0, atol=1e-9)
    as_float = rotate(keys, positions, old.inv_freq, 1.1).astype(np.float32)
    posenc.rerotate_keys(spec, old, new, as_float, positions.tolist())
    assert np.allclose(as_float, rotate(keys, positions, new.inv_freq, 1.3), rtol=0, atol=1e-5)
    with pytest.raises(posenc.Error, match="positions.size 2 must equal tokens 6"):
        posenc.rerotate_keys(spec, old, new, cached, [0, 1])


def test_rope_spec_rotary_offset_round_trips_and_rotates_only_the_slice():
    import pickle

    spec = posenc.RopeSpec.suffix(24, 8, 1e4, "interleaved")
    assert spec.rotary_offset == 16 and spec.pair_coordinates(0) == (16, 17)
    assert pickle.loads(pickle.dumps(spec)) == spec
    head = np.arange(24, dtype=np.float64) + 1.0
    out = posenc.apply_rope_reference(spec, posenc.FrequencyTable.from_spec(spec), head, 1000)
    assert np.array_equal(out[:16], head[:16])
    assert not np.array_equal(out[16:], head[16:])


def test_multimodal_layouts_and_position_ids():
    hf = posenc.MultiAxisLayout.coordinate_sections([16, 16, 16, 16], 64)
    assert hf.splits_pairs and hf.pair_axes[0] == 0 and hf.partner_axes[0] == 2
    tencent = posenc.MultiAxisLayout.xd_sections([16, 16, 16, 16], 64)
    assert not tencent.splits_pairs and tencent.pair_axes[16] == 1
    ernie = posenc.MultiAxisLayout.height_width_alternating([22, 22, 20], 64)
    assert ernie.pair_axes[:4] == [1, 2, 1, 2] and ernie.pair_axes[44] == 0
    ids, delta = posenc.ernie_4_5_vl_position_ids(
        [posenc.PromptSegment.text(2), posenc.PromptSegment.image(1, 4, 4), posenc.PromptSegment.text(1)], 2, 2)
    # text 0, 1; image 2x2 grid at c = 2: t 2, h 2 2 3 3, w 2 3 2 3; then c += 2 -> text at 4
    assert ids.tolist() == [[0, 1, 2, 2, 2, 2, 4], [0, 1, 2, 2, 3, 3, 4], [0, 1, 2, 3, 2, 3, 4]]
    assert delta == 5 - 7
    ids, _ = posenc.hunyuan_vl_position_ids([posenc.PromptSegment.text(1), posenc.PromptSegment.image(1, 2, 2)], 4, 2)
    assert ids.tolist() == [[0, 1, 2], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
