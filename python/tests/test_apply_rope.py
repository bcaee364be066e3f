# SPDX-License-Identifier: MIT
# posenc.apply_rope on NumPy arrays: every dtype, layout, stride and out-of-place form against the
# double reference path (rotation.hpp's scalar apply, itself checked against RoFormer's matrix),
# and the refusals.
import sys
import threading
import time

import numpy as np
import pytest

import posenc


def spec_and_table(head_dim=128, rotary_dim=None, base=1e6, pairing="half_split"):
    spec = posenc.RopeSpec(head_dim, rotary_dim or head_dim, base, pairing)
    return spec, posenc.FrequencyTable.from_spec(spec)


def reference(spec, table, x, positions):
    """The scalar double path, head by head: x [T, H, D] float64."""
    out = np.empty_like(x, dtype=np.float64)
    for t in range(x.shape[0]):
        for h in range(x.shape[1]):
            out[t, h] = posenc.apply_rope_reference(spec, table, x[t, h].astype(np.float64), int(positions[t]))
    return out


def to_bfloat16_bits(x):
    """float32 -> bfloat16 bits, round to nearest even (the format's definition, written here)."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bfloat16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


rng = np.random.default_rng(20240601)


@pytest.mark.parametrize("pairing", ["half_split", "interleaved"])
@pytest.mark.parametrize("rotary_dim", [128, 64])
def test_float32_in_place_matches_the_double_reference_within_4_ulp(pairing, rotary_dim):
    spec, table = spec_and_table(128, rotary_dim, 1e6, pairing)
    x = rng.uniform(-1, 1, size=(9, 3, 128)).astype(np.float32)
    expected = reference(spec, table, x, range(100, 109))
    q = x.copy()
    result = posenc.apply_rope(spec, posenc.CosSinCache(table, 200), q, positions=100)
    assert result is q
    norm = np.sqrt(2.0)  # |pair| <= sqrt(2) for entries in [-1, 1]
    assert np.max(np.abs(q - expected)) <= 4 * 2.0 ** -24 * norm
    assert np.array_equal(q[..., rotary_dim:], x[..., rotary_dim:])  # pass-through untouched


def test_out_of_place_leaves_the_input_and_equals_in_place_bit_for_bit():
    spec, table = spec_and_table()
    angles = posenc.OnTheFlyAngles(table)
    x = rng.normal(size=(5, 4, 128)).astype(np.float32)
    k = rng.normal(size=(5, 2, 128)).astype(np.float32)
    q_out, k_out = np.empty_like(x), np.empty_like(k)
    ids = np.array([3, 70000, 5, 1 << 30, 0], dtype=np.int64)
    r = posenc.apply_rope(spec, angles, x, k, ids, q_out=q_out, k_out=k_out)
    assert r[0] is q_out and r[1] is k_out
    q_in_place, k_in_place = x.copy(), k.copy()
    posenc.apply_rope(spec, angles, q_in_place, k_in_place, ids.astype(np.int32))
    assert np.array_equal(q_out, q_in_place) and np.array_equal(k_out, k_in_place)
    assert not np.array_equal(q_out, x)


def test_float16_is_the_float32_result_rounded_once():
    spec, table = spec_and_table(64, 64, 1e4)
    x = rng.uniform(-2, 2, size=(6, 2, 64)).astype(np.float16)
    expected = reference(spec, table, x.astype(np.float64), range(6))
    q = x.copy()
    posenc.apply_rope(spec, table, q)
    ulp = np.spacing(np.abs(expected).astype(np.float16)).astype(np.float64)
    assert np.all(np.abs(q.astype(np.float64) - expected) <= ulp + 4 * 2.0 ** -24 * 2 * np.sqrt(2))


def test_bfloat16_through_a_uint16_view_with_dtype_bfloat16():
    spec, table = spec_and_table(128, 128, 1e6, "interleaved")
    x32 = rng.uniform(-1, 1, size=(4, 2, 128)).astype(np.float32)
    bits = to_bfloat16_bits(x32)
    expected = reference(spec, table, from_bfloat16_bits(bits).astype(np.float64), range(10, 14))
    q = bits.copy()
    posenc.apply_rope(spec, table, q, positions=10, dtype="bfloat16")
    got = from_bfloat16_bits(q).astype(np.float64)
    # one bfloat16 rounding (half an ulp, 2^-9 relative) of the float32 result (4 ulp of float32)
    assert np.all(np.abs(got - expected) <= 2.0 ** -8 * np.abs(expected) + 1e-6)
    with pytest.raises(posenc.Error, match="dtype='bfloat16'"):
        posenc.apply_rope(spec, table, bits.copy())


def test_float64_takes_the_double_reference_path():
    spec, table = spec_and_table(32, 32, 1e4)
    x = rng.normal(size=(3, 2, 32))
    q = x.copy()
    posenc.apply_rope(spec, table, q, positions=7)
    assert np.max(np.abs(q - reference(spec, table, x, range(7, 10)))) < 1e-14


def test_packed_qkv_views_rotate_q_and_k_and_leave_v_alone():
    spec, table = spec_and_table(64, 64, 1e4)
    tokens, hq, hk = 7, 4, 2
    qkv = rng.normal(size=(tokens, (hq + 2 * hk) * 64)).astype(np.float32)
    original = qkv.copy()
    heads = qkv.reshape(tokens, hq + 2 * hk, 64)
    posenc.apply_rope(spec, table, heads[:, :hq], heads[:, hq:hq + hk], positions=2)
    x = original.reshape(tokens, hq + 2 * hk, 64)
    assert np.array_equal(qkv.reshape(tokens, -1, 64)[:, hq + hk:], x[:, hq + hk:])  # v untouched
    q_expected = x[:, :hq].copy()
    posenc.apply_rope(spec, table, q_expected, positions=2)
    assert np.array_equal(heads[:, :hq], q_expected)


def test_heads_major_layout_and_a_batch():
    spec, table = spec_and_table(64, 64, 1e4)
    x = rng.normal(size=(2, 3, 5, 64)).astype(np.float32)  # [batch, heads, tokens, dim] (HF's q)
    ids = np.array([[0, 1, 2, 3, 4], [9, 8, 7, 6, 5]], dtype=np.int64)
    q = x.copy()
    posenc.apply_rope(spec, table, q, positions=ids, layout="htd")
    for b in range(2):
        expected = np.ascontiguousarray(x[b].transpose(1, 0, 2))
        posenc.apply_rope(spec, table, expected, positions=ids[b])
        assert np.array_equal(q[b], expected.transpose(1, 0, 2))


def test_two_dimensional_arrays_are_one_head():
    spec, table = spec_and_table(16, 16, 1e4)
    x = rng.normal(size=(4, 16)).astype(np.float32)
    q = x.copy()
    posenc.apply_rope(spec, table, q, positions=3)
    expected = x.reshape(4, 1, 16).copy()
    posenc.apply_rope(spec, table, expected, positions=3)
    assert np.array_equal(q, expected[:, 0])


def test_inverse_undoes_forward():
    spec, table = spec_and_table()
    x = rng.normal(size=(8, 2, 128))
    q = x.copy()
    posenc.apply_rope(spec, table, q, positions=123456)
    posenc.apply_rope(spec, table, q, positions=123456, direction="inverse")
    assert np.max(np.abs(q - x)) < 1e-13


def test_refusals_are_posenc_errors_with_the_kernels_messages():
    spec, table = spec_and_table()
    q = np.zeros((4, 2, 128), dtype=np.float32)
    with pytest.raises(posenc.Error, match=r"strides\[-1\]"):
        posenc.apply_rope(spec, table, np.zeros((4, 2, 256), dtype=np.float32)[:, :, ::2])
    with pytest.raises(posenc.Error, match="head_dim 64 must equal spec.head_dim 128"):
        posenc.apply_rope(spec, table, np.zeros((4, 2, 64), dtype=np.float32))
    read_only = q.copy()
    read_only.setflags(write=False)
    with pytest.raises(posenc.Error, match="writeable"):
        posenc.apply_rope(spec, table, read_only)
    with pytest.raises(posenc.Error, match="must not overlap"):
        posenc.apply_rope(spec, table, q, q[:, :1].copy(), q_out=np.empty_like(q), k_out=q[:, :1])
    with pytest.raises(posenc.Error, match=r"positions\[3\] 4 must be in \[0, 3\]"):
        posenc.apply_rope(spec, posenc.CosSinCache(table, 4), q, positions=1)
    with pytest.raises(posenc.Error, match="positions.count 3 must equal tokens 4"):
        posenc.apply_rope(spec, table, q, positions=np.arange(3))
    with pytest.raises(posenc.Error, match="must equal q.dtype"):
        posenc.apply_rope(spec, table, q, np.zeros((4, 1, 128), dtype=np.float16))
    with pytest.raises(posenc.Error, match="float32, float16, float64"):
        posenc.apply_rope(spec, table, q.astype(np.int32))
    with pytest.raises(posenc.Error, match=r"positions\[0\] 2147483648 must be in"):
        posenc.apply_rope(spec, table, q[:1], positions=np.array([1 << 31]))
    assert issubclass(posenc.Error, ValueError)


def test_the_gil_is_released_while_the_kernel_runs():
    spec, table = spec_and_table()
    angles = posenc.CosSinCache(table, 4096)
    q = np.ones((4096, 32, 128), dtype=np.float32)
    window = []
    done = threading.Event()

    def work():
        t0 = time.perf_counter()
        posenc.apply_rope(spec, angles, q)
        window.extend([t0, time.perf_counter()])
        done.set()

    stamps = []
    interval = sys.getswitchinterval()
    # With a 10 s switch interval a thread holding the GIL keeps it for the whole call, so this
    # thread can record a time inside the call's window only if the call released the GIL.
    sys.setswitchinterval(10.0)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        while not done.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0)  # lets the worker take the GIL back when it needs it
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    t0, t1 = window
    assert sum(t0 < s < t1 for s in stamps) > 10


def test_dispatch_summary_names_what_runs_what_is_compiled_and_the_cpus_best():
    # The module links the per-ISA kernel objects: every ISA of its processor is compiled in, so
    # what runs is the CPU's best, which /proc/cpuinfo's flags give independently (x86-64, no cap).
    summary = posenc.dispatch_summary()
    assert summary.startswith("dispatch runs %s (" % posenc.isa())
    assert "compiled: baseline (" in summary and ("; this CPU runs up to %s" % posenc.isa()) in summary
    import os
    import platform

    if platform.machine() != "x86_64" or "POSENC_DISPATCH_MAX_ISA" in os.environ or not os.path.exists("/proc/cpuinfo"):
        return
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    avx512 = all(x in flags for x in ("avx512f", "avx512cd", "avx512dq", "avx512bw", "fma", "f16c"))
    want = ("avx512_bf16" if avx512 and "avx512_bf16" in flags else "avx512" if avx512
            else "avx2" if all(x in flags for x in ("avx2", "fma", "f16c")) else "sse4_2" if "sse4_2" in flags
            else "baseline")
    assert posenc.isa() == want
