# SPDX-License-Identifier: MIT
# The rest of the module: errors, specs, scalings (against their formulas written here in Python),
# bounds (the papers' numbers), presets, the config reader, docstrings.
import json
import math
import pathlib

import numpy as np
import pytest

import posenc

CONFIGS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "configs"


# ---------------------------------------------------------------- errors

def test_library_errors_are_posenc_error_with_the_same_message_and_its_parts():
    with pytest.raises(posenc.Error) as e:
        posenc.RopeSpec(128, 127, 1e4)
    assert str(e.value) == "rotary_dim 127 must be even"
    assert (e.value.field, e.value.value, e.value.rule) == ("rotary_dim", "127", "must be even")
    assert isinstance(e.value, ValueError)
    with pytest.raises(posenc.Error, match=r"^linear.factor 0.5 must be >= 1 and finite in float32$"):
        posenc.LinearScaling(0.5)
    with pytest.raises(posenc.Error, match=r"^pair 64 must be in \[0, 64\)$"):
        posenc.FrequencyTable.from_spec(posenc.RopeSpec.full(128, 1e4)).period(64)
    with pytest.raises(posenc.Error, match="Pairing \"diagonal\" is not one of half_split, interleaved"):
        posenc.Pairing("diagonal")
    # An unknown name where an enumeration is expected: the names and the nearest one, as
    # posenc-inspect suggests (within max(1, len / 5) edits; case and '-' / '_' free).
    with pytest.raises(posenc.Error, match=r"^Pairing \"diagonal\" is not one of half_split, interleaved$"):
        posenc.RopeSpec(8, 8, 1e4, "diagonal")
    with pytest.raises(posenc.Error, match=r"is not one of half_split, interleaved \(did you mean interleaved\?\)$"):
        posenc.RopeSpec(8, 8, 1e4, "interleavd")
    with pytest.raises(posenc.Error, match=r"\(did you mean hf_float32\?\)$"):
        posenc.frequency_table(posenc.RopeSpec(8, 8, 1e4), precision="HF-float32x")
    assert posenc.RopeSpec(8, 8, 1e4, "interleaved").pairing == posenc.Pairing.interleaved


# ---------------------------------------------------------------- specs and tables

def test_spec_and_table_follow_roformer_eq_15():
    spec = posenc.RopeSpec(100, 28, 1e4, "interleaved")
    assert (spec.num_pairs, spec.pass_through_dim, spec.pairing) == (14, 72, posenc.Pairing.interleaved)
    assert spec.pair_coordinates(3) == (6, 7)
    assert posenc.RopeSpec(8, 8, 1e4).pair_coordinates(1) == (1, 5)
    assert posenc.RopeSpec.from_partial_rotary_factor(100, 0.29, 1e4).rotary_dim == 28  # int(28.999...)
    table = posenc.FrequencyTable.from_spec(spec)
    expected = np.array([1e4 ** (-2 * i / 28) for i in range(14)])
    assert np.allclose(table.inv_freq, expected, rtol=1e-15, atol=0)
    assert np.allclose(table.periods(), 2 * math.pi / expected, rtol=1e-15)
    assert posenc.inv_freq(spec, 5) == pytest.approx(1e4 ** (-10 / 28), rel=1e-15)
    assert spec == posenc.RopeSpec(100, 28, 1e4, posenc.Pairing.interleaved)


def test_reduced_angle_is_exact_where_float32_is_not():
    # 1e6 rad mod 2 pi, from the exact integer: 1e6 - 159155 * 2 pi (mpmath: -0.39269829...)
    assert posenc.reduced_angle(1_000_000, 1.0) == pytest.approx(1e6 - 159155 * 2 * math.pi, abs=1e-9)
    table = posenc.FrequencyTable([1.0])
    exact = posenc.rotation_angle(table, 1_000_000, 0, "exact")
    hf = posenc.rotation_angle(table, 1_000_000, 0, "hf_float32")
    assert exact == hf  # 1e6 is a float32 integer: both angles are the same number here
    c, s = posenc.cos_sin(10, math.radians(9), 2.0)
    assert (c, s) == pytest.approx((0.0, 2.0), abs=1e-14)


# ---------------------------------------------------------------- scalings

def test_scalings_accept_keywords_and_report_parameters():
    yarn = posenc.YarnScaling(32, 4096, beta_fast=32, beta_slow=1, rounding="fractional")
    assert yarn.rounding == posenc.YarnCorrectionRounding.fractional
    assert yarn.parameters()["truncate"] is False
    assert posenc.scaling_type_name(yarn) == "yarn" == posenc.YarnScaling.type_name
    assert posenc.scaling_original_length(posenc.LinearScaling(2)) is None
    assert "Scaling('linear', factor=2)" == repr(posenc.LinearScaling(2))
    assert posenc.scaling_factor(posenc.NoScaling()) == 1.0


