# SPDX-License-Identifier: MIT
"""The fused engine steps on NumPy arrays (posenc.rope_into_cache, qk_norm_rope_into_cache,
qk_norm_rope) against a NumPy reference written here from the formulas, not from posenc:

    theta_i = base^(-2i/R);  pair i = (i, i + R/2) (half_split) or (2i, 2i + 1) (interleaved)
    a' = a cos(m theta_i) - b sin(m theta_i),   b' = b cos(m theta_i) + a sin(m theta_i)
    rms(x) = sqrt(mean(x^2) + eps);  x / rms(x) * w  or  * (1 + w)

computed in float64 and compared with the float32 results (bound: the kernels' stated error,
(n/2 + 9) 2^-24 |y| with the norm, a few 2^-24 |x| without; 2^-8 relative for bfloat16)."""
import numpy as np
import pytest

import posenc

HEAD_DIM = 64
BASE = 10000.0


def rope_reference(x, positions, pairing="half_split", rotary_dim=HEAD_DIM):
    """x [tokens, heads, head_dim] float64, rotated per token to positions[t]."""
    x = np.asarray(x, np.float64)
    out = x.copy()
    pairs = rotary_dim // 2
    theta = BASE ** (-2.0 * np.arange(pairs) / rotary_dim)
    angle = np.asarray(positions, np.float64)[:, None] * theta[None, :]  # [tokens, pairs]
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    if pairing == "half_split":
        first, second = np.arange(pairs), np.arange(pairs) + pairs
    else:
        first, second = 2 * np.arange(pairs), 2 * np.arange(pairs) + 1
    a, b = x[..., first], x[..., second]
    out[..., first] = a * cos - b * sin
    out[..., second] = b * cos + a * sin
    return out


def rms_norm_reference(x, w, eps, one_plus=False):
    x = np.asarray(x, np.float64)
    rms = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return x / rms * ((1.0 + w) if one_plus else w)


