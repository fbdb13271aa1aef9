# Jeet: the two commands a newcomer needs are `make demo` and `make test`.
# Both install what is missing (setup) and build first.

BUILD_DIR ?= build
JOBS ?= 2
PYTHON ?= python3
LLVM_DIR ?= /usr/lib/llvm-22
APT_PACKAGES := cmake ninja-build g++ llvm-22-dev libmlir-22-dev mlir-22-tools \
  llvm-22-tools libomp-22-dev libgtest-dev
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
