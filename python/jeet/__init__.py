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
    acos,
    acosh,
    add,
    arange,
    argmax,
    argmin,
    array,
    asarray,
    asin,
    asinh,
    atan,
    atanh,
    avg_pool2d,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    broadcast_to,
    cast,
    ceil,
    compile,
    concat,
    concatenate,
    conv2d,
    cos,
    cosh,
    cuda_graphs_enabled,
    div,
    divide,
    eq,
    erf,
    execute,
    exp,
    explain,
    floor,
    floor_divide,
    fmod,
    from_dlpack,
    from_numpy,
    full,
    gather,
    ge,
    gelu,
    gt,
    iota,
    le,
    log,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    matmul,
    max,
    max_pool2d,
    maximum,
    mean,
    min,
    minimum,
    mul,
    ne,
    neg,
    ones,
    pad,
    pow,
    prod,
    rand,
    randn,
    relu,
    remainder,
    reshape,
    round,
    rsqrt,
    seed,
    set_cuda_graphs,
    sigmoid,
    sin,
    sinh,
    softmax,
    sqrt,
    sub,
    sum,
    take,
    tan,
    tanh,
    tensor,
    transpose,
    true_divide,
    where,
    zeros,
)
from ._numpy_functions import (
    absolute,
    all,
    allclose,
    amax,
    amin,
    any,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctanh,
    clip,
    diag,
    dot,
    exp2,
    expand_dims,
    expm1,
    eye,
    flatten,
    flip,
    full_like,
    hstack,
    hypot,
    isclose,
    isfinite,
    isinf,
    isnan,
    linspace,
    log10,
    log1p,
    log2,
    log_softmax,
    logaddexp,
    logsumexp,
    moveaxis,
    multiply,
    nan_to_num,
    negative,
    ones_like,
    outer,
    permute_dims,
    power,
    ravel,
    repeat,
    roll,
    sign,
    split,
    square,
    squeeze,
    stack,
    std,
    subtract,
    swapaxes,
    tile,
    trace,
    tril,
    triu,
    var,
    vstack,
    zeros_like,
    topk,
)
from .errors import (
    CompilationError,
    DeviceUnavailableError,
    JeetError,
    OutOfMemoryError,
    ShapeError,
)
from . import _device, _tensor

from ._version import __version__  # generated from the VERSION file

float32 = "float32"
float16 = "float16"
bfloat16 = "bfloat16"
int32 = "int32"
int64 = "int64"
bool = "bool"  # jeet.bool; not in __all__, which would shadow the builtin


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
    num_frees, cache_hits, device_mallocs, device_frees; what the host asked
    of the device: kernels_launched (one by one), graph_launches (replayed
    CUDA graphs), h2d_bytes and d2h_bytes (copies between host and device),
    synchronizations (host waits); and memory_limit and the device name."""
    return dict(_jeet.memory_stats(_runtime_device(device)))


def synchronize(device="gpu"):
    """Waits for the work queued on the device (GPU executions return
    without waiting). Work that failed raises JeetError here, naming its
    graph; the tensors it was to compute raise it again when read."""
    _jeet.synchronize(_runtime_device(device))


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
    and cache_hits (executions that reused a compiled graph), plus entries,
    disk_hits (graphs read from JEET_CACHE_DIR) and key_hits (the cache hits
    of redefined graphs found by their structural key, before any MLIR was
    made)."""
    stats = dict(_jeet.cache_stats())
    stats["compilations"] -= _device.probe_compilations
    stats["key_hits"] = _tensor.key_hits
    stats["cache_hits"] += _tensor.key_hits
    return stats


def clear_cache():
    """Forgets every compiled graph (the next execution compiles again)."""
    _tensor.clear_graph_keys()
    _jeet.clear_cache()


__all__ = [
    "Tensor", "CompiledGraph",
    "tensor", "zeros", "ones", "full", "rand", "randn", "arange", "from_numpy", "asarray", "array",
    "from_dlpack", "seed",
    "add", "sub", "mul", "div", "true_divide", "divide", "floor_divide", "maximum", "minimum", "pow", "fmod", "remainder",
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu",
    "erf", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
    "acosh", "atanh", "floor", "ceil", "round",
    "eq", "ne", "lt", "le", "gt", "ge", "where",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "matmul", "transpose", "reshape", "broadcast_to", "sum", "max", "mean",
    "min", "prod", "argmax", "argmin", "iota",
    "concatenate", "concat", "take", "gather", "pad",
    "conv2d", "max_pool2d", "avg_pool2d",
    "softmax", "cast",
    "squeeze", "expand_dims", "flatten", "ravel", "stack", "flip", "tril", "triu",
    "zeros_like", "ones_like", "full_like", "linspace", "eye",
    "clip", "square", "sign", "isnan", "isinf", "isfinite", "log1p", "expm1",
    "log2", "log10", "exp2", "any", "all", "var", "std", "log_softmax", "logsumexp", "topk",
    "subtract", "multiply", "power", "negative", "absolute", "amax", "amin",
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "swapaxes",
    "moveaxis", "permute_dims", "outer", "dot", "vstack", "hstack", "roll",
    "isclose", "allclose", "nan_to_num", "logaddexp", "repeat", "tile", "split",
    "diag", "trace", "hypot",
    "execute", "compile", "jit", "explain",
    "devices", "gpu_available", "memory_stats", "empty_cache", "synchronize",
    "set_cuda_graphs", "cuda_graphs_enabled",
    "reset_peak_memory_stats", "set_memory_limit", "cache_stats", "clear_cache",
    "JeetError", "ShapeError", "DeviceUnavailableError", "OutOfMemoryError",
    "CompilationError", "ArgumentError",
    "float32", "float16", "bfloat16", "int32", "int64",
]


def __getattr__(name):
    # The frontends jeet.onnx and jeet.torch load on first use: they need
    # packages (onnx, torch) that `import jeet` does not.
    if name in ("onnx", "torch"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'jeet' has no attribute {name!r}")
