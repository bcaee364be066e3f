# SPDX-License-Identifier: MIT
"""posenc.bench: benchmark and check any RoPE kernel written for NumPy arrays or torch CPU tensors.

The Python side of posenc/bench/harness.hpp, with the same rules (docs/benchmarks.md,
"Benchmarking your own kernel"):

    import posenc, posenc.bench
    spec = posenc.RopeSpec(128, 128, 500000.0, "half_split")
    report = posenc.bench.run(my_kernel, spec, tokens=64, heads=32, dtype="float32")
    print(report.table())

`kernel(x, positions)` receives x, a C-contiguous [tokens, heads, head_dim] array (NumPy, or a
torch tensor with framework="torch") and positions, an int64 array of one position per token, and
rotates x in place or returns the rotated array, as spec and table say (the pairing, the rotated
slice, inv_freq and the attention factor A).

run() then
  1. checks the kernel and posenc's (posenc.apply_rope with OnTheFlyAngles) against the exact
     reference (posenc.apply_rope_reference: the angle reduced exactly, cos and sin in double) on
     fixed pseudo-random data in [-1, 1), at rows of consecutive positions ending at 0, 2^20, 2^24
     and 2^31 - 1. The error of a rotated coordinate is |out - expected| / (A |pair|), of a
     pass-through coordinate |out - in| / |in|; a non-finite output is an infinite error. A row
     passes within the tolerance: posenc's own bound for the dtype (float32 4 u, u = 2^-24;
     float16 4 u + 2^-11; float64 2e-14);
  2. times the kernel, posenc's kernel and a streaming pass that reads and writes the same bytes
     (x ^= 0 on the bytes), taking turns within each of `repetitions` rounds, each round at least
     min_repetition_seconds long; medians, and the ratios kernel / stream and kernel / posenc;
  3. judges the timing: "loaded" when some callable's repetitions spread by more than 10 %
     (interquartile range / median), "too short" with fewer than 5 repetitions or rounds under
     1 ms. Speed has no pass or fail; accuracy has.
Python's call overhead is part of every timing (the stream's too), so small problems measure the
interpreter; a few MiB of data is the useful size.
"""

import dataclasses as _dataclasses
import math as _math
import statistics as _statistics
import time as _time

import numpy as _np

from . import _posenc
from . import apply_rope as _apply_rope  # the package's NumPy / torch entry (posenc/__init__.py)

MAX_INT32_POSITION = 2147483647
LONG_POSITIONS = (0, 1 << 20, 1 << 24, MAX_INT32_POSITION)
_U = 2.0 ** -24
TOLERANCES = {"float32": 4 * _U, "float16": 4 * _U + 2.0 ** -11, "float64": 2e-14}


@_dataclasses.dataclass
class Timing:
    """Seconds per call over the repetitions."""
    median: float
    q1: float
    q3: float
    calls_per_repetition: int
    repetitions: int

    @property
    def spread(self):
        """(q3 - q1) / median."""
        return (self.q3 - self.q1) / self.median if self.median > 0 else 0.0


@_dataclasses.dataclass
class AccuracyRow:
    last_position: int
    max_error: float
    tolerance: float

    @property
    def passed(self):
        return self.max_error <= self.tolerance


@_dataclasses.dataclass
class Report:
    name: str
    problem: str
    kernel_accuracy: list
    posenc_accuracy: list
    stream: Timing = None
    posenc: Timing = None
    kernel: Timing = None
    warnings: list = _dataclasses.field(default_factory=list)

    @property
    def accurate(self):
        return bool(self.kernel_accuracy) and all(r.passed for r in self.kernel_accuracy)

    @property
    def ratio_to_stream(self):
        return self.kernel.median / self.stream.median if self.kernel else None

    @property
    def ratio_to_posenc(self):
        return self.kernel.median / self.posenc.median if self.kernel else None

    def table(self):
        """The verdict table as text (the C++ harness's layout)."""
        width = max(24, len(self.name) + 2)
        out = ["RoPE kernel harness (Python): " + self.problem]
        if self.kernel:
            out += ["", "speed (median of %d alternating repetitions)" % self.kernel.repetitions,
                    "  %-*s%-14s%-9s%-10s%s" % (width, "", "median", "spread", "/ stream", "/ posenc")]
            for who, t in (("stream (read + write)", self.stream), ("posenc apply_rope", self.posenc),
                           (self.name, self.kernel)):
                out.append("  %-*s%-14s%-9s%-10.2f%.2f" % (width, who, _time_text(t.median), "%.1f %%" % (100 * t.spread),
                                                          t.median / self.stream.median, t.median / self.posenc.median))
            out += ["  WARNING: " + w for w in self.warnings]
        out += ["", "accuracy (largest |error| / (A |pair|) against the exact reference; tolerance %.2e)"
                % self.kernel_accuracy[0].tolerance,
                "  %-16s%-*s%-12s%s" % ("last position", width, self.name, "posenc", "verdict")]
        for k, p in zip(self.kernel_accuracy, self.posenc_accuracy):
            out.append("  %-16s%-*s%-12s%s" % (_position_name(k.last_position), width, "%.2e" % k.max_error,
                                               "%.2e" % p.max_error, "pass" if k.passed else "FAIL"))
        verdict = "verdict: %s: accuracy %s" % (self.name, "PASS" if self.accurate else "FAIL")
        if self.kernel:
            verdict += ", %.2f x the streaming pass, %.2f x posenc's kernel" % (self.ratio_to_stream, self.ratio_to_posenc)
            if self.warnings:
                verdict += " (timing not to be trusted: see WARNING)"
        return "\n".join(out + ["", verdict]) + "\n"


