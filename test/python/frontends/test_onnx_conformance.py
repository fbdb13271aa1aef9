"""The ONNX backend node tests for every op Jeet claims (onnx_node_cases.py
says which and why the others are out of scope): each case's model is
imported with jeet.onnx.load, run on the case's inputs, and compared with
its expected outputs at the case's own tolerances. The counts are printed
at the end of the run."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

import jeet.onnx  # noqa: E402

import onnx_node_cases as cases  # noqa: E402

import frontends_summary  # noqa: E402,F401 (prints the counts at the end)


def pytest_generate_tests(metafunc):
    if "case" not in metafunc.fixturenames:
        return
    # A run of the GPU tests alone (make test's pass on the GPU emulator)
    # selects none of these CPU cases: skip generating them (20 s).
    if (metafunc.config.getoption("markexpr", "") or "").strip() == "gpu":
        metafunc.parametrize("case", [])
        return
    in_scope, out_of_scope, unclaimed, total = cases.collect()
    cases.Stats.collected = True
    cases.Stats.total = total
    cases.Stats.in_scope = len(in_scope)
    cases.Stats.out_of_scope = out_of_scope
    cases.Stats.unclaimed = unclaimed
    metafunc.parametrize("case", in_scope, ids=[c.name for c in in_scope])


def test_node(case):
    try:
        model = jeet.onnx.load(case.model, device="cpu")
        for inputs, expected in case.data_sets:
            inputs = [cases.as_array(v) for v in inputs]
            outputs = model(*inputs)
            assert len(outputs) == len(expected)
            for i, (name, got, want) in enumerate(
                    zip(model.output_names, outputs, expected)):
                want = cases.as_array(want)
                got = np.asarray(got)
                assert got.shape == want.shape, f"output '{name}': shape"
                assert got.dtype == want.dtype, f"output '{name}': dtype"
                np.testing.assert_allclose(
                    got, want, rtol=cases.rtol(case, i), atol=case.atol,
                    err_msg=f"output '{name}' of {case.name}")
    except BaseException:
        cases.Stats.failed.append(case.name)
        raise
    cases.Stats.passed += 1