def test_yarn_inv_freq_matches_hf_formula_written_here():
    spec = posenc.presets.qwen3_8b().rope_spec()
    s, L0, R, b = 4.0, 32768, 128, 1e6

    def correction_dim(r):
        return (R * math.log(L0 / (r * 2 * math.pi))) / (2 * math.log(b))

    low, high = max(math.floor(correction_dim(32)), 0), min(math.ceil(correction_dim(1)), R - 1)
    expected = []
    for j in range(R // 2):
        theta = b ** (-2 * j / R)
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        expected.append(theta * (1 - ramp) + theta / s * ramp)
    got = posenc.yarn_inv_freq(spec, posenc.YarnScaling(s, L0))
    assert np.allclose(got, expected, rtol=1e-14, atol=0)
    assert posenc.yarn_attention_factor(posenc.YarnScaling(s, L0)) == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)
    table = posenc.frequency_table(spec, posenc.YarnScaling(s, L0))
    assert np.array_equal(table.inv_freq, got)


def test_llama3_bands_match_the_formula_written_here():
    spec = posenc.presets.llama_3_1_8b().rope_spec()
    llama = posenc.presets.llama_3_1_8b().scaling()
    bands = []
    for j in range(64):
        wavelength = 2 * math.pi / 5e5 ** (-2 * j / 128)
        bands.append("kept" if wavelength < 8192 / 4 else "divided" if wavelength > 8192 / 1 else "smoothed")
    assert [b.name for b in posenc.llama3_bands(spec, llama)] == bands
    assert bands.count("kept") == 29 and bands.count("smoothed") == 6  # 0-28 kept, 29-34 smoothed


def test_dynamic_ntk_base_from_hf_formula_and_sequence_length_tables():
    spec = posenc.RopeSpec.full(128, 1e4)
    dyn = posenc.DynamicNtkScaling(2.0, 4096)
    for n in (4097, 8192, 16384):
        expected = 1e4 * ((2.0 * n / 4096) - 1.0) ** (128 / 126)
        assert posenc.dynamic_ntk_base(spec, dyn, n) == pytest.approx(expected, rel=1e-14)
    at_init = posenc.frequency_table(spec, dyn)
    at_8k = posenc.frequency_table(spec, dyn, sequence_length=8192)
    assert np.array_equal(at_init.inv_freq, posenc.FrequencyTable.from_spec(spec).inv_freq)
    assert at_8k.inv_freq[-1] < at_init.inv_freq[-1]


def test_longrope_attention_factor_phi3():
    scaling = posenc.presets.phi_3_mini_128k().scaling()
    assert posenc.scaling_attention_factor(scaling) == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)),
                                                                     rel=1e-15)
    assert math.sqrt(17 / 12) == pytest.approx(posenc.longrope_attention_factor(scaling), rel=1e-15)


# ---------------------------------------------------------------- bounds

def test_roformer_pi_and_men_bounds_reproduce_the_papers():
    table = posenc.FrequencyTable.from_spec(posenc.RopeSpec.full(64, 1e4))
    # U(r) = (1/P) sum_j |sum_{k<j} e^{i r theta_k}| written here
    theta = [1e4 ** (-2 * k / 64) for k in range(32)]

    def u(r):
        partial, total = 0j, 0.0
        for t in theta:
            partial += complex(math.cos(r * t), math.sin(r * t))
            total += abs(partial)
        return total / 32

    for r in (0, 10, 123.5):
        assert posenc.roformer_relative_bound(table, r) == pytest.approx(u(r), rel=1e-12)
    distances, bounds = posenc.roformer_bound_curve(table, 0, 100, 11)
    assert list(distances) == [10.0 * i for i in range(11)] and bounds[0] == 16.5
    llama = posenc.RopeSpec.full(128, 1e4)
    assert posenc.pi_grid_coefficient(llama, "paper") == pytest.approx(128 / (32 * math.log(1e4)), rel=1e-15)
    assert posenc.pi_grid_coefficient(llama, "corrected") == pytest.approx(
        (1 - 1e4 ** -2) / (8 * (1 - 1e4 ** (-4 / 128))), rel=1e-12)
    assert posenc.similarity_margin(posenc.FrequencyTable.from_spec(llama), 0) == 64
    # Men et al. 2024 (paper-level number): base 27,000 reaches 4,078 tokens, not 4,096.
    assert posenc.max_context_length(posenc.FrequencyTable.from_spec(posenc.RopeSpec.full(128, 27000.0)), 8192) == 4078


# ---------------------------------------------------------------- presets and tables

def test_presets_and_frequency_table_forms():
    names = posenc.presets.names()
    assert "qwen3-8b" in names and len(posenc.presets.all()) == len(names)
    preset = posenc.presets.qwen3_8b()
    assert preset.name == "qwen3-8b" and preset.pairing == posenc.Pairing.half_split
    native = posenc.frequency_table(preset)
    shipped = preset.table()
    assert native.attention_factor == 1.0
    assert shipped.attention_factor == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)
    assert np.array_equal(posenc.frequency_table(preset, preset.scaling()).inv_freq, shipped.inv_freq)
    with pytest.raises(posenc.Error, match="is not a known preset"):
        posenc.presets.find("gpt-5")
    with pytest.raises(posenc.Error, match="uses a learned position table"):
        posenc.presets.gpt2().rope_spec()
    import posenc.presets as presets_module  # an importable submodule
    assert presets_module.course_small().head_dim == 32