def _time_text(seconds):
    return "%.3f ms" % (seconds * 1e3) if seconds >= 1e-3 else "%.2f us" % (seconds * 1e6)


def _position_name(p):
    if p == MAX_INT32_POSITION:
        return "2^31 - 1"
    if p >= 1024 and p & (p - 1) == 0:
        return "2^%d" % (p.bit_length() - 1)
    return str(p)


def _refuse(field, value, rule):
    e = _posenc.Error("%s %s %s" % (field, value, rule))
    e.field, e.value, e.rule = field, value, rule
    return e


def sample_input(shape, dtype):
    """Fixed pseudo-random values in [-1, 1) (a 64-bit linear congruential generator's top bits)."""
    n = int(_np.prod(shape))
    s = _np.empty(n, dtype=_np.uint64)
    state = 0x9E3779B97F4A7C15
    for i in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        s[i] = state >> 11
    return (s.astype(_np.float64) * 2.0 ** -52 - 1.0).astype(dtype).reshape(shape)


def row_positions(last, tokens):
    first = max(0, last - tokens + 1)
    return _np.arange(first, first + tokens, dtype=_np.int64)


def _call(kernel, x, positions, framework):
    if framework == "torch":
        import torch
        t = torch.from_numpy(x)
        result = kernel(t, torch.from_numpy(positions))
        return x if result is None else _np.asarray(result.detach().cpu().numpy())
    result = kernel(x, positions)
    return x if result is None else _np.asarray(result)


def _head_errors(spec, table, x_in, x_out, positions):
    """Largest error of every head (see the module docstring)."""
    heads = x_in.shape[1]
    a_factor = abs(table.attention_factor)
    pairs = [spec.pair_coordinates(i) for i in range(spec.num_pairs)]
    rotated = {c for p in pairs for c in p}
    passthrough = [d for d in range(spec.head_dim) if d not in rotated]
    worst = 0.0
    for t in range(x_in.shape[0]):
        for h in range(heads):
            head_in = x_in[t, h].astype(_np.float64)
            head_out = x_out[t, h].astype(_np.float64)
            if not _np.all(_np.isfinite(head_out)):
                return _math.inf
            expected = _posenc.apply_rope_reference(spec, table, head_in, int(positions[t]))
            for a, b in pairs:
                length = a_factor * _math.hypot(head_in[a], head_in[b])
                e = max(abs(head_out[a] - expected[a]), abs(head_out[b] - expected[b]))
                if e > 0:
                    worst = max(worst, e / length if length > 0 else _math.inf)
            for d in passthrough:
                if head_out[d] != head_in[d]:
                    worst = max(worst, abs(head_out[d] - head_in[d]) / abs(head_in[d]) if head_in[d] else _math.inf)
    return worst


def check_accuracy(kernel, spec, table, *, tokens, heads, dtype="float32", positions=LONG_POSITIONS,
                   tolerance=None, framework="numpy"):
    """The kernel's largest error on each row of positions (see the module docstring)."""
    if dtype not in TOLERANCES:
        raise _refuse("dtype", dtype, "must be float32, float16 or float64")
    if tokens < 1 or heads < 1:
        raise _refuse("tokens" if tokens < 1 else "heads", tokens if tokens < 1 else heads, "must be >= 1")
    tol = TOLERANCES[dtype] if tolerance is None else tolerance
    x_in = sample_input((tokens, heads, spec.head_dim), _np.dtype(dtype))
    rows = []
    for last in positions:
        if last < 0 or last > MAX_INT32_POSITION:
            raise _refuse("position", last, "must be in [0, 2147483647]")
        ids = row_positions(last, tokens)
        out = _call(kernel, x_in.copy(), ids, framework)
        rows.append(AccuracyRow(last, _head_errors(spec, table, x_in, out, ids), tol))
    return rows


