"""The test graphs of scripts/gpu-check.sh (every op family, matmuls,
reductions, the models) on the GPU emulator, and on a GPU where one answers:
the same graphs, inputs (the manifest's seeds) and float64 references and
tolerances as the hardware check. The benchmark graphs stay hardware-only.
Also: `gpu-check.sh run` refuses to report speed from the emulator, and its
residency table, computed on the emulator, shows what it should."""
import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

from jeetrun import BUILD, EMULATOR, GPU_DRIVERS, ROOT, driver_env, run_graph

SCRIPT = ROOT / "scripts" / "gpu-check.sh"
MARKER = "# ---- gpu_check.py ----"


def load_gpu_check():
    """The Python half of gpu-check.sh (what `prepare` writes into DIR)."""
    text = SCRIPT.read_text()
    source = text[text.rindex(MARKER) + len(MARKER):]
    module = types.ModuleType("gpu_check")
    module.__file__ = str(SCRIPT)
    exec(compile(source, str(SCRIPT), "exec"), module.__dict__)
    return module


GPU_CHECK = load_gpu_check()
# The seed of each graph is its position in graphs(), as in the manifest.
TEST_GRAPHS = [(seed, g) for seed, g in enumerate(GPU_CHECK.graphs())
               if g["kind"] == "test"]


@pytest.mark.parametrize("gpu", GPU_DRIVERS)
@pytest.mark.parametrize("seed,entry", TEST_GRAPHS,
                         ids=[g["name"] for _, g in TEST_GRAPHS])
def test_gpu_check_graph(tmp_path, gpu, seed, entry):
    inputs = GPU_CHECK.make_inputs(entry, seed)
    refs = GPU_CHECK.references(entry, inputs)
    extra = [] if entry["fuse"] else ["--fuse=false"]
    outs = run_graph(tmp_path, entry["mlir"], inputs, extra, gpu=gpu)
    assert len(outs) == len(refs)
    for i, (out, ref) in enumerate(zip(outs, refs)):
        got = out.astype(np.float64)
        assert got.shape == ref.shape, f"result {i}: {got.shape} != {ref.shape}"
        assert not np.isnan(got).any(), f"result {i} holds NaN"
        # gpu-check's own measure and tolerance.
        err = float(np.max(np.abs(got - ref) / (1.0 + np.abs(ref)),
                           initial=0.0))
        assert err <= entry["tol"], (
            f"{entry['name']} result {i}: max error {err:.2e} > "
            f"{entry['tol']:.0e}")


def test_the_graphs_cover_the_op_families():
    names = {g["name"] for _, g in TEST_GRAPHS}
    for name in ("matmul", "batch_matmul", "mlp", "softmax", "reduce_max",
                 "reduce_sum", "chain10", "cast", "add_broadcast"):
        assert name in names


