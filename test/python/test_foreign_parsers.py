"""Graph text is parsed knowing only the dialects of a graph (jeet, func):
text holding ops whose MLIR 22 parsers crash must raise CompilationError
naming the op, its dialect and its line, even after other compilations in
the same process (the compiler's context then has every dialect loaded,
linalg among them). Each case runs in a subprocess: a regression ends that
process, not pytest."""

import os
import subprocess
import sys
import textwrap

import pytest

GOOD = """
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = jeet.matmul %a, %b : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
"""

# MLIR 22's linalg named-op parser reads `<i32>` as the op's properties
# dictionary (an abort or a segfault once linalg ops went through the
# context); its vector parser tries to make 2^62 operand types.
LINALG = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  linalg.matmul <i32>)
}
"""
VECTOR = """func.func @main(%e: f32) -> vector<4611686018427387904xf32> {
  %v = vector.from_elements %e, %e : vector<4611686018427387904xf32>
  return %v : vector<4611686018427387904xf32>
}
"""

CASES = {
    "linalg": (LINALG, "<graph>:2:3: error: Dialect `linalg' not found for "
                       "custom op 'linalg.matmul'"),
    "vector": (VECTOR, "<graph>:2:8: error: Dialect `vector' not found for "
                       "custom op 'vector.from_elements'"),
}

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import jeet
    from jeet import _jeet
    good, bad = sys.argv[1], sys.argv[2]
    # Compilations first, so that the compiler's context has run the whole
    # pipeline (and holds linalg ops' state) when the bad text arrives.
    for _ in range(3):
        exe = _jeet.compile(good, device="cpu", cached=False)
    for _ in range(3):
        try:
            _jeet.compile(bad, device="cpu", cached=False)
        except jeet.CompilationError as e:
            message = str(e)
        else:
            sys.exit("no CompilationError")
    # The compiler still works afterwards.
    rng = np.random.default_rng(14)
    a, b = (rng.standard_normal((2, 2)).astype(np.float32) for _ in "ab")
    out = exe.run([_jeet.RuntimeTensor.from_array(a, "f32"),
                   _jeet.RuntimeTensor.from_array(b, "f32")])[0].numpy()
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-5,
                               atol=1e-6)
    print(message)
""")


@pytest.mark.parametrize("name", sorted(CASES))
def test_foreign_op_after_compilations_raises(name):
    text, expected = CASES[name]
    env = dict(os.environ, JEET_CACHE_DIR="")
    result = subprocess.run([sys.executable, "-c", SCRIPT, GOOD, text],
                            env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, (result.returncode, result.stderr)
    assert expected in result.stdout, result.stdout
    assert "Available dialects: builtin, func, jeet" in result.stdout
