"""Random jeet graphs with a float64 numpy reference, for the differential
test of fusion (test_fusion_differential.py).

A graph has one element type (f32, f16, bf16 or i32), shapes with 0-, 1-,
odd and prime sizes, ranks 0 to 4, broadcasting between operands of
different ranks, long chains, several results, and values reused across
transposes, reductions and matmuls (e.g. a=exp(x); t=transpose(a);
b=neg(t); add(b, a)), which is what makes fusion legality hard, and
matmuls that read transposed operands (folded into the matmul, or not when
something else reads the transpose too).

bf16 has no .npy dtype: a bf16 graph takes f32 inputs holding bf16 values,
casts them to bf16 first and its results back to f32 last (both exact).
"""
import math
import warnings

import numpy as np

# Sizes: 1 (broadcasting), odd and prime sizes, powers of two and their
# neighbours (vector remainders), and 0 (empty tensors).
DIMS = [1, 1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 31, 32, 33]
ZERO_DIM_CHANCE = 0.04
DTYPES = ["f32", "f32", "f32", "f16", "bf16", "i32"]
NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": np.float32,
         "i32": np.int32}

FLOAT_UNARY = ["neg", "abs", "tanh", "sigmoid", "relu", "exp", "gelu"]
INT_UNARY = ["neg", "abs", "relu"]
# Ops that keep values within [-1, 1]-ish when their operands are.
BOUNDING = {"tanh", "sigmoid"}
FLOAT_BINARY = ["add", "sub", "mul", "max", "min"]
INT_BINARY = ["add", "sub", "mul", "max", "min"]


_ERF = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x):
    """jeet.gelu's default form: the exact one, x * Phi(x) (PyTorch's)."""
    return 0.5 * x * (1 + _ERF(np.asarray(x, np.float64) / math.sqrt(2)))


UNARY_REF = {
    "neg": np.negative,
    "abs": np.abs,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "relu": lambda x: np.maximum(x, 0),
    "exp": np.exp,
    "gelu": gelu,
}
BINARY_REF = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
              "max": np.maximum, "min": np.minimum}


def round_bf16(x):
    """float64 values rounded to the nearest bfloat16 (ties to even)."""
    a = np.asarray(x, np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16).astype(np.uint32)
    return r.view(np.float32).astype(np.float64)


class Value:
    __slots__ = ("name", "shape", "ref", "bounded", "depth")

    def __init__(self, name, shape, ref, bounded, depth):
        self.name, self.shape, self.ref = name, tuple(shape), ref
        self.bounded, self.depth = bounded, depth


