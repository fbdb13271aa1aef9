"""jeet.torch: Jeet as a backend of torch.compile.

    import jeet.torch                     # registers the backend name "jeet"
    compiled = torch.compile(model, backend="jeet")
    with torch.no_grad():
        y = compiled(x)

The backend (jeet.torch.backend) takes dynamo's FX graph to ATen ops with
the core ATen decompositions (traced directly for an inference graph, through
AOT autograd where inputs are changed in place or results are views of
them); the nodes Jeet compiles form
partitions, each one jeet graph fused into kernels and compiled through
Jeet's cache (once per shapes and dtypes); the nodes it does not compile run
in torch between them. Inference only: a graph that would be trained raises
jeet.torch.TrainingError. An installed jeet also declares the backend as a
`torch_dynamo_backends` entry point, so the name works without the import.

    torch.compile(model, backend="jeet", options={"freeze": True})

compiles the parameters and buffers into the code as constants (at the
first call, and again when one changes): faster calls for inference with
fixed weights, as inductor's freezing.
"""

try:
    import torch
except ImportError:
    raise ImportError("jeet.torch needs torch: pip install torch") from None

from ._backend import TrainingError, backend

BACKEND_NAME = "jeet"


def _register():
    from torch._dynamo.backends import registry
    if BACKEND_NAME in registry.list_backends(exclude_tags=()):
        # Registered already, or declared by the installed package's entry
        # point (torch registers that one when the name is first used).
        return
    registry.register_backend(compiler_fn=backend, name=BACKEND_NAME)


_register()


class Explanation:
    """What torch.compile(backend="jeet") made of a function: for each graph
    dynamo captured, the Jeet partitions (their kernels) and the ATen nodes
    left to torch with the reason. str() is the report."""

    def __init__(self, specializations):
        self.specializations = specializations

    @property
    def partitions(self):
        return [p for s in self.specializations for p in s.partitions]

    @property
    def fallbacks(self):
        """(ATen op, node name, reason) of every node that runs in torch."""
        return [f for s in self.specializations for f in s.fallbacks]

    @property
    def num_kernels(self):
        return sum(p.num_kernels for p in self.partitions)

    def __str__(self):
        if not self.specializations:
            return ("no graph: dynamo handed the backend nothing to compile, and "
                    "the function ran in torch as it is (dynamo skips some code: "
                    "nn.RNN, nn.LSTM and nn.GRU modules unless "
                    "torch._dynamo.config.allow_rnn is True, and functions it "
                    "cannot trace; torch._dynamo.explain(fn)(*args) tells more)")
        lines = []
        for i, spec in enumerate(self.specializations):
            lines.append(
                f"graph {i}: {spec.num_aten_ops} ATen op(s); "
                f"{len(spec.partitions)} Jeet partition(s), "
                f"{len(spec.fallbacks)} op(s) run in torch")
            for op, name, reason in spec.fallbacks:
                lines.append(f"  torch: {name} ({op}): {reason}")
            for p in spec.partitions:
                lines.append(f"  {p.name}: {p.num_ops} ATen op(s) -> jeet graph")
                lines.extend("    " + line for line in p.explain().splitlines())
        return "\n".join(lines)

    __repr__ = __str__


def explain(fn, *args, **kwargs):
    """Compiles `fn` (a function or a module) with the jeet backend, runs it
    once on the arguments under torch.no_grad(), and returns an Explanation:
    the partitions, their kernels, and the nodes left to torch."""
    import functools
    specializations = []
    compiled = torch.compile(
        fn, backend=functools.partial(backend, on_compile=specializations.append))
    with torch.no_grad():
        compiled(*args, **kwargs)
    return Explanation(specializations)


def supported_ops():
    """The ATen ops (overloads) Jeet converts, as their names."""
    from ._aten import CONVERTERS
    return sorted(str(op) for op in CONVERTERS)


__all__ = ["backend", "explain", "supported_ops", "Explanation", "TrainingError",
           "BACKEND_NAME"]