def to_bfloat16_bits(x):
    """float64 -> bfloat16 bits, rounded to nearest even (through float32, exact for these values)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bfloat16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


@pytest.fixture
def rng():
    return np.random.default_rng(20261206)


def spec_and_angles(pairing="half_split", reach=2**31 - 1):
    spec = posenc.RopeSpec(HEAD_DIM, HEAD_DIM, BASE, pairing)
    return spec, posenc.OnTheFlyAngles(posenc.FrequencyTable.from_spec(spec), reach)


def close(got, expected, scale, tolerance):
    assert np.max(np.abs(np.asarray(got, np.float64) - expected)) <= tolerance * scale


@pytest.mark.parametrize("pairing", ["half_split", "interleaved"])
def test_rope_into_cache_writes_rotated_k_copied_v_and_rotates_q(rng, pairing):
    spec, angles = spec_and_angles(pairing)
    tokens, slots = 5, 16
    k = rng.standard_normal((tokens, 2, HEAD_DIM)).astype(np.float32)
    v = rng.standard_normal((tokens, 2, HEAD_DIM)).astype(np.float32)
    q = rng.standard_normal((tokens, 4, HEAD_DIM)).astype(np.float32)
    positions = np.array([0, 5, 100, 2**24 + 3, 2**31 - 1], np.int64)
    slot_mapping = np.array([3, -1, 7, 0, 15], np.int64)
    key_cache = np.full((slots, 2, HEAD_DIM), 7.0, np.float32)
    value_cache = np.full((slots, 2, HEAD_DIM), 7.0, np.float32)
    q_expected = rope_reference(q, positions, pairing)
    out = posenc.rope_into_cache(spec, angles, k, key_cache, slot_mapping, positions, v=v, value_cache=value_cache, q=q)
    assert out is q
    k_expected = rope_reference(k, positions, pairing)
    for t, s in enumerate(slot_mapping):
        if s < 0:
            continue
        close(key_cache[s], k_expected[t], np.max(np.abs(k[t])), 2e-6)
        assert np.array_equal(value_cache[s], v[t])  # V is copied exactly
    close(q, q_expected, np.max(np.abs(q_expected)), 2e-6)
    untouched = np.setdiff1d(np.arange(slots), slot_mapping[slot_mapping >= 0])
    assert np.all(key_cache[untouched] == 7.0) and np.all(value_cache[untouched] == 7.0)


def test_rope_into_paged_cache_with_contiguous_positions(rng):
    spec, angles = spec_and_angles()
    k = rng.standard_normal((3, 1, HEAD_DIM)).astype(np.float32)
    cache = np.zeros((4, 8, 1, HEAD_DIM), np.float32)  # 4 blocks of 8 slots
    slot_mapping = np.array([9, 31, 0], np.int64)
    assert posenc.rope_into_cache(spec, angles, k, cache, slot_mapping, 1000) is None
    flat = cache.reshape(32, 1, HEAD_DIM)
    expected = rope_reference(k, [1000, 1001, 1002])
    for t, s in enumerate(slot_mapping):
        close(flat[s], expected[t], np.max(np.abs(k[t])), 2e-6)


@pytest.mark.parametrize("weighting", ["weight", "one_plus_weight"])
def test_qk_norm_rope_into_cache_normalises_before_rotating(rng, weighting):
    spec, angles = spec_and_angles()
    tokens = 4
    q = rng.standard_normal((tokens, 2, HEAD_DIM)).astype(np.float32) * 3
    k = rng.standard_normal((tokens, 1, HEAD_DIM)).astype(np.float32) * 0.5
    v = rng.standard_normal((tokens, 1, HEAD_DIM)).astype(np.float32)
    q_weight = rng.uniform(0.5, 1.5, HEAD_DIM).astype(np.float32)
    k_weight = rng.uniform(0.5, 1.5, HEAD_DIM).astype(np.float32)
    positions = np.array([7, 4096, 123456, 2**31 - 2], np.int64)
    slot_mapping = np.array([2, 0, 1, 3], np.int64)
    key_cache = np.zeros((4, 1, HEAD_DIM), np.float32)
    value_cache = np.zeros((4, 1, HEAD_DIM), np.float32)
    q_out = np.empty_like(q)
    one_plus = weighting == "one_plus_weight"
    eps = 1e-6
    result = posenc.qk_norm_rope_into_cache(spec, angles, k, key_cache, slot_mapping, positions, q_weight=q_weight,
                                            k_weight=k_weight, eps=eps, weighting=weighting, v=v,
                                            value_cache=value_cache, q=q, q_out=q_out)
    assert result is q_out
    q_expected = rope_reference(rms_norm_reference(q, q_weight, eps, one_plus), positions)
    k_expected = rope_reference(rms_norm_reference(k, k_weight, eps, one_plus), positions)
    bound = (HEAD_DIM / 2 + 9) * 2.0**-24
    close(q_out, q_expected, np.max(np.abs(q_expected)), bound)
    for t, s in enumerate(slot_mapping):
        close(key_cache[s], k_expected[t], np.max(np.abs(k_expected[t])), bound)
        assert np.array_equal(value_cache[s], v[t])  # V is not normalised


def test_qk_norm_rope_in_place_and_out_of_place(rng):
    spec, angles = spec_and_angles()
    q = rng.standard_normal((3, 2, HEAD_DIM)).astype(np.float32)
    k = rng.standard_normal((3, 1, HEAD_DIM)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, HEAD_DIM).astype(np.float32)
    positions = np.array([1, 2**20, 2**31 - 1], np.int64)
    q_expected = rope_reference(rms_norm_reference(q, w, 1e-6), positions)
    k_expected = rope_reference(rms_norm_reference(k, w, 1e-6), positions)
    q_out, k_out = np.empty_like(q), np.empty_like(k)
    got = posenc.qk_norm_rope(spec, angles, q, k, positions, q_weight=w, k_weight=w, q_out=q_out, k_out=k_out)
    assert got[0] is q_out and got[1] is k_out
    bound = (HEAD_DIM / 2 + 9) * 2.0**-24
    close(q_out, q_expected, np.max(np.abs(q_expected)), bound)
    close(k_out, k_expected, np.max(np.abs(k_expected)), bound)
    assert posenc.qk_norm_rope(spec, angles, q, None, positions, q_weight=w) is q  # in place, Q alone
    close(q, q_expected, np.max(np.abs(q_expected)), bound)


def test_bfloat16_cache_rounds_once(rng):
    spec = posenc.RopeSpec(HEAD_DIM, HEAD_DIM, BASE)
    table = posenc.FrequencyTable.from_spec(spec)  # a table: angles for this call's positions
    k_values = rng.standard_normal((2, 1, HEAD_DIM))
    k = to_bfloat16_bits(k_values)
    cache = np.zeros((2, 1, HEAD_DIM), np.uint16)
    positions = np.array([3, 65536], np.int64)
    posenc.rope_into_cache(spec, table, k, cache, np.array([1, 0], np.int64), positions, dtype="bfloat16")
    expected = rope_reference(from_bfloat16_bits(k), positions)
    # one rounding to bfloat16 (2^-9 relative) of a float result within a few 2^-24
    close(from_bfloat16_bits(cache[1]), expected[0], np.max(np.abs(expected[0])), 2.0**-8)
    close(from_bfloat16_bits(cache[0]), expected[1], np.max(np.abs(expected[1])), 2.0**-8)


def test_table_angles_reach_contiguous_positions(rng):
    """A FrequencyTable as angles: the angles are built for this call's positions (start + t)."""
    spec = posenc.RopeSpec(HEAD_DIM, HEAD_DIM, BASE)
    k = rng.standard_normal((3, 1, HEAD_DIM)).astype(np.float32)
    cache = np.zeros((3, 1, HEAD_DIM), np.float32)
    start = 2**31 - 3
    posenc.rope_into_cache(spec, posenc.FrequencyTable.from_spec(spec), k, cache, np.arange(3), start)
    close(cache, rope_reference(k, [start, start + 1, start + 2]), np.max(np.abs(k)), 2e-6)