def test_run_refuses_the_emulator(tmp_path):
    """With the emulator as the CUDA driver, `run` reports no GPU speed: it
    stops with status 2 before running anything."""
    runner = BUILD / "bin" / "jeet-runner"
    manifest = dict(device="gpu", chip="sm_90", arch=platform.machine(),
                    note="", graphs=[])
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "out"
    out.mkdir()
    code = (f"import sys; sys.argv = ['gpu_check', 'run', {str(tmp_path)!r}, "
            f"{str(out)!r}, {str(runner)!r}]\n"
            f"exec(compile(open({str(SCRIPT)!r}).read().rsplit("
            f"{MARKER!r}, 1)[1], 'gpu_check.py', 'exec'))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, env=driver_env("emulator"), timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Jeet GPU emulator" in proc.stderr
    assert "no speed from an emulated one" in proc.stderr
    assert not (out / "table.txt").exists()


def test_residency_table_on_the_emulator(tmp_path, monkeypatch):
    """The residency table of `gpu-check.sh run`, computed from jeet-runner
    on the emulator (the hardware run refuses it: these are no GPU times):
    the 10-kernel graph copies nothing per execution, replays one CUDA graph
    per execution with replay on (jeet-runner counts the timed executions,
    after its warm-up one), launches its ten kernels per execution with it
    off, and peaks at its plan."""
    runs = 5
    monkeypatch.setattr(GPU_CHECK, "RESIDENCY_RUNS", runs)
    seed, entry = next((s, g) for s, g in enumerate(GPU_CHECK.graphs())
                       if g["name"] == "bench_chain10_64K_unfused")
    assert entry["residency"] and not entry["fuse"]
    (tmp_path / "graph.mlir").write_text(entry["mlir"])
    compiled = subprocess.run(
        [str(BUILD / "bin" / "jeet-compile"), str(tmp_path / "graph.mlir"),
         "-o", str(tmp_path / "graph.so"), "--device=gpu",
         "--gpu-target=emulator", "--fuse=false"],
        capture_output=True, text=True, timeout=300)
    assert compiled.returncode == 0, compiled.stderr
    manifest = dict(graphs=[dict(entry, seed=seed, artifact="graph.so",
                                 kernels=10)])
    for key, value in driver_env("emulator").items():
        monkeypatch.setenv(key, value)
    out = tmp_path / "out"
    out.mkdir()
    with open(out / "log.txt", "w") as log:
        text = GPU_CHECK.residency_table(
            str(tmp_path), str(out), str(BUILD / "bin" / "jeet-runner"),
            manifest, log)
    rows = [line.split() for line in text.splitlines()
            if line.startswith(entry["name"])]
    assert len(rows) == 2, text
    # name kernels mode time "us" copied "B" graphs launches peak plan status
    replay, launches = rows
    assert replay[2] == "replay" and launches[2] == "launches", text
    assert replay[5] == launches[5] == "0", text          # bytes copied/exec
    assert replay[7] == "1.0" and replay[8] == "0.0", text  # graph launches
    assert replay[11:] == ["on"], text
    assert launches[7] == "0.0" and launches[8] == "10.0", text
    assert launches[11] == "off:", text
    for row in rows:
        assert row[9] == row[10], text                    # peak == plan


def test_prepare_ships_a_runtime_that_builds_alone(tmp_path):
    """`prepare` compiles every graph, stays under its size limit and ships
    runtime sources that build without LLVM/MLIR (the GPU machine has
    neither): the runner built from them runs on the emulator."""
    d = tmp_path / "check"
    env = dict(driver_env("emulator"), JEET_BUILD_DIR=str(BUILD))
    prepared = subprocess.run(["bash", str(SCRIPT), "prepare", str(d)],
                              capture_output=True, text=True, env=env,
                              timeout=600)
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["device"] == "gpu"
    assert len(manifest["graphs"]) == len(GPU_CHECK.graphs())
    assert not [g["name"] for g in manifest["graphs"] if "compile_error" in g]
    size = sum(p.stat().st_size for p in d.rglob("*") if p.is_file())
    assert size <= GPU_CHECK.MAX_SHIPPED_BYTES
    build = tmp_path / "runtime"
    for cmd in (["cmake", "-S", str(d / "src"), "-B", str(build),
                 "-DCMAKE_BUILD_TYPE=Release"],
                ["cmake", "--build", str(build), "--parallel", "2"]):
        step = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=600)
        assert step.returncode == 0, step.stdout[-3000:] + step.stderr
    runner = build / "bin" / "jeet-runner"
    listed = subprocess.run([str(runner), "--list-devices"],
                            capture_output=True, text=True, env=env,
                            timeout=60)
    assert "cuda:0: available (Jeet GPU emulator" in listed.stdout, (
        listed.stdout + listed.stderr)
    # scripts/gpu-session.sh, what a GPU machine runs, on that folder with
    # no driver to find: gpu-check stops with status 2, saying why, and the
    # files to bring back are there.
    out = tmp_path / "session"
    session = subprocess.run(
        ["bash", str(ROOT / "scripts" / "gpu-session.sh"), str(d), "-",
         str(out)], capture_output=True, text=True, timeout=600,
        env=dict(env, JEET_CUDA_DRIVER=str(tmp_path / "missing.so")))
    assert session.returncode == 2, session.stdout + session.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "build.log", "gpu-check.txt", "peers.txt", "run.log", "smi.txt"]
    assert "gpu-check: error: no usable GPU" in (out / "gpu-check.txt").read_text()


