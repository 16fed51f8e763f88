"""setup.py - builds the Python package profkit (python/profkit) and its C
extension _profkit (python/src) against libprofkit's static library.

The library comes from PROFKIT_BUILD_DIR (a CMake build of this repository,
what `make python` passes) or, when that is not set, from a CMake build this
script makes under build-python/, so `pip install --no-build-isolation .`
works on a fresh clone. Its dependencies are found with pkg-config, as
CMake finds them (src/CMakeLists.txt).
"""
import glob
import os
import shutil
import subprocess
import sys


def interpreters_with_numpy():
    """The usual interpreters of this machine that can import NumPy (and
    pandas, which the package needs to run): Debian's /usr/bin/python3,
    python3 and python on PATH, pyenv's shims and versions."""
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    # a venv's python links to its base interpreter: compared by path, not
    # by what the link resolves to, so the base one can be named
    found, seen, own = [], set(), os.path.abspath(sys.executable)
    candidates = ["/usr/bin/python3", shutil.which("python3"), shutil.which("python"),
                  os.path.join(pyenv, "shims", "python3")]
    candidates += sorted(glob.glob(os.path.join(pyenv, "versions", "*", "bin", "python3")))
    for py in candidates:
        if not py or not os.access(py, os.X_OK) or os.path.realpath(py) in seen or \
                os.path.abspath(py) == own:
            continue
        seen.add(os.path.realpath(py))
        try:
            ok = subprocess.run([py, "-c", "import numpy, pandas"], capture_output=True,
                                timeout=60).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            found.append(py)
    return found


def require_numpy():
    """The extension compiles against NumPy's C headers: without NumPy say
    which interpreter this is and which one has it, not a traceback."""
    try:
        import numpy  # noqa: F401
        return numpy
    except ImportError:
        pass
    version = ".".join(str(v) for v in sys.version_info[:3])
    lines = [f"profkit: this Python ({sys.executable}, Python {version}) has no NumPy, which the "
             "profkit extension is built against and needs at run time (with pandas)."]
    others = interpreters_with_numpy()
    if others:
        lines.append("These interpreters have NumPy and pandas: " + ", ".join(others) + ".")
        lines.append(f"Install with one of them:  {others[0]} -m pip install "
                     "--no-build-isolation .")
    else:
        lines.append("No interpreter on this machine has NumPy and pandas (looked at "
                     "/usr/bin/python3, python3 and python on PATH, pyenv's).")
    lines.append(f"Or give this one NumPy and pandas:  {sys.executable} -m pip install numpy "
                 "pandas  (Debian: apt-get install python3-numpy python3-pandas python3-dev, "
                 "then use /usr/bin/python3)")
    sys.exit("\n".join(lines))


numpy = require_numpy()

from setuptools import Extension, setup  # noqa: E402 (after the NumPy check)
from setuptools.command.build_ext import build_ext  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEPS = ["zlib", "expat", "yajl", "yaml-0.1", "libpcre2-8"]
OPTIONAL_DEPS = ["libdw", "capstone"]


def pkg_config(args):
    return subprocess.run(["pkg-config"] + args, check=True, capture_output=True,
                          text=True).stdout.split()


def link_flags():
    mods = list(DEPS)
    for m in OPTIONAL_DEPS:  # the library links libdw, capstone when CMake found them
        if subprocess.run(["pkg-config", "--exists", m]).returncode == 0:
            mods.append(m)
    # stdc++: the library demangles C++ names with __cxa_demangle
    return pkg_config(["--libs"] + mods) + ["-lstdc++", "-lpthread", "-lm"]


def library_dir():
    build = os.environ.get("PROFKIT_BUILD_DIR")
    if not build:
        build = os.path.join(HERE, "build-python")
        # the project's default build type (RelWithDebInfo), as `make build`
        subprocess.run(["cmake", "-S", HERE, "-B", build, "-DPK_TESTS=OFF"], check=True)
        subprocess.run(["cmake", "--build", build, "--target", "profkit_static", "-j",
                        str(os.cpu_count() or 2)], check=True)
    lib = os.path.join(os.path.abspath(build), "lib", "libprofkit.a")
    if not os.path.exists(lib):
        raise SystemExit(f"setup.py: {lib} is missing: build the library first (make build)")
    return lib


class BuildExt(build_ext):
    """Finds (or builds) libprofkit.a before compiling the extension."""

    def build_extensions(self):
        lib = library_dir()
        for ext in self.extensions:
            ext.extra_objects = [lib]
            ext.extra_link_args = link_flags()
            ext.depends = ext.depends + [lib]
        super().build_extensions()


ext = Extension(
    "profkit._profkit",
    sources=["python/src/_profkit.c", "python/src/views.c", "python/src/analyses.c",
             "python/src/answers.c", "python/src/tree_answer.c",
             "python/src/trace.c"],
    depends=["python/src/pyprofkit.h"],
    include_dirs=[os.path.join(HERE, "include"), numpy.get_include()],
    # the library's own warnings (CMakeLists.txt), errors as there
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wshadow",
                        "-Wstrict-prototypes", "-Wmissing-prototypes",
                        "-Wno-missing-field-initializers"],
)

setup(
    packages=["profkit"],
    package_dir={"": "python"},
    ext_modules=[ext],
    cmdclass={"build_ext": BuildExt},
)
