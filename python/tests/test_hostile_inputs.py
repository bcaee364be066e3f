# SPDX-License-Identifier: MIT
# Hostile input from Python: every refusal is a posenc.Error naming the field, the value and the
# rule (docs/python.md, "Errors"; docs/errors.md, "Python"), never a crash, a hang, a silent NaN or
# infinity, a wrong result or another exception type. Expected behaviour comes from the documented
# rules: the exact angle reduction's range (|m| <= 2^53, |m theta| <= 2^50, posenc/angles.hpp),
# "anything else is refused, never copied silently" for apply_rope's arrays, and the config
# reader's own rules (nesting <= 64 levels, files <= 16 MiB, JSON values only).
import json
import math
import os
import pickle

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import posenc

NAN, INF = float("nan"), float("inf")


def spec_and_table(head_dim=8, base=1e4):
    spec = posenc.RopeSpec.full(head_dim, base)
    return spec, posenc.FrequencyTable.from_spec(spec)


def refusal(match, call):
    """The posenc.Error `call` raises, with the three documented parts set."""
    with pytest.raises(posenc.Error, match=match) as info:
        call()
    e = info.value
    assert e.field and e.value and e.rule, (e.field, e.value, e.rule)
    assert str(e)
    return e


def reference_batch(spec, table, x, start=0):
    """Each batch element rotated alone by apply_rope_reference (double), back in x's dtype."""
    out = np.empty(x.shape, dtype=np.float64)
    for b in range(x.shape[0]):
        for t in range(x.shape[1]):
            for h in range(x.shape[2]):
                out[b, t, h] = posenc.apply_rope_reference(spec, table, x[b, t, h].astype(np.float64), start + t)
    return out


# ---------------------------------------------------------------- angles: the exact reduction's range

@pytest.mark.parametrize("position", [2 ** 53 + 1, 2 ** 62, -(2 ** 63), 2 ** 63 - 1])
def test_positions_beyond_2_53_are_refused_not_reduced_wrongly(position):
    spec, table = spec_and_table()
    e = refusal(r"^position -?\d+ must be in \[-2\^53, 2\^53\]", lambda: posenc.reduced_angle(position, 1e-9))
    assert e.field == "position" and e.value == str(position)
    refusal(r"^position ", lambda: posenc.cos_sin(position, 1e-9))
    refusal(r"^position ", lambda: posenc.table_cos_sin(table, position, 0))
    refusal(r"^position ", lambda: posenc.table_cos_sin(table, position, 0, "hf_float32"))
    refusal(r"^position ", lambda: posenc.rotation_angle(table, position, 0))
    refusal(r"^position ", lambda: posenc.rotation_matrix(spec, table, position))
    refusal(r"^position ", lambda: posenc.apply_rope_reference(spec, table, np.ones(8), position))
    layout = posenc.MultiAxisLayout.sections([1, 1, 2], 4)
    refusal(r"^positions\[1\] ", lambda: posenc.apply_multi_axis_rope_reference(spec, table, layout, np.ones(8),
                                                                               [0, position, 0]))
    refusal(r"^distance ", lambda: posenc.similarity_margin(table, position))


def test_angles_beyond_2_50_are_refused():
    spec, table = spec_and_table()  # theta_0 = 1
    # 2^50 + 1 tokens at theta = 1 rad/token: within 2^53 but past the angle range
    e = refusal(r"must keep \|position \* inv_freq\| <= 2\^50", lambda: posenc.table_cos_sin(table, 2 ** 50 + 1, 0))
    assert e.field == "position"
    refusal(r"inv_freq 1e\+300", lambda: posenc.reduced_angle(1, 1e300))
    refusal(r"^distance ", lambda: posenc.similarity_margin(table, 2 ** 51))
    # the edge itself is served, and agrees with the reduction of the same angle
    assert posenc.rotation_angle(table, 2 ** 50, 0) == posenc.reduced_angle(2 ** 50, 1.0)
    assert math.isfinite(posenc.similarity_margin(table, 2 ** 50))


