"""Differential test of fusion: random graphs run fused and unfused through
jeet-run on the CPU; both agree with each other and with a float64 numpy
reference. The first NUM_GPU_CASES also run fused and unfused on the GPU
(emulated where no GPU answers) and agree with the CPU and numpy. Each case has a fixed seed, printed on failure for replay:
`pytest test/numerics/test_fusion_differential.py -k 'case_17'`."""
import numpy as np
import pytest

from jeetrun import GPU_DRIVERS, assert_close, mlir_type, run_graph

NUM_CASES = 200
# The first cases also run on the GPU (the emulator, and a GPU where one
# answers), fused and unfused, against the CPU and numpy.
NUM_GPU_CASES = 200

UNARY = {
    "neg": np.negative,
    "abs": np.abs,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "relu": lambda x: np.maximum(x, 0),
    "exp": np.exp,  # only applied to bounded values, see below
}
BOUNDED = {"tanh", "sigmoid"}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
          "max": np.maximum, "min": np.minimum}


class GraphGen:
    """Builds a random jeet graph and its numpy reference side by side."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.lines = []
        self.args = []  # (name, array)
        self.values = []  # (name, shape, float64 reference, bounded)
        self.count = 0

    def new_input(self, shape):
        name = f"%arg{len(self.args)}"
        array = self.rng.uniform(-1, 1, size=shape).astype(np.float32)
        self.args.append((name, array))
        self.values.append((name, shape, array.astype(np.float64), True))
        return self.values[-1]

    def emit(self, text, shape, ref, bounded):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text}")
        self.values.append((name, shape, ref, bounded))
        return self.values[-1]

    def pick(self):
        # Prefer recent values so chains get long, but reuse older ones too
        # (multi-consumer values, diamonds).
        n = len(self.values)
        i = n - 1 - min(int(self.rng.exponential(2.0)), n - 1)
        return self.values[i]

    def step(self):
        kind = self.rng.choice(["unary", "binary", "binary", "matmul",
                                "reduce", "transpose", "broadcast"],
                               p=[0.25, 0.2, 0.2, 0.1, 0.1, 0.05, 0.1])
        name, shape, ref, bounded = self.pick()
        t = mlir_type(shape, np.float32)
        if kind == "unary":
            ops = [op for op in UNARY if op != "exp" or bounded]
            op = self.rng.choice(ops)
            self.emit(f"jeet.{op} {name} : {t}", shape, UNARY[op](ref),
                      op in BOUNDED or (bounded and op != "exp"))
        elif kind == "binary":
            # The other operand: a value of the same shape, a row or column
            # of it (broadcast), or a fresh input.
            choice = self.rng.integers(3)
            if choice == 0:
                same = [v for v in self.values if v[1] == shape]
                other = same[self.rng.integers(len(same))]
            elif choice == 1 and len(shape) == 2:
                other = self.new_input((shape[1],) if self.rng.integers(2)
                                       else (shape[0], 1))
            else:
                other = self.new_input(shape)
            op = self.rng.choice(list(BINARY))
            lhs, rhs = (name, other[0]) if self.rng.integers(2) else (other[0], name)
            lref, rref = (ref, other[2]) if lhs == name else (other[2], ref)
            out_shape = np.broadcast_shapes(np.shape(lref), np.shape(rref))
            lt = mlir_type(np.shape(lref), np.float32)
            rt = mlir_type(np.shape(rref), np.float32)
            self.emit(f"jeet.{op} {lhs}, {rhs} : {lt}, {rt} -> "
                      f"{mlir_type(out_shape, np.float32)}", out_shape,
                      BINARY[op](lref, rref), bounded and other[3] and op != "mul")
        elif kind == "matmul" and len(shape) == 2:
            n = int(self.rng.integers(1, 9))
            w = self.new_input((shape[1], n))
            out = (shape[0], n)
            self.emit(f"jeet.matmul {name}, {w[0]} : {t}, "
                      f"{mlir_type(w[1], np.float32)} -> "
                      f"{mlir_type(out, np.float32)}", out, ref @ w[2], False)
        elif kind == "reduce":
            axis = int(self.rng.integers(len(shape)))
            op = self.rng.choice(["reduce_sum", "reduce_max", "reduce_mean"])
            fn = {"reduce_sum": np.sum, "reduce_max": np.max,
                  "reduce_mean": np.mean}[op]
            out = tuple(1 if i == axis else d for i, d in enumerate(shape))
            self.emit(f"jeet.{op} {name} {{axes = array<i64: {axis}>, "
                      f"keepdims = true}} : {t} -> {mlir_type(out, np.float32)}",
                      out, fn(ref, axis=axis, keepdims=True), op != "reduce_sum")
        elif kind == "transpose" and len(shape) == 2:
            out = (shape[1], shape[0])
            self.emit(f"jeet.transpose {name} {{permutation = array<i64: 1, 0>}}"
                      f" : {t} -> {mlir_type(out, np.float32)}", out, ref.T,
                      bounded)
        elif kind == "broadcast" and len(shape) == 2 and 1 in shape:
            out = tuple(int(self.rng.integers(2, 6)) if d == 1 else d
                        for d in shape)
            self.emit(f"jeet.broadcast_to {name} : {t} -> "
                      f"{mlir_type(out, np.float32)}", out,
                      np.broadcast_to(ref, out), bounded)

    def build(self):
        rows, cols = (int(x) for x in self.rng.integers(1, 9, size=2))
        self.new_input((rows, cols))
        for _ in range(int(self.rng.integers(3, 16))):
            self.step()
        # Return every computed value that nothing uses (at most the last
        # four), so that no op is dead.
        used = {tok.rstrip(",") for line in self.lines
                for tok in line.split("=", 1)[1].split() if tok.startswith("%")}
        inputs = {n for n, _ in self.args}
        sinks = [v for v in self.values
                 if v[0] not in used and v[0] not in inputs]
        results = sinks[-4:] or [self.values[-1]]
        params = ", ".join(f"{n}: {mlir_type(a.shape, np.float32)}"
                           for n, a in self.args)
        types = ", ".join(mlir_type(r[1], np.float32) for r in results)
        names = ", ".join(r[0] for r in results)
        src = (f"func.func @main({params}) -> ({types}) {{\n"
               + "\n".join(self.lines)
               + f"\n  return {names} : {types}\n}}\n")
        return src, [a for _, a in self.args], [r[2] for r in results]


@pytest.mark.parametrize("case", range(NUM_CASES), ids=lambda c: f"case_{c}")
def test_fused_matches_unfused_and_numpy(tmp_path, case):
    seed = 20261129 + case
    src, inputs, refs = GraphGen(seed).build()
    fused = run_graph(tmp_path, src, inputs, ["--fuse=true"])
    unfused = run_graph(tmp_path, src, inputs, ["--fuse=false"])
    for i, (f, u, ref) in enumerate(zip(fused, unfused, refs)):
        what = f"seed {seed}, result {i}\n{src}"
        assert_close(f, ref, rtol=1e-4, what="fused vs numpy, " + what)
        assert_close(u, ref, rtol=1e-4, what="unfused vs numpy, " + what)
        assert_close(f, u.astype(np.float64), rtol=1e-4,
                     what="fused vs unfused, " + what)


@pytest.mark.parametrize("gpu", GPU_DRIVERS)
@pytest.mark.parametrize("case", range(NUM_GPU_CASES), ids=lambda c: f"case_{c}")
def test_gpu_matches_cpu_and_numpy(tmp_path, case, gpu):
    seed = 20261129 + case
    src, inputs, refs = GraphGen(seed).build()
    cpu = run_graph(tmp_path, src, inputs)
    for fuse in ("true", "false"):
        outs = run_graph(tmp_path, src, inputs, [f"--fuse={fuse}"], gpu=gpu)
        for i, (g, c, ref) in enumerate(zip(outs, cpu, refs)):
            what = f"seed {seed}, {gpu} fuse={fuse}, result {i}\n{src}"
            assert_close(g, ref, rtol=1e-4, what="gpu vs numpy, " + what)
            assert_close(g, c.astype(np.float64), rtol=1e-4,
                         what="gpu vs cpu, " + what)
