# SPDX-License-Identifier: MIT
# Every computable lesson number (docs/lessons.md) reproduced from Python. Expected values are the
# lessons' own numbers or closed forms from their text, the same independent values the C++ lesson
# tests use (tests/lessons/); the checked values come from the posenc module.
import math

import numpy as np
import pytest

import posenc
from posenc import encodings as enc


def alternating_content(dim, s):
    """+s, -s, +s, ...: RMS exactly s and orthogonal to the all-ones vector."""
    return np.array([s if i % 2 == 0 else -s for i in range(dim)], dtype=np.float64)


# ---------------------------------------------------------------- lesson C2-2

def test_c2_2_item1_content_is_1_over_37_of_the_position_signal_at_p_37():
    e = alternating_content(768, 1.0)
    x = enc.add_index_to_every_dim(e, 37)
    assert enc.root_mean_square(x - e) == 37.0
    assert enc.content_to_position_ratio(e, 37) == pytest.approx(1.0 / 37.0, rel=1e-15)
    assert enc.content_to_position_ratio(e, 37) * 100.0 == pytest.approx(2.7, rel=0.002)  # "2.7%"


def test_c2_2_item2_init_scale_002_is_2_percent_at_p_1():
    e = alternating_content(768, 0.02)
    assert enc.root_mean_square(e) == pytest.approx(0.02, rel=1e-15)
    assert enc.content_to_position_ratio(e, 1) == pytest.approx(0.02, rel=1e-15)


def test_c2_2_item3_and_0054_percent_at_p_37():
    e = alternating_content(768, 0.02)
    assert enc.content_to_position_ratio(e, 37) == pytest.approx(0.0005405405405405405, rel=1e-14)
    assert enc.content_to_position_ratio(0.02, 37) * 100.0 == pytest.approx(0.054, rel=0.002)  # "0.054%"


def test_c2_2_item4_cosine_of_e_plus_37_with_e_is_0027017():
    e = alternating_content(768, 1.0)
    cosine = enc.cosine_similarity(enc.add_index_to_every_dim(e, 37), e)
    assert cosine == pytest.approx(0.027017161347914959, rel=1e-14)  # mpmath 1/sqrt(1 + 37^2)
    assert cosine == pytest.approx(0.027017, rel=1e-4)


def test_c2_2_item5_after_rmsnorm_at_p_262143_the_vector_is_all_ones():
    p = 262143
    e = alternating_content(768, 1.0)
    normed = enc.rms_norm(enc.add_index_to_every_dim(e, p))
    cosine = enc.cosine_similarity(normed, np.ones(768))
    assert cosine > 0.999999
    assert cosine == pytest.approx(0.99999999999272398687, rel=1e-14)  # mpmath p / sqrt(1 + p^2)
    assert enc.root_mean_square(normed) == pytest.approx(1.0, rel=1e-12)
    assert enc.root_mean_square(normed - normed.mean()) == pytest.approx(3.81471181756798384e-6, rel=1e-9)


def test_c2_2_item6_neighbours_half_apart_in_3_tokens():
    assert enc.normalized_neighbour_gap(3) == 0.5
    assert [enc.normalized_index(t, 3) for t in range(3)] == [0.0, 0.5, 1.0]


def test_c2_2_item7_1_over_1023_in_1024_tokens_and_half_names_different_tokens():
    assert enc.normalized_neighbour_gap(1024) == pytest.approx(0.00097751710654936461, rel=1e-15)
    assert enc.normalized_neighbour_gap(1024) == pytest.approx(0.000978, rel=1e-3)
    assert enc.normalized_index(512, 1024) - enc.normalized_index(511, 1024) == pytest.approx(1 / 1023, rel=1e-12)
    assert enc.position_named_by(0.5, 3) == 1.0
    assert enc.position_named_by(0.5, 1024) == 511.5


def test_c2_2_item8_gpt2_learned_table_has_786432_parameters():
    table = enc.LearnedPositionTable.from_preset(posenc.presets.gpt2())
    assert (table.num_positions, table.dim) == (1024, 768)
    assert table.parameter_count() == 786432 == 1024 * 768
    assert posenc.presets.gpt2().learned_table_parameters() == 786432
    assert enc.LearnedPositionTable.parameter_count_of(1024, 768) == 786432