class GraphGen:
    """Builds a random jeet graph and its reference side by side."""

    def __init__(self, seed, dtypes=DTYPES):
        self.rng = np.random.default_rng(seed)
        self.dtype = str(self.rng.choice(dtypes))
        self.is_int = self.dtype == "i32"
        self.lines = []
        self.args = []    # (name, array given to jeet-run)
        self.values = []  # every Value, inputs first
        self.count = 0

    # -- types and values -----------------------------------------------------

    def elem(self):
        return self.dtype

    def ttype(self, shape, elem=None):
        dims = "".join(f"{d}x" for d in shape)
        return f"tensor<{dims}{elem or self.elem()}>"

    def dim(self):
        if self.rng.random() < ZERO_DIM_CHANCE:
            return 0
        return int(self.rng.choice(DIMS))

    def new_input(self, shape):
        shape = tuple(shape)
        if self.is_int:
            array = self.rng.integers(-9, 10, size=shape).astype(np.int32)
            ref = array.astype(np.int64)
        else:
            values = self.rng.uniform(-1, 1, size=shape)
            if self.dtype == "bf16":
                array = round_bf16(values).astype(np.float32)
            else:
                array = values.astype(NUMPY[self.dtype])
            ref = array.astype(np.float64)
        name = f"%arg{len(self.args)}"
        self.args.append((name, array))
        if self.dtype == "bf16":
            # The graph takes f32 and casts it to bf16 (exactly).
            value = self.emit(f"jeet.cast {name} : {self.ttype(shape, 'f32')} -> "
                              f"{self.ttype(shape)}", shape, ref, True, 0)
        else:
            value = Value(name, shape, ref, True, 0)
            self.values.append(value)
        return value

    def emit(self, text, shape, ref, bounded, depth):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text}")
        if self.is_int:
            # numpy wraps int32 arithmetic exactly as i32 does.
            ref = np.asarray(ref).astype(np.int64).astype(np.int32).astype(np.int64)
        value = Value(name, shape, np.asarray(ref), bounded, depth)
        self.values.append(value)
        return value

    def pick(self):
        # Prefer recent values so chains get long, but reuse older ones too
        # (values with several consumers, diamonds).
        n = len(self.values)
        return self.values[n - 1 - min(int(self.rng.exponential(2.0)), n - 1)]

    # -- ops -----------------------------------------------------------------

    def unary(self, v, op=None):
        if op is None:
            ops = INT_UNARY if self.is_int else [
                o for o in FLOAT_UNARY if o != "exp" or v.bounded]
            op = str(self.rng.choice(ops))
        return self.emit(f"jeet.{op} {v.name} : {self.ttype(v.shape)}", v.shape,
                         UNARY_REF[op](v.ref), op in BOUNDING or
                         (v.bounded and op not in ("exp", "gelu")), v.depth + 1)

    def binary(self, a, b, op=None):
        if op is None:
            op = str(self.rng.choice(INT_BINARY if self.is_int else FLOAT_BINARY))
        out = np.broadcast_shapes(a.shape, b.shape)
        return self.emit(
            f"jeet.{op} {a.name}, {b.name} : {self.ttype(a.shape)}, "
            f"{self.ttype(b.shape)} -> {self.ttype(out)}", out,
            BINARY_REF[op](a.ref, b.ref),
            a.bounded and b.bounded and op not in ("add", "sub", "mul"),
            max(a.depth, b.depth) + 1)

    def broadcast_partner(self, v):
        """Another operand for `v`: a value of the same shape, a suffix of its
        shape with some dims set to 1 (fewer dims: rank-mismatched
        broadcasting), or a shape with 1s that `v` broadcasts into."""
        choice = self.rng.integers(4)
        if choice == 0:
            same = [w for w in self.values if w.shape == v.shape]
            return same[self.rng.integers(len(same))]
        if choice == 1 and v.shape:
            keep = int(self.rng.integers(0, len(v.shape) + 1))
            shape = [d if self.rng.random() < 0.7 else 1
                     for d in v.shape[len(v.shape) - keep:]]
            return self.new_input(shape)
        if choice == 2 and v.shape and 1 in v.shape:
            return self.new_input([self.dim() if d == 1 else d for d in v.shape])
        return self.new_input(v.shape)

    def matmul(self, a, b=None):
        if b is None:
            b = self.new_input((a.shape[-1], self.dim()))
        out = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (
            a.shape[-2], b.shape[-1])
        return self.emit(
            f"jeet.matmul {a.name}, {b.name} : {self.ttype(a.shape)}, "
            f"{self.ttype(b.shape)} -> {self.ttype(out)}", out,
            np.matmul(a.ref, b.ref), False, max(a.depth, b.depth) + 1)

    def reduce(self, v, keepdims=None):
        rank = len(v.shape)
        axes = sorted(int(a) for a in self.rng.choice(
            rank, size=int(self.rng.integers(1, rank + 1)), replace=False))
        ops = ["reduce_sum", "reduce_max"] + ([] if self.is_int else ["reduce_mean"])
        op = str(self.rng.choice(ops))
        if keepdims is None:
            keepdims = bool(self.rng.integers(2))
        out = tuple(1 if i in axes else d for i, d in enumerate(v.shape)
                    if keepdims or i not in axes)
        axis = tuple(axes)
        if op == "reduce_sum":
            ref = np.sum(v.ref, axis=axis, keepdims=keepdims)
        elif op == "reduce_max":
            identity = np.iinfo(np.int32).min if self.is_int else -np.inf
            ref = np.max(v.ref, axis=axis, keepdims=keepdims, initial=identity)
        else:
            # The mean of nothing is 0/0: NaN.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                ref = np.mean(v.ref, axis=axis, keepdims=keepdims)
        attrs = f"axes = array<i64: {', '.join(map(str, axes))}>"
        if keepdims:
            attrs += ", keepdims = true"
        empty = any(v.shape[a] == 0 for a in axes)
        return self.emit(f"jeet.{op} {v.name} {{{attrs}}} : {self.ttype(v.shape)}"
                         f" -> {self.ttype(out)}", out, ref,
                         op != "reduce_sum" and v.bounded and not empty,
                         v.depth + 1)

    def transpose(self, v, perm=None):
        if perm is None:
            perm = [int(p) for p in self.rng.permutation(len(v.shape))]
        out = tuple(v.shape[p] for p in perm)
        return self.emit(
            f"jeet.transpose {v.name} {{permutation = array<i64: "
            f"{', '.join(map(str, perm))}>}} : {self.ttype(v.shape)} -> "
            f"{self.ttype(out)}", out, np.transpose(v.ref, perm), v.bounded,
            v.depth + 1)

    def broadcast_to(self, v):
        out = tuple(self.dim() if d == 1 else d for d in v.shape)
        out = tuple(self.dim() for _ in range(int(self.rng.integers(0, 2)))) + out
        return self.emit(f"jeet.broadcast_to {v.name} : {self.ttype(v.shape)} -> "
                         f"{self.ttype(out)}", out, np.broadcast_to(v.ref, out),
                         v.bounded, v.depth + 1)

    def reshape(self, v):
        size = int(np.prod(v.shape, dtype=np.int64))
        if size == 0:
            out = (0,)
        else:
            dims = [d for d in range(1, size + 1) if size % d == 0]
            first = int(self.rng.choice(dims))
            out = (first, size // first)
        return self.emit(f"jeet.reshape {v.name} : {self.ttype(v.shape)} -> "
                         f"{self.ttype(out)}", out, np.reshape(v.ref, out),
                         v.bounded, v.depth + 1)

    # -- motifs: values reused across transposes, reductions, matmuls --------

    def square(self, v):
        """A square matrix made from `v` when it is one, else a fresh one."""
        if len(v.shape) == 2 and v.shape[0] == v.shape[1]:
            return v
        n = self.dim()
        return self.unary(self.new_input((n, n)))

    def motif_transpose(self, v):
        # a = f(x); t = transpose(a); b = g(t); h(b, a): a feeds both the
        # transpose and the final op.
        a = self.unary(self.square(v))
        b = self.unary(self.transpose(a, [1, 0]))
        return self.binary(b, a)

    def motif_reduce(self, v):
        # a = f(x); r = reduce(a, keepdims); h(a, r): softmax's shape.
        if not v.shape:
            v = self.new_input((self.dim(), self.dim()))
        a = self.unary(v)
        return self.binary(a, self.reduce(a, keepdims=True))

    def motif_matmul(self, v):
        # a = f(x); m = a @ transpose(a); then m @ a + a: a feeds two
        # matmuls (one through a transpose) and their epilogue.
        if len(v.shape) != 2:
            v = self.new_input((self.dim(), self.dim()))
        a = self.unary(v)
        m = self.matmul(a, self.transpose(a, [1, 0]))
        return self.binary(self.matmul(m, a), a)

    def motif_matmul_transposed(self, v):
        # Matmuls that read transposes of matrices (which fusion folds into
        # them): A^T @ B, A @ B^T or both, 2-D or batched; then the same B^T
        # read by a second matmul (folded into both), or by an elementwise op
        # too (materialised), or nothing more.
        batch = tuple(self.dim() for _ in range(int(self.rng.integers(0, 2))))
        swap = list(range(len(batch))) + [len(batch) + 1, len(batch)]
        m, k, n = self.dim(), self.dim(), self.dim()

        def operand(rows, cols, transposed):
            if not transposed:
                return self.new_input(batch + (rows, cols))
            return self.transpose(
                self.unary(self.new_input(batch + (cols, rows))), swap)
        which = int(self.rng.integers(1, 4))  # 1: A^T, 2: B^T, 3: both
        a = operand(m, k, which & 1)
        b = operand(k, n, which & 2)
        c = self.matmul(a, b)
        more = int(self.rng.integers(3))
        if more == 0:
            return self.binary(c, self.matmul(self.new_input(a.shape), b))
        if more == 1:
            self.binary(b, self.new_input(b.shape))
        return c

    def softmax(self, v):
        """jeet.softmax over the last axis (a composite: decomposed before
        fusion into max, sub, exp, sum, div)."""
        axis = len(v.shape) - 1
        shifted = v.ref - np.max(v.ref, axis=axis, keepdims=True, initial=-np.inf)
        e = np.exp(shifted)
        return self.emit(f"jeet.softmax {v.name} {{axis = {axis} : i64}} : "
                         f"{self.ttype(v.shape)}", v.shape,
                         e / np.sum(e, axis=axis, keepdims=True), True,
                         v.depth + 1)

    def motif_attention(self, v):
        # softmax(Q @ K^T * scale) @ V, 2-D or batched: on the CPU one group
        # (the scores and the softmax computed per block of rows) where
        # nothing else reads the scores or the softmax; sometimes the scores
        # are read again (three groups). Integer graphs have no softmax.
        if self.is_int:
            return self.motif_matmul_transposed(v)
        batch = tuple(self.dim() for _ in range(int(self.rng.integers(0, 2))))
        swap = list(range(len(batch))) + [len(batch) + 1, len(batch)]
        m, n, d, e = self.dim(), self.dim(), self.dim(), self.dim()
        q = self.new_input(batch + (m, d))
        kt = self.transpose(self.new_input(batch + (n, d)), swap)
        scores = self.binary(self.matmul(q, kt), self.new_input(()), "mul")
        p = self.softmax(scores)
        out = self.matmul(p, self.new_input(batch + (n, e)))
        if self.rng.integers(4) == 0:
            self.binary(scores, self.new_input(scores.shape))
        return out

    # -- the graph -----------------------------------------------------------

    def step(self):
        kinds = ["unary", "binary", "binary", "matmul", "reduce", "transpose",
                 "broadcast", "reshape", "motif"]
        probs = [0.22, 0.16, 0.16, 0.08, 0.1, 0.07, 0.07, 0.04, 0.1]
        kind = self.rng.choice(kinds, p=probs)
        v = self.pick()
        rank = len(v.shape)
        if kind == "unary":
            self.unary(v)
        elif kind == "binary":
            w = self.broadcast_partner(v)
            a, b = (v, w) if self.rng.integers(2) else (w, v)
            self.binary(a, b)
        elif kind == "matmul" and rank >= 2:
            self.matmul(v)
        elif kind == "reduce" and rank >= 1:
            self.reduce(v)
        elif kind == "transpose" and rank >= 2:
            self.transpose(v)
        elif kind == "broadcast" and rank <= 3:
            self.broadcast_to(v)
        elif kind == "reshape" and rank >= 1:
            self.reshape(v)
        elif kind == "motif":
            motif = self.rng.choice(["transpose", "reduce", "matmul",
                                     "matmul_transposed", "attention"])
            getattr(self, f"motif_{motif}")(v)
        else:
            self.unary(v)

    def build(self):
        rank = int(self.rng.choice([0, 1, 2, 2, 2, 3, 4]))
        self.new_input([self.dim() for _ in range(rank)])
        steps = int(self.rng.integers(40, 80)) if self.rng.random() < 0.1 \
            else int(self.rng.integers(2, 16))
        for _ in range(steps):
            self.step()
        # Results: every computed value nothing uses (the last five at most),
        # and sometimes a value that is also used further on.
        used = {tok.rstrip(",") for line in self.lines
                for tok in line.split("=", 1)[1].split() if tok.startswith("%")}
        computed = [v for v in self.values if v.name.startswith("%v")]
        sinks = [v for v in computed if v.name not in used]
        results = sinks[-5:] or computed[-1:]
        if len(computed) > 1 and self.rng.random() < 0.3:
            results.append(computed[int(self.rng.integers(len(computed) - 1))])
        return self.finish(results)

    def finish(self, results):
        names = []
        for r in results:
            if self.dtype == "bf16":
                # Back to f32 for the .npy output (exact).
                name = f"%out{len(names)}"
                self.lines.append(f"  {name} = jeet.cast {r.name} : "
                                  f"{self.ttype(r.shape)} -> "
                                  f"{self.ttype(r.shape, 'f32')}")
                names.append(name)
            else:
                names.append(r.name)
        arg_elem = "f32" if self.dtype == "bf16" else self.dtype
        out_elem = "f32" if self.dtype == "bf16" else self.dtype
        params = ", ".join(f"{n}: {self.ttype(a.shape, arg_elem)}"
                           for n, a in self.args)
        types = ", ".join(self.ttype(r.shape, out_elem) for r in results)
        src = (f"func.func @main({params}) -> ({types}) {{\n"
               + "\n".join(self.lines)
               + f"\n  return {', '.join(names)} : {types}\n}}\n")
        return Graph(src, [a for _, a in self.args], results, self.dtype)


class Graph:
    """A generated graph: its MLIR text, inputs, results and element type."""

    def __init__(self, source, inputs, results, dtype):
        self.source, self.inputs, self.dtype = source, inputs, dtype
        self.refs = [r.ref for r in results]
        self.depths = [r.depth for r in results]

    def tolerance(self, i):
        """(rtol, atol scale) for result `i` against the float64 reference:
        i32 is exact; floats get their unit roundoff times a margin that
        grows with the number of roundings on the longest path."""
        if self.dtype == "i32":
            return 0.0
        eps = {"f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8}[self.dtype]
        return max(1e-4 if self.dtype == "f32" else 0.0,
                   16 * eps * math.sqrt(self.depths[i] + 1))
