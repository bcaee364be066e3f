# SPDX-License-Identifier: MIT
# The type stubs (posenc/__init__.pyi) against the module they describe: the Literal names of the
# enumerations and layouts are the names the module accepts, apply_rope is typed by dtype, and,
# when mypy is installed, a typed use of the package type-checks.
import ast
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

import posenc

STUB = os.path.join(os.path.dirname(posenc.__file__), "__init__.pyi")


def _literal_names(alias):
    tree = ast.parse(open(STUB, encoding="utf-8").read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == alias for t in node.targets):
            subscript = node.value
            assert isinstance(subscript, ast.Subscript) and getattr(subscript.value, "id", None) == "Literal"
            elements = subscript.slice.elts if isinstance(subscript.slice, ast.Tuple) else [subscript.slice]
            return {e.value for e in elements}
    raise AssertionError(f"{STUB} defines no {alias}")


@pytest.mark.parametrize("alias, enum", [("PairingName", "Pairing"), ("PrecisionName", "Precision"),
                                         ("DirectionName", "Direction")])
def test_stub_literals_are_the_enumerations_names(alias, enum):
    assert _literal_names(alias) == set(getattr(posenc, enum).__members__)


def test_stub_layouts_are_the_layouts_apply_rope_takes():
    spec = posenc.RopeSpec.full(4, 1e4)
    np = pytest.importorskip("numpy")
    for layout in _literal_names("Layout"):
        posenc.apply_rope(spec, posenc.FrequencyTable.from_spec(spec), np.zeros((2, 1, 4), np.float32), layout=layout)
    with pytest.raises(posenc.Error):
        posenc.apply_rope(spec, posenc.FrequencyTable.from_spec(spec), np.zeros((2, 1, 4), np.float32), layout="tdh")


def test_a_typed_use_type_checks_with_mypy(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (Debian python3-mypy); the stubs are not type-checked")
    program = tmp_path / "use.py"
    program.write_text(textwrap.dedent("""
        import numpy as np
        import numpy.typing as npt
        import posenc

        spec = posenc.RopeSpec(128, 128, 1e6, "half_split")
        angles = posenc.CosSinCache(posenc.FrequencyTable.from_spec(spec), 4096)
        q: npt.NDArray[np.float32] = np.zeros((4, 2, 128), np.float32)
        k: npt.NDArray[np.float32] = np.zeros((4, 1, 128), np.float32)
        out: npt.NDArray[np.float32] = posenc.apply_rope(spec, angles, q, layout="thd")
        pair = posenc.apply_rope(spec, angles, q, k, np.arange(4, dtype=np.int64), direction="inverse")
        reveal_type(pair)
    """))
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""
        import numpy as np
        import posenc

        spec = posenc.RopeSpec(128, 128, 1e6, "diagonal")
        posenc.apply_rope(spec, posenc.FrequencyTable.from_spec(spec), np.zeros((4, 2, 128), np.float32), layout="tdh")
    """))
    # A build tree is found through MYPYPATH; an installed package (site-packages, py.typed) by
    # mypy itself, which refuses a site-packages folder in MYPYPATH.
    package_parent = os.path.dirname(os.path.dirname(posenc.__file__))
    env = dict(os.environ)
    if os.path.basename(package_parent) not in ("site-packages", "dist-packages"):
        env["MYPYPATH"] = package_parent
    good = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", str(program)], capture_output=True,
                          text=True, env=env)
    assert good.returncode == 0, good.stdout + good.stderr
    # mypy 1.0 (Debian 12) writes Tuple[...], later versions tuple[...]
    assert "tuple[numpy.ndarray[any, numpy.dtype[numpy.floating" in good.stdout.lower()
    refused = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", str(bad)], capture_output=True,
                             text=True, env=env)
    assert refused.returncode != 0, refused.stdout
    assert 'bad.py:5: error: Argument 4 to "RopeSpec" has incompatible type "Literal[\'diagonal\']"' in refused.stdout
    assert 'bad.py:6: error: No overload variant of "apply_rope" matches' in refused.stdout  # layout "tdh"


def _generator():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "generate-stubs.py")
    spec = importlib.util.spec_from_file_location("generate_stubs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_checked_in_stubs_are_a_fresh_generation(monkeypatch):
    generator = _generator()
    monkeypatch.setattr(sys, "path", list(sys.path))
    fresh = generator.generate(os.path.dirname(os.path.dirname(os.path.abspath(posenc.__file__))))
    for name, text in fresh.items():
        with open(os.path.join(generator.PACKAGE_DIR, name), encoding="utf-8") as f:
            assert f.read() == text, "python/posenc/%s differs from scripts/generate-stubs.py's output" % name


def test_generator_refuses_a_python_function_without_a_stub(tmp_path, monkeypatch):
    generator = _generator()
    api = open(generator.PYTHON_API, encoding="utf-8").read()
    partial = tmp_path / "python_api.pyi"
    partial.write_text("\n".join(line for line in api.split("\n") if not line.startswith("def vision_tower_from_hf_config")))
    monkeypatch.setattr(generator, "PYTHON_API", str(partial))
    with pytest.raises(SystemExit, match="declares no stub for vision_tower_from_hf_config"):
        generator.python_api_text(posenc)