def test_c2_2_item9_no_row_for_1024_or_128_and_the_forced_run_reuses_row_127():
    gpt2 = enc.LearnedPositionTable.from_preset(posenc.presets.gpt2())
    gpt2.lookup(1023)
    with pytest.raises(posenc.Error) as e:
        gpt2.lookup(1024)
    assert str(e.value) == ("position 1024 must be < num_positions 1024 (the table has no row for it; "
                            "OutOfRange::clamp_to_last_row reuses row 1023)")
    weights = np.array([[r + c / 1000.0 for c in range(256)] for r in range(128)])
    with pytest.raises(posenc.Error, match="position 128 must be < num_positions 128"):
        enc.LearnedPositionTable(weights).lookup(128)
    forced = enc.LearnedPositionTable(weights, "clamp_to_last_row")
    for p in (0, 64, 127):
        assert np.array_equal(forced.lookup(p), weights[p])
    for p in (128, 300, 511):
        assert forced.row_for(p) == 127
        assert np.array_equal(forced.lookup(p), weights[127])
    x = forced.add_to(np.zeros((512, 256)))
    assert np.array_equal(x[128:], np.broadcast_to(weights[127], (384, 256)))


def test_c2_2_item10_qwen3_24_of_64_pairs_never_turn_within_32768():
    table = posenc.FrequencyTable.from_spec(posenc.presets.qwen3_8b().rope_spec())
    assert table.num_pairs == 64
    assert table.count_without_full_turn(32768) == 24
    assert table.pairs_without_full_turn(32768) == list(range(40, 64))
    # the README's acceptance line
    assert posenc.frequency_table(posenc.presets.qwen3_8b()).count_without_full_turn(32768) == 24


def test_c2_2_item11_qwen38_64_rotary_dims_and_10_of_32_pairs_never_turn_within_262144():
    spec = posenc.presets.qwen3_8_27b().rope_spec()
    assert spec.rotary_dim == 64
    assert posenc.RopeSpec.from_partial_rotary_factor(256, 0.25, 1e7).rotary_dim == 64
    table = posenc.FrequencyTable.from_spec(spec)
    assert table.num_pairs == 32
    assert table.count_without_full_turn(262144) == 10
    assert table.pairs_without_full_turn(262144) == list(range(22, 32))


def test_c2_2_timeline_gen0_nope_swapping_two_tokens_swaps_outputs_exactly():
    rng = np.random.default_rng(7)
    head = enc.SingleHeadAttention(rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 4)))
    sentence = rng.normal(size=(3, 4))  # "小明 打了 小王"
    swapped = enc.reorder_tokens(sentence, [2, 1, 0])
    out, out_swapped = head.forward(sentence), head.forward(swapped)
    assert np.array_equal(out_swapped[2], out[0])
    assert np.array_equal(out_swapped[1], out[1])
    assert np.array_equal(out_swapped[0], out[2])
    assert enc.permutation_equivariance_gap(head, sentence, [2, 1, 0]) == 0.0