@pytest.mark.parametrize("bad", [NAN, INF, -INF])
def test_non_finite_arguments_never_come_back_as_nan_or_inf(bad):
    spec, table = spec_and_table()
    refusal(r"^inv_freq ", lambda: posenc.reduced_angle(5, bad))
    refusal(r"^inv_freq ", lambda: posenc.cos_sin(5, bad))
    refusal(r"^attention_factor ", lambda: posenc.cos_sin(5, 1.0, bad))
    refusal(r"^phi ", lambda: posenc.rotation_2x2(bad))
    refusal(r"^inv_freq ", lambda: posenc.period_of(bad))
    refusal(r"^inv_freq ", lambda: posenc.turns_of(bad, 10))
    refusal(r"^length ", lambda: posenc.turns_of(1.0, bad))
    refusal(r"^length ", lambda: table.turns(0, bad))
    refusal(r"^length ", lambda: table.completes_turn(0, bad))
    refusal(r"^length ", lambda: table.turns_within(bad))
    refusal(r"^length ", lambda: table.pairs_without_full_turn(bad))
    refusal(r"^length ", lambda: table.count_without_full_turn(bad))
    refusal(r"^scale ", lambda: posenc.yarn_mscale(bad))
    refusal(r"^mscale ", lambda: posenc.yarn_mscale(4.0, bad))
    refusal(r"^num_rotations ", lambda: posenc.yarn_correction_dim(spec, bad, 4096))


def test_negative_or_zero_where_the_formula_needs_positive():
    spec, table = spec_and_table()
    refusal(r"^inv_freq -1 must be finite and >= 0", lambda: posenc.period_of(-1.0))
    refusal(r"^length -1 must be finite and >= 0", lambda: table.pairs_without_full_turn(-1))
    refusal(r"^attention_factor 0 must be finite and > 0", lambda: posenc.cos_sin(1, 1.0, 0.0))
    refusal(r"^num_rotations 0 must be finite and > 0", lambda: posenc.yarn_correction_dim(spec, 0.0, 4096))
    refusal(r"^original_length 0 must be > 0", lambda: posenc.yarn_correction_dim(spec, 1.0, 0))
    refusal(r"^scale 0 must be finite and > 0", lambda: posenc.yarn_mscale(0.0))
    assert posenc.period_of(0.0) == INF  # documented: a zero frequency never turns
    assert posenc.yarn_mscale(4.0) == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)


def test_finite_inputs_give_finite_results_or_are_refused_never_inf_or_nan():
    enc = posenc.encodings
    huge = np.full(2, 1e200)  # finite, but its squares are not
    # the library scales by the largest entry before squaring: the RMS itself is representable
    assert enc.root_mean_square(huge) == 1e200
    assert enc.content_to_position_ratio(huge, 4) == pytest.approx(0.25e200, rel=1e-15)
    assert enc.cosine_similarity(huge, np.ones(2)) == pytest.approx(1.0, rel=1e-15)
    assert np.allclose(enc.rms_norm(huge), [1.0, 1.0], rtol=1e-15, atol=0.0)
    attention = enc.SingleHeadAttention(np.eye(2), np.eye(2), np.eye(2))
    refusal(r"^x 3x2 must keep the logits", lambda: attention.forward(np.full((3, 2), 1e300)))
    refusal(r"^x 3x2 must keep the logits", lambda: attention.logits(np.full((3, 2), 1e300)))
    refusal(r"^x 3x2 must keep the logits",
            lambda: attention.logits(np.full((3, 2), 1e300), enc.causal_mask(3)))
    assert np.isneginf(attention.logits(np.ones((3, 2)), enc.causal_mask(3))[0, 1])  # a masked key stays -inf
    refusal(r"^x 3x2 must keep X W_q finite", lambda: enc.SingleHeadAttention(
        np.full((2, 2), 1e300), np.eye(2), np.eye(2)).queries(np.full((3, 2), 1e300)))
    # ordinary values are untouched
    assert enc.root_mean_square(np.array([3.0, 4.0])) == pytest.approx(math.sqrt(12.5), rel=1e-15)
    assert np.all(np.isfinite(attention.forward(np.ones((3, 2)), "causal")))


# ---------------------------------------------------------------- enumerations

def test_an_integer_that_names_no_enumerator_is_refused():
    for enum, value in ((posenc.Pairing, 5), (posenc.Direction, 2), (posenc.Precision, -1), (posenc.PiCoefficient, 7)):
        e = refusal(r"is not one of", lambda: enum(value))
        assert e.value == str(value)
    assert posenc.Direction(1) == posenc.Direction.inverse
    assert posenc.Pairing("interleaved") == posenc.Pairing.interleaved
    for e in (posenc.Pairing.interleaved, posenc.Direction.inverse, posenc.Precision.hf_float32):
        assert pickle.loads(pickle.dumps(e)) == e


