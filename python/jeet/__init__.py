"""Jeet: declarative tensor graphs compiled into fused kernels.

    import jeet
    A = jeet.tensor([1024, 1024], dtype='float32', device='gpu')
    B = jeet.tensor([1024, 1024], dtype='float32', device='gpu')
    C = jeet.matmul(A, B)      # declares, does not execute
    result = C.execute()       # compiles (cached), runs, returns a materialised tensor

Ops are lazy: they record a graph and check shapes at once. execute() (or
numpy()) compiles the graph through the process-wide cache (equal structure,
shapes, dtypes and device reuse the compiled code; new data never recompiles)
and runs it.
"""

from . import _jeet
from ._device import gpu_status as _gpu_status
from ._dtypes import ArgumentError
from ._jit import jit
from ._tensor import (
    CompiledGraph,
    Tensor,
    abs,
    add,
    arange,
    broadcast_to,
    cast,
    compile,
    div,
    execute,
    exp,
    explain,
    from_numpy,
    full,
    gelu,
    log,
    matmul,
    max,
    maximum,
    mean,
    minimum,
    mul,
    neg,
    ones,
    pow,
    rand,
    randn,
    relu,
    reshape,
    rsqrt,
    seed,
    sigmoid,
    softmax,
    sqrt,
    sub,
    sum,
    tanh,
    tensor,
    transpose,
    zeros,
)
from .errors import (
    CompilationError,
    DeviceUnavailableError,
    JeetError,
    OutOfMemoryError,
    ShapeError,
)
from . import _device

from ._version import __version__  # generated from the VERSION file

float32 = "float32"
float16 = "float16"
bfloat16 = "bfloat16"
int32 = "int32"


def devices():
    """The devices the runtime knows: the host, then each CUDA device, each a
    dict with name, kind, available, reason (why unavailable), description
    and emulated (True for the Jeet GPU emulator, which JEET_CUDA_DRIVER
    selects: kernels run on the host CPU, and its times are no GPU speed;
    its description says so too)."""
    return [dict(d) for d in _jeet.devices()]


def gpu_available():
    """True when graphs can run on the GPU (device='auto' picks it)."""
    return _gpu_status()[0]


def _runtime_device(device):
    # The runtime's device: 'gpu' needs a usable CUDA device, not a compiler
    # backend (the runtime reports why it is unusable).
    if isinstance(device, str) and device.lower() in ("gpu", "cuda", "cuda:0"):
        return "cuda:0"
    return _device.runtime_name(_device.resolve(device))


def memory_stats(device="cpu"):
    """The caching allocator's statistics for a device, as a dict:
    allocated_bytes, reserved_bytes, peak_allocated_bytes, num_allocs,
    num_frees, cache_hits, device_mallocs, device_frees, plus
    kernels_launched, memory_limit and the device name."""
    return dict(_jeet.memory_stats(_runtime_device(device)))


def empty_cache(device=None):
    """Returns the allocator's cached free memory to the system (the device
    given, or every device in use)."""
    if device is not None:
        _jeet.empty_cache(_runtime_device(device))
        return
    _jeet.empty_cache("cpu")
    if _jeet.cuda_status(0)[0]:
        _jeet.empty_cache("cuda:0")


def reset_peak_memory_stats(device="cpu"):
    _jeet.reset_peak(_runtime_device(device))


def set_memory_limit(nbytes, device="cpu"):
    """Caps the memory the device's allocator may reserve (0: no cap);
    beyond it allocations raise OutOfMemoryError."""
    _jeet.set_memory_limit(int(nbytes), _runtime_device(device))


def cache_stats():
    """The compiled-graph cache's counters: compilations (graphs compiled)
    and cache_hits (executions that reused a compiled graph), plus entries."""
    stats = dict(_jeet.cache_stats())
    stats["compilations"] -= _device.probe_compilations
    return stats


def clear_cache():
    """Forgets every compiled graph (the next execution compiles again)."""
    _jeet.clear_cache()


__all__ = [
    "Tensor", "CompiledGraph",
    "tensor", "zeros", "ones", "full", "rand", "randn", "arange", "from_numpy", "seed",
    "add", "sub", "mul", "div", "maximum", "minimum", "pow",
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu",
    "matmul", "transpose", "reshape", "broadcast_to", "sum", "max", "mean",
    "softmax", "cast",
    "execute", "compile", "jit", "explain",
    "devices", "gpu_available", "memory_stats", "empty_cache",
    "reset_peak_memory_stats", "set_memory_limit", "cache_stats", "clear_cache",
    "JeetError", "ShapeError", "DeviceUnavailableError", "OutOfMemoryError",
    "CompilationError", "ArgumentError",
    "float32", "float16", "bfloat16", "int32",
]
