"""The short run of the Python graph-builder fuzzer (fuzz/python/): random
programs against jeet's API, each call either returning or raising an
expected error, every executed tensor of the declared shape and dtype. It
runs in a process of its own, so that a crash is reported, with the seed of
the program and the command that replays it."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUZZER = ROOT / "fuzz" / "python" / "fuzz_graph_builder.py"
PROGRAMS = 150


def test_graph_builder_fuzzer_short_run():
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, str(FUZZER), "--seed", "1", "--count", str(PROGRAMS),
         "--verbose"], capture_output=True, text=True, env=env, timeout=900)
    if proc.returncode != 0:
        seeds = [line for line in proc.stdout.splitlines()
                 if line.startswith("program seed")]
        last = seeds[-1].split()[-1] if seeds else "?"
        raise AssertionError(
            f"the fuzzer failed (exit {proc.returncode}) in program seed {last}; "
            f"replay: PYTHONPATH=build/python python3 {FUZZER.relative_to(ROOT)} "
            f"--seed {last} --count 1\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    assert f"{PROGRAMS} programs" in proc.stdout