def test_a_hostile_pickle_state_is_a_posenc_error():
    spec = posenc.RopeSpec(64, 32, 1e4, "interleaved")
    assert pickle.loads(pickle.dumps(spec)) == spec
    blank = posenc.RopeSpec.__new__(posenc.RopeSpec)
    refusal(r"^RopeSpec.__setstate__ .* must be a tuple", lambda: blank.__setstate__((64,)))
    refusal(r"^RopeSpec.__setstate__ .* must be a tuple", lambda: blank.__setstate__(("64", 64, 1e4, 0)))
    refusal(r"^rotary_dim 63 must be even", lambda: blank.__setstate__((64, 63, 1e4, posenc.Pairing.half_split)))


# ---------------------------------------------------------------- apply_rope: positions

def test_positions_that_are_no_int64_or_a_bool_are_refused():
    spec, table = spec_and_table()
    cache = posenc.CosSinCache(table, 16)
    q = np.ones((4, 2, 8), np.float32)
    e = refusal(r"^positions\.start 9223372036854775808 must fit in int64", lambda: posenc.apply_rope(spec, cache, q, positions=2 ** 63))
    assert e.field == "positions.start"
    refusal(r"^positions\.start -9223372036854775809 must fit in int64",
            lambda: posenc.apply_rope(spec, table, q, positions=-(2 ** 63) - 1))
    refusal(r"^positions True must be an int", lambda: posenc.apply_rope(spec, cache, q, positions=True))
    # the int64 ends: refused by the angle source's range, without overflow on the way
    refusal(r"^positions\.start 9223372036854775807 must be in", lambda: posenc.apply_rope(spec, table, q, positions=2 ** 63 - 1))
    refusal(r"^positions\.start -9223372036854775808 must be in", lambda: posenc.apply_rope(spec, table, q, positions=-(2 ** 63)))
    assert np.array_equal(q, np.ones((4, 2, 8), np.float32))  # nothing written by any refusal


# ---------------------------------------------------------------- apply_rope: arrays

@pytest.mark.parametrize("shape", [(0, 2, 8), (0, 4, 2, 8), (2, 0, 2, 8)])
def test_arrays_without_tokens_are_a_no_op(shape):
    spec, table = spec_and_table()
    q = np.ones(shape, np.float32)
    assert posenc.apply_rope(spec, posenc.CosSinCache(table, 4), q) is q
    q_out = np.ones(shape, np.float32)
    assert posenc.apply_rope(spec, table, q, q_out=q_out) is q_out


def test_arrays_without_heads_or_head_dim_name_that_axis():
    spec, table = spec_and_table()
    refusal(r"^q_in\.heads 0 must be >= 1", lambda: posenc.apply_rope(spec, table, np.ones((4, 0, 8), np.float32)))
    refusal(r"^q_in\.head_dim 0 must equal spec\.head_dim 8", lambda: posenc.apply_rope(spec, table, np.ones((4, 2, 0), np.float32)))


def test_a_byte_swapped_dtype_is_refused_not_rotated_as_garbage():
    spec, table = spec_and_table()
    swapped = np.ones((4, 2, 8), np.float32).astype(np.dtype(np.float32).newbyteorder("S"))
    e = refusal(r"^q\.dtype [<>]f4 must be in the machine's byte order", lambda: posenc.apply_rope(spec, table, swapped))
    assert e.field == "q.dtype"
    assert np.array_equal(swapped, np.ones((4, 2, 8), np.float32))


def test_a_batch_axis_that_overlaps_itself_is_refused():
    spec, table = spec_and_table()
    buffer = np.ones((2, 4, 2, 8), np.float32)
    stride0 = as_strided(buffer, (2, 4, 2, 8), (0,) + buffer.strides[1:])  # both elements on the same rows
    e = refusal(r"^q\.strides\[0\] 0 must keep the rows of different batch elements apart",
                lambda: posenc.apply_rope(spec, table, stride0))
    assert e.field == "q.strides[0]"
    half = as_strided(buffer, (2, 4, 2, 8), (buffer.strides[1],) + buffer.strides[1:])  # element 1 = tokens 1..4
    refusal(r"^q\.strides\[0\] 64 must keep", lambda: posenc.apply_rope(spec, table, half))
    refusal(r"^q_out\.strides\[0\] 0 must keep",
            lambda: posenc.apply_rope(spec, table, np.ones((2, 4, 2, 8), np.float32), q_out=stride0))
    assert np.array_equal(buffer, np.ones((2, 4, 2, 8), np.float32))


