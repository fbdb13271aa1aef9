# Jeet: the two commands a newcomer needs are `make demo` and `make test`.
# Both install what is missing (setup) and build first.

BUILD_DIR ?= build
JOBS ?= 2
PYTHON ?= python3
LLVM_DIR ?= /usr/lib/llvm-22
# libzstd-dev: LLVMSupport's CMake exports link zstd::libzstd_shared, which
# the wheel's static link (cmake/JeetStaticLLVM.cmake) must find; Debian's
# llvm-22-dev does not always pull it in.
# ccache: the wheel's CMake tree (build-wheel/) compiles the same sources with
# the same flags as build/; with CCACHE_BASEDIR at the repository root ccache
# serves it the objects `make build` compiled (CI builds both: docs/Reliability.md).
APT_PACKAGES := cmake ninja-build g++ llvm-22-dev libmlir-22-dev mlir-22-tools \
  llvm-22-tools libomp-22-dev libgtest-dev libzstd-dev ccache
export CCACHE_BASEDIR ?= $(CURDIR)
PIP_PACKAGES := numpy pytest nanobind scikit-build-core
# Test dependencies of the frontends and of DLPack interop (jeet.onnx,
# jeet.torch; `import jeet` needs none of them): onnx, onnxruntime for the
# comparison, torch.
PIP_PACKAGES += onnx onnxruntime torch
# Optional test dependencies, installed when possible (the tests that need one
# skip, saying so): none at present.
PIP_TEST_PACKAGES :=
WHEEL_BUILD_DIR ?= build-wheel

.PHONY: setup build test demo bench bench-setup docs wheel wheel-check clean

setup:
	@bash scripts/setup.sh "$(PYTHON)" "$(APT_PACKAGES)" "$(PIP_PACKAGES)" "$(PIP_TEST_PACKAGES)"

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  $$(command -v ld.lld >/dev/null && echo -DLLVM_USE_LINKER=lld) \
	  $$(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache) \
	  -DPython_EXECUTABLE=$$(command -v $(PYTHON))

build: setup $(BUILD_DIR)/build.ninja
	ninja -C $(BUILD_DIR) -j$(JOBS)

test: build
	@bash scripts/run-tests.sh $(BUILD_DIR) "$(PYTHON)"

demo: build
	@bash scripts/demo.sh $(BUILD_DIR) "$(PYTHON)"

# Benchmarks (tables side by side with numpy and the peers; never part of
# the tests). bench-setup installs the optional peers of bench/peers.py.
bench: build bench-setup
	$(PYTHON) bench/matmul.py --build-dir $(BUILD_DIR)
	$(PYTHON) bench/elementwise.py --build-dir $(BUILD_DIR)
	$(PYTHON) bench/residency.py --build-dir $(BUILD_DIR)
	$(PYTHON) bench/peers.py --build-dir $(BUILD_DIR)

bench-setup:
	@bash scripts/bench-setup.sh "$(PYTHON)"

# Regenerates the dialect and pass reference in docs/ from ODS.
docs: build
	ninja -C $(BUILD_DIR) jeet-doc

# The self-contained wheel: dist/jeet-<version>-<tags>.whl (LLVM/MLIR linked
# into the extension; its own CMake tree in $(WHEEL_BUILD_DIR)).
wheel: setup
	@bash scripts/build-wheel.sh "$(PYTHON)" $(WHEEL_BUILD_DIR) $(JOBS)

# Installs the wheel into a fresh virtual environment and checks that it
# needs no LLVM: library resolution, a graph on the CPU, PTX, the seed.
wheel-check: wheel
	@bash scripts/check-wheel.sh "$(PYTHON)"

clean:
	rm -rf $(BUILD_DIR) $(WHEEL_BUILD_DIR) dist

# --------------------------------------------------------------------------
# Reliability (docs/Reliability.md): fuzzing, sanitizers, soak, planted
# faults, compile-time scaling. The fuzz and sanitizer builds live in build
# directories of their own; the main build stays as it is.
.PHONY: fuzz test-sanitize test-tsan soak mutation-check bench-compile-time

FUZZ_BUILD_DIR ?= build-fuzz
ASAN_BUILD_DIR ?= build-asan
TSAN_BUILD_DIR ?= build-tsan
FUZZ_SECONDS ?= 60
FUZZ_CC ?= $(LLVM_DIR)/bin/clang
FUZZ_CXX ?= $(LLVM_DIR)/bin/clang++
FUZZ_APT_PACKAGES := clang-22 libclang-rt-22-dev
CMAKE_COMMON = -G Ninja -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  $$(command -v ld.lld >/dev/null && echo -DLLVM_USE_LINKER=lld) \
	  $$(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache) \
	  -DPython_EXECUTABLE=$$(command -v $(PYTHON))