def test_diagnostics_columns_are_arrays_for_plotting():
    d = posenc.extension_diagnostics(posenc.presets.qwen3_8b().rope_spec(), posenc.NoScaling(), 32768, 131072)
    columns = d.columns()
    assert columns["out_of_range"].dtype == np.bool_
    assert list(np.flatnonzero(columns["out_of_range"])) == list(range(40, 64))
    assert np.allclose(columns["turns_original"], 32768 * columns["inv_freq_original"] / (2 * math.pi), rtol=1e-15)


# ---------------------------------------------------------------- the config reader

def test_from_hf_config_reads_a_path_and_a_dict_alike():
    path = CONFIGS / "deepseek-v3.json"
    from_path = posenc.from_hf_config(path)
    from_dict = posenc.from_hf_config(json.loads(path.read_text()))
    from_text = posenc.parse_hf_config(path.read_text())
    for model in (from_path, from_dict, from_text):
        assert model.spec == posenc.RopeSpec(64, 64, 1e4, "interleaved")
        assert isinstance(model.scaling, posenc.YarnScaling)
        assert model.qk_head_dim == 192
        # DeepSeek's softmax scale, HF's order: 192 ** -0.5 * g(40, 1) ** 2, g(s, m) = 0.1 m ln s + 1
        assert model.softmax_scale() == pytest.approx(192 ** -0.5 * (0.1 * math.log(40) + 1) ** 2, rel=1e-15)
    qwen = posenc.from_hf_config(str(CONFIGS / "qwen3-8b-yarn.json"))
    assert qwen.table().count_without_full_turn(32768) > 24  # YaRN interpolates pairs 24..63
    assert posenc.frequency_table(qwen).count_without_full_turn(32768) == 24


def test_config_errors_name_the_key_path():
    with pytest.raises(posenc.Error, match=r"rope_scaling\.factor"):
        posenc.from_hf_config({"head_dim": 128, "num_attention_heads": 32, "hidden_size": 4096,
                               "max_position_embeddings": 4096,
                               "rope_scaling": {"rope_type": "linear", "factor": "four"}})
    with pytest.raises(posenc.Error):
        posenc.from_hf_config(CONFIGS / "no-such-config.json")


def test_an_unknown_model_type_is_refused_unless_half_split_is_assumed():
    config = {"model_type": "brand_new_lm", "hidden_size": 1024, "num_attention_heads": 8}
    with pytest.raises(posenc.Error, match=r"^model_type: expected a model type posenc knows"):
        posenc.from_hf_config(config)
    with pytest.raises(posenc.Error, match=r"assume_half_split"):
        posenc.parse_hf_config(json.dumps(config))
    model = posenc.from_hf_config(config, assume_half_split=True)
    assert model.spec == posenc.RopeSpec(128, 128, 1e4, "half_split")
    assert [w.key for w in model.warnings] == ["model_type"]
    whole = posenc.model_from_hf_config(config, assume_half_split=True)
    assert whole.rope.primary_group().spec == model.spec
    with pytest.raises(posenc.Error, match=r"^model_type: expected a model type posenc knows"):
        posenc.parse_hf_model(json.dumps(config))


# ---------------------------------------------------------------- docstrings

def test_help_teaches_the_formulas():
    assert "theta'_j = theta_j (1 - ramp_j) + (theta_j / s) ramp_j" in posenc.yarn_inv_freq.__doc__
    assert "b' = b s^(R / (R - 2))" in posenc.NtkAwareScaling.__doc__
    assert "a' = a c - b s" in posenc.apply_rope.__doc__
    assert "base^(-2i/rotary_dim)" in posenc.inv_freq.__doc__


def test_whole_model_carries_head_counts_and_rms_norm_eps_from_the_published_config():
    # gemma-3-1b-it config.json: hidden_size 1152, 4 heads, 1 key-value head, rms_norm_eps 1e-06
    model = posenc.model_from_hf_config(CONFIGS / "gemma-3-1b-it.json")
    assert model.num_attention_heads == 4
    assert model.num_key_value_heads == 1
    assert model.hidden_size == 1152
    assert model.rms_norm_eps == 1e-6
    # the test file has no rms_norm_eps: LlamaConfig's class default 1e-6 (llama/configuration_llama.py)
    assert posenc.model_from_hf_config(CONFIGS / "llama-3.1-8b.json").rms_norm_eps == 1e-6
    # a model_type read under the half_split opt-in has no class: nothing filled in
    unknown = posenc.model_from_hf_config({"model_type": "brand_new_lm", "head_dim": 64}, assume_half_split=True)
    assert unknown.rms_norm_eps is None and unknown.hidden_size is None