def test_arrays_that_alias_across_batch_elements_are_refused():
    spec, table = spec_and_table()
    x = np.random.default_rng(1).standard_normal((3, 4, 2, 8)).astype(np.float32)
    before = x.copy()
    # q_out's element 0 is q's element 1: rotating element 0 would overwrite element 1's input
    refusal(r"^q_out 2x4x2x8 must not overlap q in another batch element",
            lambda: posenc.apply_rope(spec, table, x[:2], q_out=x[1:]))
    refusal(r"^q 2x4x2x8 must not overlap k in another batch element",
            lambda: posenc.apply_rope(spec, table, x[:2], x[1:]))
    assert np.array_equal(x, before)


def test_an_interleaved_batch_whose_rows_are_apart_is_accepted_and_exact():
    # rows of element 0 at elements 0, 16, 32 and of element 1 at 24, 40, 56 (8 long each): no row
    # meets another, though the batch stride 24 is below the token axis's extent 40 (the kernels'
    # row test decides, not the sufficient sorted-stride rule)
    spec, table = spec_and_table()
    buffer = np.random.default_rng(4).standard_normal(64).astype(np.float32)
    itemsize = buffer.itemsize
    x = as_strided(buffer, (2, 3, 1, 8), (24 * itemsize, 16 * itemsize, 8 * itemsize, itemsize))
    expected = reference_batch(spec, table, x.copy())
    untouched = [buffer[8:16].copy(), buffer[48:56].copy()]  # elements no row covers
    posenc.apply_rope(spec, table, x)
    assert np.allclose(x, expected, atol=1e-6)
    assert np.array_equal(buffer[8:16], untouched[0]) and np.array_equal(buffer[48:56], untouched[1])


def test_legitimate_batched_layouts_are_accepted_and_exact():
    spec, table = spec_and_table()
    rng = np.random.default_rng(2)
    # [tokens, batch, heads, dim] seen as [batch, tokens, heads, dim]: batch stride < token stride
    seq_first = rng.standard_normal((4, 3, 2, 8)).astype(np.float32).transpose(1, 0, 2, 3)
    expected = reference_batch(spec, table, seq_first)
    posenc.apply_rope(spec, table, seq_first)
    assert np.allclose(seq_first, expected, atol=1e-6)
    # packed QKV [batch, tokens, 3 heads, dim], in place; and the same into a packed output
    packed = rng.standard_normal((3, 4, 6, 8)).astype(np.float32)
    q, k = packed[:, :, :2], packed[:, :, 2:4]
    eq, ek = reference_batch(spec, table, q), reference_batch(spec, table, k)
    out = np.zeros_like(packed)
    posenc.apply_rope(spec, table, q, k, q_out=out[:, :, :2], k_out=out[:, :, 2:4])
    posenc.apply_rope(spec, table, q, k)
    assert np.allclose(q, eq, atol=1e-6) and np.allclose(k, ek, atol=1e-6)
    assert np.allclose(out[:, :, :2], eq, atol=1e-6) and np.allclose(out[:, :, 2:4], ek, atol=1e-6)
    # a read-only input broadcast over the batch, rotated out of place
    one = rng.standard_normal((1, 4, 2, 8)).astype(np.float32)
    broadcast = np.broadcast_to(one, (3, 4, 2, 8))
    result = np.zeros((3, 4, 2, 8), np.float32)
    posenc.apply_rope(spec, table, broadcast, q_out=result)
    assert np.allclose(result, reference_batch(spec, table, np.ascontiguousarray(broadcast)), atol=1e-6)
    # out of place into the input itself is in place
    same = rng.standard_normal((3, 4, 2, 8)).astype(np.float32)
    expected = reference_batch(spec, table, same)
    posenc.apply_rope(spec, table, same, q_out=same)
    assert np.allclose(same, expected, atol=1e-6)


# ---------------------------------------------------------------- the config reader

BASE_CONFIG = {"model_type": "llama", "head_dim": 128, "rope_theta": 1e6, "max_position_embeddings": 32768}


def with_(**kw):
    return dict(BASE_CONFIG, **kw)


@pytest.mark.parametrize("read", [posenc.from_hf_config, posenc.model_from_hf_config])
def test_dicts_with_what_json_cannot_hold_name_the_key(read):
    e = refusal(r"^rope_theta: expected a finite number, got nan$", lambda: read(with_(rope_theta=NAN)))
    assert e.field == "rope_theta"
    refusal(r"^rope_scaling\.factor: expected a finite number, got inf$",
            lambda: read(with_(rope_scaling={"rope_type": "linear", "factor": INF})))
    refusal(r"^rope_theta: expected a JSON value .*got set", lambda: read(with_(rope_theta={1, 2})))
    refusal(r"^model_type: expected a JSON value .*got bytes", lambda: read(with_(model_type=b"llama")))
    refusal(r"^config: expected string keys, got 5$", lambda: read({**BASE_CONFIG, 5: 1}))
    refusal(r"^model_type: expected a string of Unicode characters", lambda: read(with_(model_type="\ud800")))
    deep = {}
    node = deep
    for _ in range(10000):
        node["a"] = {}
        node = node["a"]
    refusal(r"^config: expected JSON nested at most 64 levels deep, got deeper nesting$", lambda: read(deep))
    circular = dict(BASE_CONFIG)
    circular["self"] = circular
    refusal(r"^config: expected JSON nested at most 64 levels deep", lambda: read(circular))
    # NumPy scalars are numbers like any other
    assert read(with_(head_dim=np.int64(128), rope_theta=np.float32(1e6))) is not None


