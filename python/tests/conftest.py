# SPDX-License-Identifier: MIT
# Shared fixtures of the posenc Python tests. Run with: PYTHONPATH=<build>/python python3 -m pytest python/tests
import pytest


@pytest.fixture(scope="session")
def torch():
    """PyTorch, or a skip with the reason when it is not installed (CI has no torch)."""
    return pytest.importorskip("torch", reason="PyTorch is not installed (Debian python3-torch); torch tests skipped")
