# profkit — thin wrapper around CMake. The two commands a new user needs:
#   make demo    install build dependencies, build, run profkit on a sample
#   make check   build and run every test through ctest
#   make python  build the Python package in place (python/profkit; docs/python.md)
# Others: build, install, asan-check, fuzz-smoke, bench, format, format-check, clean.
#   make install [PREFIX=/usr/local] [DESTDIR=/staging]

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 20
CMAKE_FLAGS ?=
PREFIX     ?= /usr/local

SOURCES = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find include src tests fuzz bench -name '*.[ch]')

.PHONY: all build install deps demo check asan-check fuzz-smoke bench format format-check clean python

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The binary, libprofkit.{a,so}, headers, man page and profkit.pc under
# $(DESTDIR)$(PREFIX); profkit.pc names $(PREFIX) (DESTDIR is for staging).
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

demo: deps
	@$(MAKE) --no-print-directory build
	@scripts/demo.sh $(BUILD)

# One test more than cores: a test that waits (a server's time limit, MPI's
# start-up, a JVM or a browser at rest) lets another compute meanwhile.
check: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest -j $$(( $(JOBS) + 1 )) --output-on-failure

# As check: one test more than cores. -O1, as AddressSanitizer's manual
# advises: CI must stay far below its time limit on a slow machine, and
# at -O0 the suite took 43 minutes there instead of 36.
asan-check: deps
	cmake -S . -B $(ASAN_BUILD) -DPK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_FLAGS_DEBUG="-g -O1" $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest -j $$(( $(JOBS) + 1 )) --output-on-failure

fuzz-smoke:
	@scripts/install-deps.sh --with-fuzz
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DPK_FUZZ=ON -DPK_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_hpctoolkit fuzz_callgrind fuzz_cube fuzz_hpctoolkit_xml fuzz_hpcrun fuzz_prof2 fuzz_json fuzz_pprof fuzz_hpctk_yaml fuzz_expr fuzz_pattern fuzz_mkseeds profkit
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	@scripts/install-deps.sh --with-bench
	bench/bench_info.sh $(BUILD)

# The extension links this build's libprofkit.a; an interpreter with NumPy
# and pandas is picked by scripts/find-python.sh (Debian's first).
python: build
	@py=$$(scripts/find-python.sh) && \
	  PROFKIT_BUILD_DIR=$(BUILD) $$py setup.py -q build_ext --inplace \
	    --build-temp $(BUILD)/python-temp --build-lib $(BUILD)/python-lib && \
	  echo "python: built python/profkit with $$py (PYTHONPATH=python $$py -c 'import profkit')"

format:
	clang-format -i $(SOURCES)

format-check:
	clang-format --dry-run --Werror $(SOURCES)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
