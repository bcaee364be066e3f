# SPDX-License-Identifier: MIT
"""Builds the posenc Python package (pyproject.toml) with the project's own CMake build.

The native module posenc._posenc is the CMake target posenc_python (python/CMakeLists.txt): its
translation units, the per-ISA kernel units of runtime dispatch and their flags are defined there
once. build_ext configures and builds that target in build/python-setuptools (Ninja and ccache
when installed, so a rebuild compiles only what changed) and copies the module into the wheel.

Environment: POSENC_CMAKE_ARGS, extra arguments for the configure (shell words, e.g.
"-DCMAKE_BUILD_TYPE=Release"); POSENC_BUILD_JOBS, parallel compile jobs (default: all CPUs).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    text = open(os.path.join(ROOT, "include", "posenc", "config.hpp"), encoding="utf-8").read()
    parts = [re.search(r"#define POSENC_VERSION_%s (\d+)" % p, text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.path.join(ROOT, "build", "python-setuptools")
        configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DPOSENC_BUILD_PYTHON=ON",
                     "-DPOSENC_BUILD_TESTS=OFF", "-DPOSENC_BUILD_EXAMPLES=OFF", "-DPOSENC_BUILD_BENCHMARKS=OFF",
                     "-DPOSENC_HYGIENE_CHECKS=OFF", "-DCMAKE_BUILD_TYPE=Release",
                     "-DPython3_EXECUTABLE=" + sys.executable]
        extra = shlex.split(os.environ.get("POSENC_CMAKE_ARGS", ""))
        fresh = not os.path.exists(os.path.join(build_dir, "CMakeCache.txt"))
        if fresh and shutil.which("ninja") and not any(a.startswith("-G") for a in extra):
            configure += ["-G", "Ninja"]
        if not fresh:  # a build folder keeps its generator
            extra = [a for i, a in enumerate(extra) if not a.startswith("-G") and (i == 0 or extra[i - 1] != "-G")]
        configure += extra
        env = dict(os.environ, CCACHE_BASEDIR=ROOT)
        jobs = os.environ.get("POSENC_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(configure, check=True, env=env)
        subprocess.run(["cmake", "--build", build_dir, "--target", "posenc_python", "-j", jobs], check=True, env=env)
        package = os.path.join(build_dir, "python", "posenc")
        built = [f for f in os.listdir(package) if f.startswith("_posenc") and f.endswith((".so", ".pyd"))]
        if len(built) != 1:
            raise RuntimeError(f"expected one native module _posenc in {package}, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(package, built[0]), target)


setup(
    version=version(),
    packages=["posenc"],
    package_dir={"": "python"},
    package_data={"posenc": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("posenc._posenc", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
