# SPDX-License-Identifier: MIT
# posenc.bench, the harness for NumPy / torch RoPE kernels: its accuracy verdict on kernels whose
# error is known without posenc (a float32 angle float(position) * float(theta) is off by up to
# 1 rad at 2^24, where the float spacing of the angle is 2; an identity kernel is right only at
# position 0), and its timing logic without asserting a speed.
import math

import numpy as np
import pytest

import posenc
import posenc.bench as bench

SPEC = posenc.RopeSpec(64, 64, 10000.0, "half_split")


def naive_float32(x, positions):
    """Every angle in float32: theta_i = 10000^(-i/32), angle = float(p) * theta_i."""
    theta = np.power(np.float32(10000.0), -np.arange(32, dtype=np.float32) / np.float32(32.0))
    angle = positions.astype(np.float32)[:, None] * theta[None, :]
    c, s = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    a, b = x[..., :32].copy(), x[..., 32:].copy()
    x[..., :32] = a * c - b * s
    x[..., 32:] = b * c + a * s


def test_naive_float32_fails_at_long_positions_and_posenc_passes():
    report = bench.run(naive_float32, SPEC, tokens=4, heads=2, time=False, name="naive")
    rows = {r.last_position: r for r in report.kernel_accuracy}
    assert set(rows) == {0, 1 << 20, 1 << 24, 2**31 - 1}
    assert rows[0].max_error < 1e-5  # positions 0 .. 3: a few float32 ulp (NumPy's cos / sin, float theta)
    for p in (1 << 20, 1 << 24, 2**31 - 1):
        assert not rows[p].passed
    assert rows[1 << 24].max_error > 0.1
    assert not report.accurate
    assert all(r.passed for r in report.posenc_accuracy)
    text = report.table()
    assert "2^31 - 1" in text and "naive: accuracy FAIL" in text


def test_identity_kernel_passes_only_at_zero():
    rows = bench.check_accuracy(lambda x, p: None, SPEC, posenc.FrequencyTable.from_spec(SPEC), tokens=1, heads=1,
                                positions=(0, 1, 1 << 20))
    assert [r.passed for r in rows] == [True, False, False]


def test_returned_array_is_used_and_nan_fails():
    rows = bench.check_accuracy(lambda x, p: np.full_like(x, np.nan), SPEC, posenc.FrequencyTable.from_spec(SPEC),
                                tokens=2, heads=1, positions=(0,))
    assert rows[0].max_error == math.inf


def test_refusals_name_the_field():
    with pytest.raises(posenc.Error) as e:
        bench.run(naive_float32, SPEC, tokens=4, heads=2, dtype="int8", time=False)
    assert e.value.field == "dtype"
    with pytest.raises(posenc.Error) as e:
        bench.run(naive_float32, SPEC, tokens=4, heads=2, positions=(2**31,), time=False)
    assert e.value.field == "position"


def test_timing_alternates_and_judges():
    order = []
    t = bench.time_alternating([lambda: order.append(0), lambda: order.append(1)], repetitions=3,
                               min_repetition_seconds=0, warmup=0)
    assert order == [0, 1, 0, 1, 0, 1, 0, 1]  # one calibration call each, then alternating rounds
    assert t[0].repetitions == 3 and t[0].calls_per_repetition == 1
    quiet = bench.Timing(1.0, 0.98, 1.03, 10, 15)
    noisy = bench.Timing(1.0, 0.9, 1.2, 10, 15)
    assert bench.judge([quiet, quiet], 5e-3) == []
    assert "loaded" in bench.judge([quiet, noisy], 5e-3)[0]
    assert "too short" in bench.judge([quiet], 1e-4)[0]


def test_timed_run_reports_both_ratios():
    report = bench.run(naive_float32, SPEC, tokens=4, heads=2, repetitions=5, min_repetition_seconds=1e-4)
    assert report.kernel.median > 0 and report.stream.median > 0 and report.posenc.median > 0
    assert report.ratio_to_stream == pytest.approx(report.kernel.median / report.stream.median)
    assert report.ratio_to_posenc == pytest.approx(report.kernel.median / report.posenc.median)
    assert any("too short" in w for w in report.warnings)


def test_torch_kernel():
    torch = pytest.importorskip("torch")
    spec = posenc.RopeSpec(64, 64, 10000.0, "half_split")

    def torch_naive(x, positions):
        theta = torch.pow(torch.tensor(10000.0), -torch.arange(32, dtype=torch.float32) / 32.0)
        angle = positions.to(torch.float32)[:, None] * theta[None, :]
        c, s = torch.cos(angle)[:, None, :], torch.sin(angle)[:, None, :]
        a, b = x[..., :32], x[..., 32:]
        return torch.cat((a * c - b * s, b * c + a * s), dim=-1)

    report = bench.run(torch_naive, spec, tokens=4, heads=2, framework="torch", time=False)
    assert report.kernel_accuracy[0].max_error < 1e-5
    assert not report.kernel_accuracy[2].passed
