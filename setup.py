"""setup.py - builds the Python package profkit (python/profkit) and its C
extension _profkit (python/src) against libprofkit's static library.

The library comes from PROFKIT_BUILD_DIR (a CMake build of this repository,
what `make python` passes) or, when that is not set, from a CMake build this
script makes under build-python/, so `pip install --no-build-isolation .`
works on a fresh clone. Its dependencies are found with pkg-config, as
CMake finds them (src/CMakeLists.txt).
"""
import os
import subprocess

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

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