# libFuzzer over every fuzz target for FUZZ_SECONDS each (the corpora grow in
# $(FUZZ_BUILD_DIR)/fuzz/live), then the Python graph-builder fuzzer and the numeric fuzzer; a table
# of executions per target at the end. Runs at the lowest priority.
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined \
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer -gline-tables-only
$(FUZZ_BUILD_DIR)/build.ninja:
	CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) cmake -S . -B $(FUZZ_BUILD_DIR) $(CMAKE_COMMON) \
	  -DCMAKE_BUILD_TYPE=Release -DJEET_LIBFUZZER=ON \
	  -DCMAKE_C_FLAGS="$(FUZZ_FLAGS)" -DCMAKE_CXX_FLAGS="$(FUZZ_FLAGS)"

# FUZZ_TARGETS chooses some of them (the parsers alone need only the
# runtime built: FUZZ_TARGETS="jeet-fuzz-npy jeet-fuzz-tensor-text").
FUZZ_TARGETS ?= jeet-fuzz-npy jeet-fuzz-tensor-text jeet-fuzz-mlir-cpu \
  jeet-fuzz-mlir-gpu
fuzz: build
	@bash scripts/setup.sh "$(PYTHON)" "$(FUZZ_APT_PACKAGES)" ""
	$(MAKE) $(FUZZ_BUILD_DIR)/build.ninja
	nice -n 19 ninja -C $(FUZZ_BUILD_DIR) -j$(JOBS) jeet-fuzz-corpus $(FUZZ_TARGETS)
	@FUZZ_TARGETS="$(FUZZ_TARGETS)" bash scripts/fuzz.sh $(FUZZ_BUILD_DIR) \
	  $(BUILD_DIR) $(FUZZ_SECONDS) "$(PYTHON)"

# The whole suite (lit, unit tests, pytest) built with AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer (gcc, like the main build).
# JIT'ed kernels are not instrumented; Python runs with libasan preloaded
# (scripts/test-sanitize.sh says what runs how).
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer
# -O1: ASan's recommended level, and the instrumented build compiles in about
# half the time of -O3 (docs/Reliability.md has the CI timing). Without
# NDEBUG: the asserts that LLVM's and MLIR's headers inline into our code
# (cast<> of the wrong kind, an index past an ArrayRef or SmallVector) abort
# there, where the release build reads on silently.
SANITIZE_OPT := -O1
$(ASAN_BUILD_DIR)/build.ninja:
	cmake -S . -B $(ASAN_BUILD_DIR) $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_FLAGS="$(SANITIZE_FLAGS)" -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS)" \
	  -DCMAKE_C_FLAGS_RELEASE="$(SANITIZE_OPT)" \
	  -DCMAKE_CXX_FLAGS_RELEASE="$(SANITIZE_OPT)" \
	  -DJEET_FUZZ_TEST_SECONDS=2

test-sanitize: setup
	$(MAKE) $(ASAN_BUILD_DIR)/build.ninja
	ninja -C $(ASAN_BUILD_DIR) -j$(JOBS)
	@bash scripts/test-sanitize.sh $(ASAN_BUILD_DIR) "$(PYTHON)"

# ThreadSanitizer over the concurrency tests (executions of one graph from 8
# C++ and 8 Python threads, compilations racing on one key), in a build
# directory of its own, at -O1 like the ASan build.
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
$(TSAN_BUILD_DIR)/build.ninja:
	cmake -S . -B $(TSAN_BUILD_DIR) $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_FLAGS="$(TSAN_FLAGS)" -DCMAKE_CXX_FLAGS="$(TSAN_FLAGS)" \
	  -DCMAKE_C_FLAGS_RELEASE="$(SANITIZE_OPT)" \
	  -DCMAKE_CXX_FLAGS_RELEASE="$(SANITIZE_OPT)"

test-tsan: setup
	$(MAKE) $(TSAN_BUILD_DIR)/build.ninja
	ninja -C $(TSAN_BUILD_DIR) -j$(JOBS) ConcurrencyTest jeet-python
	@bash scripts/test-tsan.sh $(TSAN_BUILD_DIR) "$(PYTHON)"

# 10,000 random graphs through the differential test (fused vs unfused vs
# float64 numpy), at the lowest priority.
soak: build
	JEET_DIFFERENTIAL_GRAPHS=10000 JEET_BUILD_DIR=$$(cd $(BUILD_DIR) && pwd) \
	  PYTHONPATH=$(BUILD_DIR)/python nice -n 19 $(PYTHON) -m pytest -q \
	  -p no:cacheprovider test/numerics/test_fusion_differential.py

# Plants each fault of scripts/mutations.py in turn, rebuilds, runs the tests
# that guard it and reports which caught it (docs/Reliability.md).
mutation-check: build
	$(PYTHON) scripts/mutation-check.py --build-dir $(BUILD_DIR)

# Compile time against graph size (a table; never part of the tests).
bench-compile-time: build
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) bench/compile_time.py
