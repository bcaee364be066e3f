# SPDX-License-Identifier: MIT
"""posenc.DynamicNtkSwitch: transformers' dynamic NTK table switching, against the rule restated
here from transformers' modeling_rope_utils.py (dynamic_frequency_update), not from posenc."""
import pytest

import posenc


def transformers_rule(original, lengths):
    """(cached length, table length or None) after each pass: growth when n > cached (the table
    recomputed at n), reset when n < L and the cached length read before the pass exceeds L."""
    cached, out = original, []
    for n in lengths:
        before = cached
        if n > before:
            cached = n
        if n < original and before > original:
            cached = original
        out.append((cached, cached if cached > original else None))
    return out


LENGTHS = [100, 4096, 4097, 5000, 4500, 4096, 4095, 8192, 10, 3000, 9000, 9000, 4096, 2**31 - 1, 1]


def test_switch_follows_transformers_rule():
    rule = posenc.DynamicNtkSwitch(4096)
    assert (rule.cached_length, rule.table_length) == (4096, None)
    for n, expected in zip(LENGTHS, transformers_rule(4096, LENGTHS)):
        assert rule.update(n) == expected[1], n
        assert (rule.cached_length, rule.table_length) == expected, n


def test_hand_computed_trace():
    rule = posenc.DynamicNtkSwitch(2048)
    assert [rule.update(n) for n in (2048, 2049, 3000, 2048, 2047, 1)] == [None, 2049, 3000, 3000, None, None]


def test_table_in_effect_is_dynamic_ntk_at_the_switch_length():
    spec = posenc.RopeSpec(128, 128, 10000.0)
    scaling = posenc.DynamicNtkScaling(2.0, 4096)
    rule = posenc.DynamicNtkSwitch(4096)
    rule.update(8192)
    length = rule.update(6000)  # no growth: the 8192 table stays
    assert length == 8192
    # b' = b (s n / L - (s - 1))^(R / (R - 2)) at n = 8192: 1e4 * 3^(128/126); theta_1 = b'^(-2/128)
    expected = (1e4 * 3 ** (128 / 126)) ** (-2 / 128)
    table = posenc.frequency_table(spec, scaling, length)
    assert table.inv_freq[1] == pytest.approx(expected, rel=1e-14)


def test_refusals_name_the_field():
    with pytest.raises(posenc.Error, match=r"^dynamic.original_length 0 must be > 0"):
        posenc.DynamicNtkSwitch(0)
    rule = posenc.DynamicNtkSwitch(16)
    rule.update(40)
    with pytest.raises(posenc.Error, match=r"^sequence_length 0 must be > 0"):
        rule.update(0)
    assert rule.cached_length == 40
