# -*- Python -*-
# lit configuration for the Jeet test suite.

import ctypes
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Jeet"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.jeet_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%jeet_src_root", config.jeet_src_root))
config.substitutions.append(("%jeet_obj_root", config.jeet_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.jeet_tools_dir, append_path=True)

# The Python that has numpy (the one CMake was configured with).
python = config.python_executable or shutil.which("python3") or "python3"
config.substitutions.insert(0, ("%python", python))

tools = ["jeet-opt", "jeet-translate", "jeet-run", "jeet-compile", "jeet-runner"]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="ignore") for t in tools], [config.jeet_tools_dir]
)

# `asan`: the tools are built with AddressSanitizer (make test-sanitize).
# Tests that build a program of their own against the installed libraries
# are unsupported there: that program would need the same instrumentation.
if "-fsanitize=address" in getattr(config, "jeet_cxx_flags", ""):
    config.available_features.add("asan")
# make test-sanitize runs OpenMP single-threaded (scripts/test-sanitize.sh
# says why); lit passes only the variables it is told to.
if "OMP_NUM_THREADS" in os.environ:
    config.environment["OMP_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"]
# scripts/run-tests.sh fills the allocators' buffers with NaN bytes
# (JEET_POISON_HOST_MEMORY, JEET_POISON_DEVICE_MEMORY, README): the tools
# the tests run do too.
for poison in ("JEET_POISON_HOST_MEMORY", "JEET_POISON_DEVICE_MEMORY"):
    if poison in os.environ:
        config.environment[poison] = os.environ[poison]

def host_cpu_flags():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


cpu_flags = host_cpu_flags()
# `host-runs-znver4`: code compiled for Zen 4 (--target-cpu=znver4, which
# rounds to bf16 with vcvtneps2bf16) runs here: this CPU has the AVX-512
# extensions and the other instruction sets LLVM may use for it (Zen 4,
# Zen 5, Sapphire Rapids and later).
ZNVER4_FLAGS = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl",
                "avx512ifma", "avx512vbmi", "avx512_vbmi2", "avx512_vnni",
                "avx512_bitalg", "avx512_vpopcntdq", "avx512_bf16", "gfni",
                "vaes", "vpclmulqdq", "fma", "f16c", "bmi1", "bmi2", "movbe",
                "adx", "abm"}
if ZNVER4_FLAGS <= cpu_flags:
    config.available_features.add("host-runs-znver4")

# `ptxas`: the CUDA assembler is installed, so PTX tests can assemble their
# output.
ptxas = shutil.which(
    "ptxas", path=os.pathsep.join([os.path.join(config.cuda_root, "bin"),
                                   os.environ.get("PATH", "")]))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))


# `binutils-ld`: the system's GNU linker, which links the GPU emulation
# target's kernels where LLVM's lld is not installed.
if shutil.which("ld"):
    config.available_features.add("binutils-ld")

# `gpu-emulator`: libjeet_cuda_emulator.so is built, so GPU tests run on it
# (kernels compiled for the host by the GPU emulation target). Prefix a
# command with %on_emulator to run it there; %jeet_emulator is the library.
emulator = os.path.join(config.jeet_lib_dir, "libjeet_cuda_emulator.so")
if os.path.exists(emulator):
    config.available_features.add("gpu-emulator")
    config.substitutions.append(("%jeet_emulator", emulator))
    config.substitutions.append(
        ("%on_emulator", f"env JEET_CUDA_DRIVER={emulator}"))


# `cuda-driver`: a real CUDA driver is installed and reports at least one
# device, so GPU tests also run on hardware and hardware-only tests run.
# Elsewhere those lines are skipped and hardware-only files are UNSUPPORTED.
# The emulator, which exports the driver's entry points too, never counts:
# it is recognised by its own export, jeetEmulatorVersion.
def cuda_driver_answers():
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    if hasattr(cuda, "jeetEmulatorVersion"):
        return False
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0:
        return False
    if cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return False
    return count.value > 0


if cuda_driver_answers():
    config.available_features.add("cuda-driver")


# The version (the VERSION file): %jeet_version is major.minor.patch,
# %jeet_version_minor major.minor, %jeet_version_next_minor and
# %jeet_version_previous_minor the minor versions around it (which the
# installed package must refuse).
with open(os.path.join(config.jeet_src_root, "VERSION")) as version_file:
    jeet_version = version_file.read().strip()
major, minor = (int(part) for part in jeet_version.split(".")[:2])
previous = f"{major}.{minor - 1}" if minor else f"{max(major - 1, 0)}.999"
config.substitutions.append(("%jeet_version_next_minor", f"{major}.{minor + 1}"))
config.substitutions.append(("%jeet_version_previous_minor", previous))
config.substitutions.append(("%jeet_version_minor", f"{major}.{minor}"))
config.substitutions.append(("%jeet_version", jeet_version))
