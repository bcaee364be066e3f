# SPDX-License-Identifier: MIT
# examples/python/long_context_precision.py runs (as the test command runs it): the chart is
# written when matplotlib is installed, and the numbers show the float32 table's logit error
# growing past 1e-3 by position 1e6 while posenc's stays at float32 rounding (< 1e-6).
import os
import re
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "long_context_precision.py")


def test_example_runs_and_writes_its_chart(tmp_path):
    chart = tmp_path / "precision.png"
    env = dict(os.environ, MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, EXAMPLE, str(chart)], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    largest = re.search(r"transformers float32 ([0-9.e+-]+), posenc ([0-9.e+-]+)", run.stdout)
    assert largest, run.stdout
    assert float(largest.group(1)) > 1e-3
    assert float(largest.group(2)) < 1e-6
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in run.stdout
        return
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
