# SPDX-License-Identifier: MIT
# Shared fixtures of the posenc Python tests. Run with: PYTHONPATH=<build>/python python3 -m pytest python/tests
import pytest


@pytest.fixture(scope="session")
def torch():
    """PyTorch, or a skip with the reason when it is not installed (CI has no torch)."""
    return pytest.importorskip("torch", reason="PyTorch is not installed (Debian python3-torch); torch tests skipped")


def pytest_sessionstart(session):
    """With POSENC_EXPECT_INSTALLED=<site-packages> (scripts/test-python.sh's pip stage), the suite
    must test the package installed there, not a build tree or the source tree."""
    import os

    expected = os.environ.get("POSENC_EXPECT_INSTALLED")
    if expected:
        import posenc

        if not os.path.realpath(posenc.__file__).startswith(os.path.realpath(expected) + os.sep):
            raise pytest.UsageError(f"posenc imported from {posenc.__file__}, not from {expected}")