def test_copy_baselines_on_the_emulator(tmp_path, monkeypatch):
    """The fused chains' rows get a device-to-device copy of the same bytes
    beside them (jeet-runner --copy-bandwidth) and a line giving their rate
    as a share of the copy's."""
    for key, value in driver_env("emulator").items():
        monkeypatch.setenv(key, value)
    entry = next(g for g in GPU_CHECK.graphs()
                 if g["name"] == "bench_chain10_16M")
    manifest = dict(graphs=[entry])
    rows = [dict(name=entry["name"], kernels="1", time="2.000 ms",
                 rate="100.6 GB/s", err="1e-07", status="PASS")]
    with open(tmp_path / "log.txt", "w") as log:
        notes = GPU_CHECK.copy_baselines(
            manifest, rows, str(BUILD / "bin" / "jeet-runner"), log)
    assert [r["name"] for r in rows] == [
        "copy (192 MiB moved, as bench_chain10_16M)", entry["name"]], rows
    copy = rows[0]
    assert copy["status"] == "measured", (tmp_path / "log.txt").read_text()
    rate = float(copy["rate"].split()[0])
    assert rate > 0
    # The note's share comes from the unrounded rate, the row's from the
    # rate as printed (one decimal): they may round one percent apart.
    assert len(notes) == 1, notes
    share = re.fullmatch(r"bench_chain10_16M: (\d+)% of the copy bandwidth of "
                         r"the same bytes \(target: 90% or more\)", notes[0])
    assert share and abs(int(share.group(1)) - 100 * 100.6 / rate) <= 1, notes
    assert "(emulated GPU: host CPU time, not GPU speed)" in (
        tmp_path / "log.txt").read_text()


def find_ptxas():
    """ptxas of the CUDA toolkit the build found (lit's `ptxas` feature),
    else on PATH."""
    cache = BUILD / "CMakeCache.txt"
    roots = []
    if cache.exists():
        for line in cache.read_text().splitlines():
            if line.startswith("JEET_CUDA_ROOT:"):
                roots.append(pathlib.Path(line.split("=", 1)[1]) / "bin")
    for root in roots + [pathlib.Path("/usr/local/cuda/bin")]:
        if (root / "ptxas").exists():
            return str(root / "ptxas")
    return shutil.which("ptxas")


PTXAS = find_ptxas()
# The static shared memory a kernel may declare (more needs the dynamic kind
# and an opt-in attribute at launch).
STATIC_SHARED_LIMIT = 48 * 1024
ALL_GRAPHS = [(seed, g) for seed, g in enumerate(GPU_CHECK.graphs())]


@pytest.mark.skipif(PTXAS is None, reason="no ptxas (the CUDA toolkit)")
@pytest.mark.parametrize("seed,entry", ALL_GRAPHS,
                         ids=[g["name"] for _, g in ALL_GRAPHS])
def test_ptx_assembles_within_launch_limits(tmp_path, seed, entry):
    """What the hardware check loads, as the driver's JIT will see it: each
    graph's PTX for sm_90 (benchmarks included, which only hardware runs)
    assembles with ptxas; every kernel names its block size (.maxntid:
    ptxas then fits its registers to a block of that size, which a launch
    could otherwise be refused for), spills nothing and declares static
    shared memory within 48 KiB."""
    source = tmp_path / "graph.mlir"
    source.write_text(entry["mlir"])
    ptx = tmp_path / "graph.ptx"
    translated = subprocess.run(
        [str(BUILD / "bin" / "jeet-translate"), "--jeet-to-ptx",
         "--jeet-gpu-chip=sm_90", f"--jeet-fuse={str(entry['fuse']).lower()}",
         str(source), "-o", str(ptx)],
        capture_output=True, text=True, timeout=300)
    assert translated.returncode == 0, translated.stderr
    text = ptx.read_text()
    kernels = re.findall(r"\.entry (\w+)\(", text)
    if not kernels:
        # A graph of views only (reshape) launches nothing.
        assert text.strip() == "// no kernels", text[:200]
        return
    assert len(re.findall(r"\.maxntid \d+, \d+, \d+", text)) == len(kernels), (
        "a kernel without .maxntid")
    assembled = subprocess.run(
        [PTXAS, "-v", "--gpu-name", "sm_90", str(ptx), "-o",
         str(tmp_path / "graph.cubin")],
        capture_output=True, text=True, timeout=300)
    assert assembled.returncode == 0, assembled.stderr
    info = assembled.stderr + assembled.stdout
    spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads",
                        info)
    assert len(spills) == len(kernels), info
    assert all(s == ("0", "0") for s in spills), info
    for used in re.findall(r"Used \d+ registers[^\n]*", info):
        smem = re.search(r"(\d+) bytes smem", used)
        assert not smem or int(smem.group(1)) <= STATIC_SHARED_LIMIT, used