def test_refusals_name_the_argument(rng):
    spec, angles = spec_and_angles()
    k = np.zeros((2, 1, HEAD_DIM), np.float32)
    cache = np.zeros((4, 1, HEAD_DIM), np.float32)
    slots = np.array([0, 1], np.int64)
    with pytest.raises(posenc.Error, match=r"^key_cache .* must be a NumPy array"):
        posenc.rope_into_cache(spec, angles, k, cache.tolist(), slots, 0)
    with pytest.raises(posenc.Error, match=r"^key_cache.dtype \"float64\" must be float32"):
        posenc.rope_into_cache(spec, angles, k, cache.astype(np.float64), slots, 0)
    with pytest.raises(posenc.Error, match=r"^slot_mapping.size 3 must equal the token count 2"):
        posenc.rope_into_cache(spec, angles, k, cache, np.array([0, 1, 2], np.int64), 0)
    with pytest.raises(posenc.Error, match=r"slot"):
        posenc.rope_into_cache(spec, angles, k, cache, np.array([0, 4], np.int64), 0)  # slot 4 of 4
    # float positions or slots would be truncated: refused, never converted
    with pytest.raises(posenc.Error, match=r"^positions .* 1-D array of integer position ids"):
        posenc.rope_into_cache(spec, angles, k, cache, slots, np.array([0.5, 1.5]))
    with pytest.raises(posenc.Error, match=r"^slot_mapping .* 1-D array of integer slots"):
        posenc.rope_into_cache(spec, angles, k, cache, np.array([0.0, 1.0]), 0)
    with pytest.raises(posenc.Error, match=r"^positions \"True\" must be an int or int64 ids, not a bool"):
        posenc.rope_into_cache(spec, angles, k, cache, slots, True)
    with pytest.raises(posenc.Error, match=r"^multi_axis .* must be a MultiAxisLayout"):
        posenc.rope_into_cache(spec, angles, k, cache, slots, np.zeros((3, 2), np.int64), multi_axis="mrope")
    posenc.rope_into_cache(spec, angles, k, cache, [0, 1], np.array([3, 4], np.int32))  # int32 and lists widen exactly
    with pytest.raises(posenc.Error, match=r"^value_cache \"given\" needs v"):
        posenc.rope_into_cache(spec, angles, k, cache, slots, 0, value_cache=cache.copy())
    with pytest.raises(posenc.Error, match=r"^weighting \"plus\" must be"):
        posenc.qk_norm_rope(spec, angles, k.copy(), q_weight=np.ones(HEAD_DIM, np.float32), weighting="plus")
    with pytest.raises(posenc.Error, match=r"weight"):
        posenc.qk_norm_rope(spec, angles, k.copy())  # no q_weight: the library refuses the missing weight