def test_c2_2_timeline_gen1_sinusoidal_dot_product_depends_only_on_distance():
    d = 128
    pe = enc.SinusoidalEncoding(d)
    w = [10000.0 ** (-2 * i / d) for i in range(d // 2)]
    for distance in (0, 1, 3, 18, 500):
        expected = sum(math.cos(distance * wi) for wi in w)
        for p in (0, 7, 100, 12345, 1000000):
            assert pe.encode(p + distance) @ pe.encode(p) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_c2_2_timeline_gen1_added_sinusoidal_changes_with_a_shift_rope_does_not():
    d = 16
    rng = np.random.default_rng(3)
    wq, wk = rng.normal(size=(d, d)), rng.normal(size=(d, d))
    a, b = rng.normal(size=d), rng.normal(size=d)
    m, n, shift = 5, 2, 18
    pe = enc.SinusoidalEncoding(d)

    def sinusoidal(s):
        return ((a + pe.encode(m + s)) @ wq) @ ((b + pe.encode(n + s)) @ wk)

    assert abs(sinusoidal(shift) - sinusoidal(0)) > 0.1
    spec = posenc.RopeSpec.full(d, 10000.0)
    table = posenc.FrequencyTable.from_spec(spec)

    def rope(s):
        return posenc.apply_rope_reference(spec, table, a @ wq, m + s) @ posenc.apply_rope_reference(spec, table, b @ wk, n + s)

    assert rope(shift) == pytest.approx(rope(0), rel=1e-12)


# ---------------------------------------------------------------- lesson C2-5

def test_c2_5_item12_yarn_x4_qwen3_32768_to_131072_and_qwen38_262144_to_1048576():
    qwen3 = posenc.presets.qwen3_8b().scaling()
    assert isinstance(qwen3, posenc.YarnScaling)
    assert (qwen3.factor, qwen3.original_max_position_embeddings) == (4.0, 32768)
    assert qwen3.factor * qwen3.original_max_position_embeddings == 131072
    qwen38 = posenc.presets.qwen3_8_27b().scaling()
    assert (qwen38.factor, qwen38.original_max_position_embeddings) == (4.0, 262144)
    assert qwen38.factor * qwen38.original_max_position_embeddings == 1048576


def test_c2_5_item14_the_model_table():
    qwen3 = posenc.presets.find("qwen3-8b")
    assert qwen3.base == 1e6
    assert qwen3.rope_spec().rotary_dim == qwen3.rope_spec().head_dim == 128
    assert (qwen3.native_length, qwen3.extended_length) == (32768, 131072)
    qwen38 = posenc.presets.find("qwen3.8-27b")
    assert qwen38.base == 1e7
    assert (qwen38.rope_spec().rotary_dim, qwen38.rope_spec().head_dim) == (64, 256)
    assert (qwen38.native_length, qwen38.extended_length) == (262144, 1048576)
    deepseek = posenc.presets.find("deepseek-v4.1-flash")
    assert deepseek.base == 1e4
    assert (deepseek.rope_spec().rotary_dim, deepseek.rope_spec().head_dim) == (64, 512)
    assert (deepseek.native_length, deepseek.extended_length) == (65536, 16 * 65536)


def test_c2_5_item15_qwen3_fastest_pair_turns_more_than_5000_times():
    table = posenc.FrequencyTable.from_spec(posenc.presets.qwen3_8b().rope_spec())
    assert table.inv_freq[0] == 1.0
    assert table.turns(0, 32768) > 5000
    assert table.turns(0, 32768) == pytest.approx(32768 / (2 * math.pi), rel=1e-15)
    assert table.turns(0, 32768) == pytest.approx(5215.19, rel=1e-6)


def test_c2_5_item16_course_model_32_dims_and_10_of_16_pairs_never_turn_within_128():
    small = posenc.presets.find("course-small")
    assert small.d_model // small.num_heads == 32
    spec = small.rope_spec()
    assert (spec.head_dim, spec.base, small.native_length) == (32, 1e4, 128)
    table = posenc.FrequencyTable.from_spec(spec)
    assert table.num_pairs == 16
    assert table.count_without_full_turn(128) == 10
    assert table.pairs_without_full_turn(128) == list(range(6, 16))


def test_c2_5_item17_small_model_fastest_pair_turns_only_about_20_times():
    table = posenc.FrequencyTable.from_spec(posenc.presets.course_small().rope_spec())
    assert table.turns(0, 128) == pytest.approx(128 / (2 * math.pi), rel=1e-15)
    assert table.turns(0, 128) == pytest.approx(20.37, rel=1e-3)
    assert all(t < 32.0 for t in table.turns_within(128))


def test_c2_5_item17_small_model_under_yarn_x4_low_0_high_6_every_pair_from_1_interpolated():
    spec = posenc.presets.course_small().rope_spec()
    yarn = posenc.YarnScaling(4.0, 128)
    r = posenc.yarn_correction_range(spec, yarn)
    assert r.raw_low < 0.0 and r.low == 0.0 and r.high == 6.0
    d = posenc.extension_diagnostics(spec, yarn, 128, 512)
    assert d.summary.out_of_range_pairs == 0
    assert d.compressed_indices() == list(range(1, 16))
    assert d.pairs[0].compression == 1.0


def qwen3_x4(scaling):
    return posenc.extension_diagnostics(posenc.presets.qwen3_8b().rope_spec(), scaling, 32768, 131072)


def test_c2_5_item18_direct_extrapolation_the_24_pairs_reach_unseen_angles():
    d = qwen3_x4(posenc.NoScaling())
    assert d.summary.incomplete_pairs == 24
    assert d.summary.out_of_range_pairs == 24
    assert d.out_of_range_indices() == list(range(40, 64))
    assert d.summary.compressed_pairs == 0


def test_c2_5_item19_position_interpolation_0_out_of_range_and_every_step_shrinks_to_1_over_s():
    d = qwen3_x4(posenc.LinearScaling(4.0))
    assert d.summary.out_of_range_pairs == 0
    assert d.summary.compressed_pairs == 64
    assert all(p.compression == 0.25 for p in d.pairs)


def test_c2_5_item20_pi_bound_about_600x():
    llama = posenc.RopeSpec.full(128, 1e4)
    at_premise = 2 * 128 / posenc.pi_grid_coefficient(llama, "paper")
    assert at_premise == pytest.approx(64 * math.log(1e4), rel=1e-14)
    assert at_premise == pytest.approx(600, rel=0.02)
    assert posenc.pi_bound_ratio(llama, 0, 2048, "paper") > at_premise


def test_c2_5_item21_ntk_aware_base_4088994_24_and_23_pairs_still_out_of_range():
    spec = posenc.presets.qwen3_8b().rope_spec()
    assert posenc.ntk_aware_base(spec, posenc.NtkAwareScaling(4.0)) == pytest.approx(4088994.24, rel=2e-9)
    d = qwen3_x4(posenc.NtkAwareScaling(4.0))
    assert d.summary.out_of_range_pairs == 23
    assert d.out_of_range_indices() == list(range(40, 63))
    assert d.pairs[0].compression == 1.0
    assert d.pairs[-1].compression == pytest.approx(0.25, rel=1e-14)
    assert not d.pairs[-1].out_of_range


def test_c2_5_item22_yarn_ramp_low_23_high_40():
    spec = posenc.presets.qwen3_8b().rope_spec()
    yarn = posenc.presets.qwen3_8b().scaling()
    r = posenc.yarn_correction_range(spec, yarn)
    assert r.raw_low == pytest.approx(23.596, rel=1e-4)
    assert r.raw_high == pytest.approx(39.651, rel=1e-4)
    assert (r.low, r.high) == (23.0, 40.0)
    c = qwen3_x4(yarn).columns()["compression"]
    assert np.all(c[:24] == 1.0)
    assert np.allclose(c[40:], 0.25, rtol=1e-15, atol=0)
    assert np.all((c[24:40] < 1.0) & (c[24:40] > 0.25))


def test_c2_5_item23_yarn_0_out_of_range_and_no_safe_pair_compressed():
    d = qwen3_x4(posenc.presets.qwen3_8b().scaling())
    assert d.summary.out_of_range_pairs == 0
    safe = [p for p in d.pairs if p.turns_original >= 32.0]
    assert len(safe) == 24
    assert not any(p.compressed for p in safe)


def test_c2_5_item24_yarn_temperature_1138629_and_1277259():
    qwen3 = qwen3_x4(posenc.presets.qwen3_8b().scaling())
    assert qwen3.attention_factor == pytest.approx(1.138629, rel=1e-6)
    assert qwen3.attention_factor == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)
    ds = posenc.presets.deepseek_v4_1_flash()
    d = posenc.extension_diagnostics(ds.rope_spec(), ds.scaling(), 65536, 1048576)
    assert d.attention_factor == pytest.approx(1.277259, rel=1e-6)
    assert d.attention_factor ** 2 == pytest.approx((0.1 * math.log(16) + 1) ** 2, rel=1e-15)
    assert posenc.yarn_mscale(4.0) == pytest.approx(1.138629, rel=1e-6)


def test_c2_5_item25_deepseek_every_pair_turns_within_65536_slowest_period_47117_2():
    table = posenc.FrequencyTable.from_spec(posenc.presets.deepseek_v4_1_flash().rope_spec())
    assert table.num_pairs == 32
    assert table.count_without_full_turn(65536) == 0
    assert table.period(31) == pytest.approx(47117.2, rel=1e-6)
    assert table.period(31) == pytest.approx(2 * math.pi * 10000 ** (62 / 64), rel=1e-14)


def test_c2_5_item25_deepseek_direct_extrapolation_0_out_of_range():
    ds = posenc.presets.deepseek_v4_1_flash()
    d = posenc.extension_diagnostics(ds.rope_spec(), posenc.NoScaling(), 65536, 1048576)
    assert d.summary.incomplete_pairs == 0
    assert d.summary.out_of_range_pairs == 0


def test_c2_5_item26_roformer_bound_16_5_at_0_and_larger_base_decays_later():
    previous = -1
    for base in (1e4, 1e6, 1e7):
        table = posenc.FrequencyTable.from_spec(posenc.RopeSpec.full(64, base))
        assert posenc.roformer_relative_bound(table, 0.0) == 16.5
        half = posenc.first_distance_below(table, 16.5 / 2, 1000)
        assert half is not None and half > previous
        previous = half


# ---------------------------------------------------------------- side lesson

TEN_DEGREES = math.radians(10)
Q2 = np.array([1.0, 0.5])
K2 = np.array([0.8, -0.3])


def ten_degree():
    return posenc.RopeSpec(2, 2, 10000.0, "interleaved"), posenc.FrequencyTable([TEN_DEGREES])


def rotated(v, position):
    spec, table = ten_degree()
    return posenc.rotation_matrix(spec, table, position) @ v


def expected_dot_at_minus_30():
    c, s = math.sqrt(3) / 2, 0.5  # cos and sin of 30 degrees
    rk = np.array([c * K2[0] + s * K2[1], -s * K2[0] + c * K2[1]])
    return Q2 @ rk


def angle_of(v):
    return math.atan2(v[1], v[0])


def test_side_item29_k_at_2_turns_20_q_at_5_turns_50():
    assert posenc.reduced_angle(2, TEN_DEGREES) == pytest.approx(math.radians(20), rel=1e-15)
    assert posenc.reduced_angle(5, TEN_DEGREES) == pytest.approx(math.radians(50), rel=1e-15)
    assert angle_of(rotated(K2, 2)) - angle_of(K2) == pytest.approx(math.radians(20), rel=1e-14)
    assert angle_of(rotated(Q2, 5)) - angle_of(Q2) == pytest.approx(math.radians(50), rel=1e-14)


def test_side_item30_shift_by_18_leaves_the_rotated_dot_product_unchanged():
    assert posenc.reduced_angle(20, TEN_DEGREES) == pytest.approx(math.radians(200 - 360))
    assert posenc.reduced_angle(23, TEN_DEGREES) == pytest.approx(math.radians(230 - 360))
    before = rotated(Q2, 5) @ rotated(K2, 2)
    after = rotated(Q2, 23) @ rotated(K2, 20)
    assert before == pytest.approx(expected_dot_at_minus_30(), rel=1e-14)
    assert after == pytest.approx(expected_dot_at_minus_30(), rel=1e-14)


def test_side_item31_rotated_q_at_5_and_at_23_are_different_vectors():
    q5, q23 = rotated(Q2, 5), rotated(Q2, 23)
    assert np.linalg.norm(q23 + q5) < 1e-14  # 18 positions = 180 degrees
    assert np.linalg.norm(q23 - q5) == pytest.approx(2 * np.linalg.norm(Q2), rel=1e-14)


@pytest.mark.parametrize("pairing", ["half_split", "interleaved"])
def test_side_item32_relative_form_also_for_the_block_diagonal_matrix(pairing):
    for m in (0, 5, 23, 1000):
        for n in (0, 2, 20, 999):
            lhs = rotated(Q2, m) @ rotated(K2, n)
            rhs = Q2 @ (posenc.rotation_2x2((n - m) * TEN_DEGREES) @ K2)
            assert lhs == pytest.approx(rhs, rel=1e-13, abs=1e-15)
    spec = posenc.RopeSpec(128, 128, 1e6, pairing)
    table = posenc.FrequencyTable.from_spec(spec)
    qv = np.linspace(-1.0, 1.0, 128)
    kv = np.sin(np.linspace(0.5, -0.7, 128))
    m, n = 5, 2
    lhs = (posenc.rotation_matrix(spec, table, m) @ qv) @ (posenc.rotation_matrix(spec, table, n) @ kv)
    rhs = qv @ (posenc.rotation_matrix(spec, table, n - m) @ kv)
    assert lhs == pytest.approx(rhs, rel=1e-13)
    shifted = (posenc.rotation_matrix(spec, table, m + 18) @ qv) @ (posenc.rotation_matrix(spec, table, n + 18) @ kv)
    assert shifted == pytest.approx(lhs, rel=1e-13)