def _quantile(sorted_values, f):
    at = f * (len(sorted_values) - 1)
    lo = int(at)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (at - lo) * (sorted_values[hi] - sorted_values[lo])


def time_alternating(callables, repetitions=15, min_repetition_seconds=5e-3, warmup=2):
    """Seconds per call of each callable, the callables taking turns within each repetition."""
    if repetitions < 1:
        raise _refuse("repetitions", repetitions, "must be >= 1")
    calls = []
    for f in callables:
        for _ in range(warmup):
            f()
        n = 1
        while n < (1 << 20):
            start = _time.perf_counter()
            for _ in range(n):
                f()
            if _time.perf_counter() - start >= min_repetition_seconds:
                break
            n *= 2
        calls.append(n)
    per_call = [[] for _ in callables]
    for _ in range(repetitions):
        for i, f in enumerate(callables):
            start = _time.perf_counter()
            for _ in range(calls[i]):
                f()
            per_call[i].append((_time.perf_counter() - start) / calls[i])
    out = []
    for values, n in zip(per_call, calls):
        v = sorted(values)
        out.append(Timing(_statistics.median(v), _quantile(v, 0.25), _quantile(v, 0.75), n, len(v)))
    return out


def judge(timings, min_repetition_seconds, loaded_spread=0.10):
    """The timing warnings (an empty list: the run can be judged)."""
    warnings = []
    worst = max(t.spread for t in timings)
    if worst > loaded_spread:
        warnings.append("machine loaded or noisy: repetitions spread by %.1f %% (interquartile / median, above "
                        "%.1f %%): the ratios are not to be trusted; rerun on a quiet machine" % (100 * worst, 100 * loaded_spread))
    if min(t.repetitions for t in timings) < 5 or min_repetition_seconds < 1e-3:
        warnings.append("run too short to judge: fewer than 5 repetitions, or repetitions under 1 ms; "
                        "raise repetitions or min_repetition_seconds")
    return warnings


def run(kernel, spec, table=None, *, tokens=64, heads=32, dtype="float32", positions=LONG_POSITIONS,
        tolerance=None, framework="numpy", name="kernel under test", time=True, repetitions=15,
        min_repetition_seconds=5e-3):
    """Checks and times `kernel` against posenc's; returns a Report (see the module docstring)."""
    if framework not in ("numpy", "torch"):
        raise _refuse("framework", framework, "must be numpy or torch")
    table = table if table is not None else _posenc.FrequencyTable.from_spec(spec)
    angles = _posenc.OnTheFlyAngles(table)

    def posenc_kernel(x, ids):
        return _apply_rope(spec, angles, x, positions=ids)

    common = dict(tokens=tokens, heads=heads, dtype=dtype, positions=positions, tolerance=tolerance)
    report = Report(name, "%d tokens x %d heads x %d (rotary_dim %d, %s), %s, %d KiB" % (
        tokens, heads, spec.head_dim, spec.rotary_dim, spec.pairing.name, dtype,
        tokens * heads * spec.head_dim * _np.dtype(dtype).itemsize // 1024),
        check_accuracy(kernel, spec, table, framework=framework, **common),
        check_accuracy(posenc_kernel, spec, table, **common))
    if not time:
        return report
    a = sample_input((tokens, heads, spec.head_dim), _np.dtype(dtype))
    b, c = a.copy(), a.copy()
    ids = row_positions(tokens - 1, tokens)
    stream_bytes = a.view(_np.uint8).reshape(-1)
    if framework == "torch":
        import torch
        c_arg, ids_arg = torch.from_numpy(c), torch.from_numpy(ids)
    else:
        c_arg, ids_arg = c, ids
    callables = [lambda: _np.bitwise_xor(stream_bytes, 0, out=stream_bytes),
                 lambda: posenc_kernel(b, ids),
                 lambda: kernel(c_arg, ids_arg)]
    report.stream, report.posenc, report.kernel = time_alternating(callables, repetitions, min_repetition_seconds)
    report.warnings = judge([report.stream, report.posenc, report.kernel], min_repetition_seconds)
    return report