def test_sanitizer_section_counts_clean_and_unclean_graphs(tmp_path,
                                                          monkeypatch):
    """`run`'s compute-sanitizer section, with a stand-in for
    compute-sanitizer on PATH (the toolkit's needs a GPU): each test graph
    runs once under each tool (memcheck, racecheck, synccheck, initcheck),
    and a graph whose summary reports errors, or whose run fails, counts as
    unclean and fails the check."""
    seed, entry = next((s, g) for s, g in ALL_GRAPHS if g["name"] == "add")
    (tmp_path / "graph.mlir").write_text(entry["mlir"])
    compiled = subprocess.run(
        [str(BUILD / "bin" / "jeet-compile"), str(tmp_path / "graph.mlir"),
         "-o", str(tmp_path / "graph.so"), "--device=gpu",
         "--gpu-target=emulator"], capture_output=True, text=True, timeout=300)
    assert compiled.returncode == 0, compiled.stderr
    inputs = []
    for i, a in enumerate(GPU_CHECK.make_inputs(entry, seed)):
        np.save(tmp_path / f"in{i}.npy", a)
        inputs.append(f"in{i}.npy")
    graph = dict(entry, seed=seed, artifact="graph.so", inputs=inputs)
    manifest = dict(graphs=[graph, dict(graph, name="add_again")])
    tools = tmp_path / "bin"
    tools.mkdir()
    sanitizer = tools / "compute-sanitizer"
    # Runs the command after compute-sanitizer's six options and reports as
    # it does; ERRORS sets the count it reports. Notes each tool it ran.
    sanitizer.write_text(f'#!/bin/bash\necho "$2" >> {tmp_path}/tools.txt\n'
                         'shift 6\n"$@" >/dev/null || exit 7\n'
                         'echo "========= ERROR SUMMARY: ${ERRORS:-0} errors"\n')
    sanitizer.chmod(0o755)
    for key, value in driver_env("emulator").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    runner = str(BUILD / "bin" / "jeet-runner")
    out = tmp_path / "out"
    out.mkdir()
    with open(out / "log.txt", "w") as log:
        text, unclean = GPU_CHECK.sanitizer_section(
            str(tmp_path), str(out), runner, manifest, log)
    tools_run = (tmp_path / "tools.txt").read_text().split()
    assert tools_run == [t for t in GPU_CHECK.SANITIZER_TOOLS
                         for _ in range(2)], tools_run
    assert set(GPU_CHECK.SANITIZER_TOOLS) == {
        "memcheck", "racecheck", "synccheck", "initcheck"}
    for tool in GPU_CHECK.SANITIZER_TOOLS:
        assert (f"{tool} (compute-sanitizer, one execution each): 2 test "
                "graphs clean, 0 with errors") in text, text
    assert unclean == 0, text + (out / "log.txt").read_text()
    monkeypatch.setenv("ERRORS", "3")
    with open(out / "log.txt", "w") as log:
        text, unclean = GPU_CHECK.sanitizer_section(
            str(tmp_path), str(out), runner, manifest, log)
    assert unclean == 2 * len(GPU_CHECK.SANITIZER_TOOLS), text
    assert text.count("(add, add_again; see run.log)") == 4, text
