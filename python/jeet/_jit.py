"""jeet.jit: trace a function once per (shapes, dtypes, device) and reuse."""

import functools
import numbers

import numpy as np

from . import _tensor
from ._tensor import Tensor
from .errors import JeetError


def _arg_key(arg):
    if type(arg) is Tensor or isinstance(arg, Tensor):
        return ("tensor", arg._shape, arg._dtype, arg._device or "cpu")
    if isinstance(arg, (numbers.Number, np.generic, str, type(None))):
        return ("static", type(arg).__name__, arg)
    if isinstance(arg, (tuple, list)):
        return ("seq", type(arg).__name__, tuple(_arg_key(a) for a in arg))
    try:
        hash(arg)
    except TypeError:
        raise TypeError(
            f"jeet.jit: unsupported argument of type {type(arg).__name__} "
            "(pass jeet.Tensors, or hashable static values)"
        ) from None
    return ("static", type(arg).__name__, arg)


class _Trace:
    """One traced specialisation: the compiled graph and how to assemble the
    function's results."""

    __slots__ = ("executable", "captured", "plan", "structure", "device", "text",
                 "out_types")


class _JitFunction:
    def __init__(self, fn):
        self._fn = fn
        self._traces = {}
        self.num_traces = 0
        functools.update_wrapper(self, fn)

    def cache_clear(self):
        self._traces.clear()

    @property
    def cache_size(self):
        return len(self._traces)

    def _trace(self, args, kwargs):
        tensors = [a for a in args if isinstance(a, Tensor)]
        placeholders = [
            Tensor._new(t._shape, t._dtype, t.device, op="_arg") for t in tensors
        ]
        it = iter(placeholders)
        traced_args = [next(it) if isinstance(a, Tensor) else a for a in args]
        result = self._fn(*traced_args, **kwargs)
        self.num_traces += 1

        structure = "single"
        outputs = result
        if isinstance(result, (tuple, list)):
            structure = type(result)
            outputs = list(result)
        else:
            outputs = [result]
        index = {id(p): i for i, p in enumerate(placeholders)}
        plan = []  # per result: ('arg', i) | ('out', j) | ('const', tensor)
        nodes = []
        for out in outputs:
            if not isinstance(out, Tensor):
                raise JeetError(
                    f"jeet.jit: {self._fn.__name__} must return jeet.Tensors, "
                    f"got {type(out).__name__}"
                )
            if id(out) in index:
                plan.append(("arg", index[id(out)]))
            elif out._rt is not None or out._op == "constant":
                plan.append(("const", out))
            else:
                plan.append(("out", len(nodes)))
                nodes.append(out)

        trace = _Trace()
        trace.plan = plan
        trace.structure = structure
        trace.executable = None
        trace.captured = []
        trace.device = tensors[0].device if tensors else None
        trace.text = None
        # The results' shapes and dtypes are known from the trace: a call
        # wraps the runtime's tensors without asking them.
        trace.out_types = [(n._shape, n._dtype) for n in nodes]
        if nodes:
            built = _tensor._build(nodes, placeholders)
            trace.executable = _tensor._compile(built.text, built.device)
            trace.captured = built.leaves
            trace.device = built.device
            trace.text = built.text
        return trace

    def __call__(self, *args, **kwargs):
        key = (
            tuple([_arg_key(a) for a in args]),
            tuple(sorted((k, _arg_key(v)) for k, v in kwargs.items()))
            if kwargs else (),
        )
        trace = self._traces.get(key)
        if trace is None:
            trace = self._trace(args, kwargs)
            self._traces[key] = trace
        tensors = [a for a in args if type(a) is Tensor or isinstance(a, Tensor)]
        results = []
        if trace.executable is not None:
            inputs = []
            for t in tensors:
                if t._rt is None:
                    t.execute()
                inputs.append(t._rt)
            for c in trace.captured:
                inputs.append(c._rt)
            results = trace.executable.run(inputs)
        values = []
        source = (trace.text, trace.device)
        for kind, what in trace.plan:
            if kind == "arg":
                values.append(tensors[what])
            elif kind == "const":
                values.append(what)
            else:
                shape, dtype = trace.out_types[what]
                t = Tensor._new((), dtype, trace.device, rt=results[what])
                t._shape = shape
                t._source = source
                values.append(t)
        if trace.structure == "single":
            return values[0]
        return trace.structure(values)

    def __repr__(self):
        return f"<jeet.jit {self._fn.__name__}: {self.num_traces} trace(s)>"


def jit(fn):
    """Traces `fn` on symbolic tensors once per (shapes, dtypes, device) of
    its tensor arguments (other arguments are static: part of the key),
    compiles the graph through the cache, and runs the compiled graph on
    every later call with matching arguments.

    The wrapper has `num_traces` and `cache_clear()`."""
    return _JitFunction(fn)
