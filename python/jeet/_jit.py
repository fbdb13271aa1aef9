"""jeet.jit: trace a function once per (shapes, dtypes, device) and reuse."""

import functools
import numbers

import numpy as np

from . import _tensor
from ._tensor import Tensor
from .errors import JeetError


def _arg_key(arg):
    if isinstance(arg, Tensor):
        return ("tensor", arg._shape, arg._dtype, arg._device or "cpu")
    if isinstance(arg, np.ndarray):
        # Traced as a tensor of its shape and dtype; each call copies it
        # into one (jeet.from_numpy) on the default device.
        return ("array", arg.shape, arg.dtype.str)
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


def _flat_arguments(args, kwargs):
    """The arguments, then the keyword arguments in name order: the order
    of a trace's inputs (trace.positions index it). A sequence to index, not
    to change: `args` itself (a tuple) when there are no keyword arguments,
    which spares a cached call a copy, else a new list."""
    return args if not kwargs else list(args) + [kwargs[k] for k in sorted(kwargs)]


class _Trace:
    """One traced specialisation: the compiled graph and how to assemble the
    function's results."""

    __slots__ = ("executable", "captured", "plan", "structure", "device", "text",
                 "positions", "source")


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
        # The arguments, then the keyword arguments in name order: tensors
        # and arrays among them are the graph's inputs.
        names = sorted(kwargs)
        flat = list(_flat_arguments(args, kwargs))
        # Arrays go to the device of the tensor arguments (the default
        # device where there are none).
        device = next((a.device for a in flat if isinstance(a, Tensor)), "auto")
        flat = [_tensor.from_numpy(a, device) if isinstance(a, np.ndarray) else a
                for a in flat]
        tensors = [a for a in flat if isinstance(a, Tensor)]
        placeholders = [
            Tensor._new(t._shape, t._dtype, t.device, op="_arg") for t in tensors
        ]
        it = iter(placeholders)
        traced = [next(it) if isinstance(a, Tensor) else a for a in flat]
        traced_kwargs = dict(zip(names, traced[len(args):]))
        tracing = _tensor._TRACING.names
        tracing.append(getattr(self._fn, "__name__", "the function"))
        with _tensor._traces_lock:
            _tensor._traces_running += 1
        try:
            result = self._fn(*traced[:len(args)], **traced_kwargs)
        finally:
            tracing.pop()
            with _tensor._traces_lock:
                _tensor._traces_running -= 1
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
                # The result's type is known now: later calls wrap the
                # runtime tensor without asking it.
                plan.append(("out", len(nodes), out._shape, out._dtype))
                nodes.append(out)

        trace = _Trace()
        trace.positions = [i for i, a in enumerate(flat) if isinstance(a, Tensor)]
        trace.plan = plan
        trace.structure = structure
        trace.executable = None
        trace.captured = []
        trace.device = tensors[0].device if tensors else None
        trace.text = None
        if nodes:
            built = _tensor._build(nodes, placeholders)
            trace.executable = _tensor._compile(built.text, built.device)
            trace.captured = built.leaves
            trace.device = built.device
            trace.text = built.text
        trace.source = (trace.text, trace.device)
        return trace

    def __call__(self, *args, **kwargs):
        if _tensor._traces_running and _tensor._TRACING.names:
            # Called while another function is traced: its ops join that
            # graph (as JAX inlines a nested jit).
            return self._fn(*args, **kwargs)
        # The path of every cached call: kept short.
        key = (
            # Tensors inline (no call per argument); the rest by _arg_key.
            tuple([("tensor", a._shape, a._dtype, a._device or "cpu")
                   if type(a) is Tensor else _arg_key(a) for a in args]),
            tuple(sorted((k, _arg_key(v)) for k, v in kwargs.items()))
            if kwargs else (),
            _tensor._options["cuda_graphs"],
        )
        trace = self._traces.get(key)
        if trace is None:
            trace = self._trace(args, kwargs)
            self._traces[key] = trace
        flat = _flat_arguments(args, kwargs)
        tensors = [flat[i] for i in trace.positions]
        results = ()
        if trace.executable is not None:
            inputs = []
            for i, t in enumerate(tensors):
                if type(t) is np.ndarray:
                    t = tensors[i] = _tensor.from_numpy(t, trace.device)
                elif t._rt is None:
                    t.execute()
                inputs.append(t._rt)
            for c in trace.captured:
                inputs.append(c._rt)
            results = trace.executable.run(inputs)
        values = []
        for step in trace.plan:
            kind = step[0]
            if kind == "out":
                values.append(Tensor._result(results[step[1]], step[2], step[3],
                                             trace.device, trace.source))
            elif kind == "arg":
                values.append(tensors[step[1]])
            else:
                values.append(step[1])
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

    Keyword arguments are arguments as well (tensors and arrays among
    them are inputs of the graph). A jit function called while another is
    traced is traced into that graph. The values of traced tensors are not
    known while the function is traced: Python control flow on them is an
    error naming the function (use jeet.where, or a static argument).

    A NumPy array argument is a tensor argument too: each call copies it
    into a tensor (as `jeet.from_numpy` does, float64 becoming float32) on
    the device of the other tensor arguments (the default device when there
    are none).
    A result that is such an argument returned as it is is that copy.

    The wrapper has `num_traces` and `cache_clear()`."""
    return _JitFunction(fn)