@pytest.mark.parametrize("read", [posenc.from_hf_config, posenc.model_from_hf_config])
def test_paths_that_are_no_config_file_are_refused_at_once(read, tmp_path):
    good = tmp_path / "config.json"
    good.write_text(json.dumps(BASE_CONFIG))
    e = refusal(r"must not contain a NUL byte", lambda: read(str(good) + "\0.bak"))
    assert e.field == "path"
    refusal(r"is a directory, not a config file", lambda: read(tmp_path))
    refusal(r"cannot be opened", lambda: read(tmp_path / "missing.json"))
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    refusal(r"is a FIFO \(pipe\), which could block", lambda: read(fifo))  # without a writer: no hang
    if os.path.exists("/dev/zero"):
        refusal(r"is a character device", lambda: read("/dev/zero"))
    nul = tmp_path / "nul.json"
    nul.write_bytes(json.dumps(BASE_CONFIG).encode() + b"\0 garbage")
    refusal(r"holds a NUL byte at offset %d" % len(json.dumps(BASE_CONFIG)), lambda: read(nul))
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate((16 << 20) + 1)
    refusal(r"is larger than 16 MiB", lambda: read(big))
    assert read(good) is not None and read(os.fsencode(good)) is not None


def test_text_with_a_nul_byte_is_refused_not_cut_there():
    text = json.dumps(BASE_CONFIG)
    for parse in (posenc.parse_hf_config, posenc.parse_hf_model):
        refusal(r"^config: holds a NUL byte at offset %d" % len(text), lambda: parse(text + "\0{garbage"))


def test_messages_with_bytes_that_are_not_utf8_are_still_a_posenc_error(tmp_path):
    e = refusal(r"^config: expected valid JSON", lambda: posenc.parse_hf_config(b'{"model_type": "\xff"}'))
    assert "\\xff" in str(e)
    refusal(r"cannot be opened", lambda: posenc.from_hf_config(os.fsencode(tmp_path) + b"/\xff\xfe.json"))


# ---------------------------------------------------------------- PyTorch tensors (skipped without torch)

def test_tensors_numpy_cannot_share_are_refused_with_the_three_parts(torch):
    spec, table = spec_and_table()
    e = refusal(r"^q\.device meta must be cpu", lambda: posenc.apply_rope(spec, table, torch.ones(4, 2, 8, device="meta")))
    assert (e.field, e.value) == ("q.device", "meta")
    e = refusal(r"^q\.layout sparse_coo must be strided",
                lambda: posenc.apply_rope(spec, table, torch.ones(4, 8).to_sparse()))
    assert e.field == "q.layout"
    e = refusal(r"^q\.dtype int32 must be float32", lambda: posenc.apply_rope(spec, table, torch.ones(4, 8, dtype=torch.int32)))
    assert e.rule.startswith("must be float32")
    refusal(r"^dtype 'float32' does not match the tensors' bfloat16",
            lambda: posenc.apply_rope(spec, table, torch.ones(4, 8, dtype=torch.bfloat16), dtype="float32"))
    refusal(r"^positions\.dtype bool must be an integer type",
            lambda: posenc.apply_rope(spec, table, torch.ones(4, 8), positions=torch.zeros(4, dtype=torch.bool)))


def test_tensor_positions_as_a_zero_dim_integer_are_a_start(torch):
    spec, table = spec_and_table()
    x = torch.ones(4, 2, 8)
    expected = posenc.apply_rope(spec, table, np.ones((4, 2, 8), np.float32), positions=3)
    assert np.array_equal(posenc.apply_rope(spec, table, x, positions=torch.tensor(3)).numpy(), expected)
    refusal(r"^positions\.start 9223372036854775807 must be in",
            lambda: posenc.apply_rope(spec, table, torch.ones(4, 2, 8), positions=torch.tensor(2 ** 63 - 1)))