def test_multi_axis_positions_rotate_each_pair_at_its_axis(rng):
    """Qwen2.5-VL's M-RoPE sections [16, 24, 24]: pair i of token t turns by
    positions[axis_of_pair(i), t] * theta_i (the layout's pair_axes, read from the library only to
    say which axis a pair reads; the rotation is computed here)."""
    rope = posenc.presets.qwen2_5_vl_7b_rope()
    layout, group = rope.multi_axis, rope.groups[0]
    spec = group.spec
    head_dim, pairs = spec.head_dim, spec.num_pairs
    assert (head_dim, str(spec.pairing).split(".")[-1]) == (128, "half_split")
    axes = np.array(layout.pair_axes)
    assert list(np.bincount(axes)) == [16, 24, 24]
    tokens = 4
    positions = np.array([[0, 7, 7, 2**31 - 1], [0, 3, 9, 5], [0, 1, 2, 2**20]], np.int64)  # [axes, tokens]
    table = posenc.FrequencyTable.from_spec(spec)
    angles = posenc.OnTheFlyAngles(table)
    k = rng.standard_normal((tokens, 2, head_dim)).astype(np.float32)
    q = rng.standard_normal((tokens, 4, head_dim)).astype(np.float32)
    cache = np.zeros((8, 2, head_dim), np.float32)
    slots = np.array([4, 5, 6, 7], np.int64)
    theta = spec.base ** (-2.0 * np.arange(pairs) / spec.rotary_dim)
    angle = positions[axes, :].T.astype(np.float64) * theta  # [tokens, pairs]: pair i at its axis

    def reference(x):
        x = x.astype(np.float64)
        a, b = x[..., :pairs], x[..., pairs:]
        c, s = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
        return np.concatenate([a * c - b * s, b * c + a * s], axis=-1)

    q_expected, k_expected = reference(q), reference(k)
    posenc.rope_into_cache(spec, angles, k, cache, slots, positions, q=q, multi_axis=layout)
    close(cache[4:], k_expected, np.max(np.abs(k)), 2e-6)
    close(q, q_expected, np.max(np.abs(q_expected)), 2e-6)
    w = np.ones(head_dim, np.float32)
    q2 = rng.standard_normal((tokens, 1, head_dim)).astype(np.float32)
    expected = reference(rms_norm_reference(q2, w, 1e-6))
    posenc.qk_norm_rope(spec, angles, q2, None, positions, q_weight=w, multi_axis=layout)
    close(q2, expected, np.max(np.abs(expected)), (head_dim / 2 + 9) * 2.0**-24)
    with pytest.raises(posenc.Error, match=r"^positions.shape \"3x3\" must be 3x4"):
        posenc.rope_into_cache(spec, angles, k, cache, slots, positions[:, :3], multi_axis=layout)
