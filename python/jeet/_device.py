"""Device names: 'cpu', 'gpu', 'auto' and their resolution."""

from . import _jeet
from ._dtypes import ArgumentError
from .errors import CompilationError, DeviceUnavailableError

_CPU_NAMES = ("cpu", "host")
_GPU_NAMES = ("gpu", "cuda", "cuda:0")

_gpu_status = None  # (usable: bool, reason: str), once known
probe_compilations = 0  # compilations spent probing the GPU backend

# The smallest graph, to ask the compiler whether it has a GPU backend.
_PROBE = """module {
  func.func @main(%arg0: tensor<1xf32>) -> tensor<1xf32> {
    %0 = jeet.neg %arg0 : tensor<1xf32>
    return %0 : tensor<1xf32>
  }
}
"""


def gpu_status():
    """(True, '') when Jeet can run graphs on the GPU, else (False, why).

    Both the runtime (a usable CUDA device and driver) and the compiler (a GPU
    backend) must agree."""
    global _gpu_status, probe_compilations
    if _gpu_status is None:
        ok, reason = _jeet.cuda_status(0)
        if ok:
            try:
                probe_compilations += 1
                _jeet.compile(_PROBE, device="gpu", cached=False)
            except CompilationError as error:
                ok = False
                reason = (
                    "the CUDA device is usable but this build of Jeet "
                    f"cannot compile for it: {error}"
                )
        _gpu_status = (ok, reason)
    return _gpu_status


def resolve(device):
    """The concrete device ('cpu' or 'gpu') that `device` names.

    'gpu' without a usable GPU raises DeviceUnavailableError with the reason;
    'auto' picks the GPU when usable, else the CPU."""
    if not isinstance(device, str):
        raise ArgumentError(
            f"device must be a string ('cpu', 'gpu' or 'auto'), got {device!r}"
        )
    name = device.lower()
    if name in _CPU_NAMES:
        return "cpu"
    if name in _GPU_NAMES:
        ok, reason = gpu_status()
        if not ok:
            raise DeviceUnavailableError(
                f"device {device!r} is unavailable: {reason}"
            )
        return "gpu"
    if name == "auto":
        return "gpu" if gpu_status()[0] else "cpu"
    raise ArgumentError(
        f"unknown device {device!r}: expected 'cpu', 'gpu' (or 'cuda') or 'auto'"
    )


def runtime_name(device):
    """The runtime's name for a concrete device."""
    return "cpu" if device == "cpu" else "cuda:0"
