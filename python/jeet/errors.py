"""Jeet's exceptions. Every error Jeet raises is a JeetError."""

__all__ = [
    "JeetError",
    "ShapeError",
    "DeviceUnavailableError",
    "OutOfMemoryError",
    "CompilationError",
]


class JeetError(Exception):
    """Base class of every error Jeet raises."""


class ShapeError(JeetError, ValueError):
    """Operands whose shapes (or element types) an op does not accept.

    Raised when the op is defined, not when the graph executes; the message
    names the op and the operand shapes."""


class DeviceUnavailableError(JeetError, RuntimeError):
    """The requested device cannot be used; the message says why."""


class OutOfMemoryError(JeetError, MemoryError):
    """An allocation failed even after the allocator emptied its cache."""


class CompilationError(JeetError, RuntimeError):
    """The compiler rejected a graph; `diagnostic` holds MLIR's diagnostics."""

    def __init__(self, message, diagnostic=None):
        super().__init__(message)
        self.diagnostic = message if diagnostic is None else diagnostic
