"""The persistent compiled-graph cache (JEET_CACHE_DIR): hits across
processes, and files, directories and writes that cannot be used, which must
never break a run (the graph compiles again and JEET_DEBUG says why)."""

import hashlib
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jeet

# Children import the same jeet as this process, whatever their directory.
PACKAGE_PATH = str(pathlib.Path(jeet.__file__).resolve().parents[1])


def child_env(cache_dir):
    env = dict(os.environ, JEET_CACHE_DIR=str(cache_dir))
    env["PYTHONPATH"] = os.pathsep.join(
        [PACKAGE_PATH] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env.pop("JEET_DEBUG", None)
    return env

# A child process: builds a small MLP-like graph with jeet.jit on fixed
# inputs, runs it, and prints the result's checksum and the cache counters as
# JSON. Arguments: seed for the data, "scale=S" for the constant the result is
# multiplied by (2 unless given), and "limit" to cap the size of files it may
# write (a full disk): FILE_SIZE_LIMIT, below any cache file (over 5 KiB)
# but above the 1 KiB that libomp gives the record of each process it starts
# in (an empty record that it could not size crashes the next process that
# gets the same pid; see OPENMP_RECORD).
CHILD = textwrap.dedent("""
    import json, resource, signal, sys
    import numpy as np
    import jeet
    if "limit" in sys.argv:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
    scale = 2.0
    for arg in sys.argv[2:]:
        if arg.startswith("scale="):
            scale = float(arg[len("scale="):])
    rng = np.random.default_rng(int(sys.argv[1]))
    x = rng.standard_normal((8, 16), dtype=np.float32)
    w = rng.standard_normal((16, 32), dtype=np.float32)
    b = rng.standard_normal((32,), dtype=np.float32)

    @jeet.jit
    def layer(x, w, b):
        return jeet.relu(jeet.matmul(x, w) + b) * scale

    out = layer(*(jeet.from_numpy(a, device="cpu") for a in (x, w, b)))
    expected = np.maximum(x.astype(np.float64) @ w + b, 0) * scale
    error = float(np.max(np.abs(out.numpy() - expected)))
    print(json.dumps(dict(jeet.cache_stats(), error=error)))
""")


# libomp's record of a process it runs in (the POSIX shared memory object
# /dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid>, or a file of that name in /tmp).
OPENMP_RECORD = "__KMP_REGISTERED_LIB_{pid}_{uid}"
OPENMP_RECORD_DIRS = ("/dev/shm", "/tmp")


def openmp_records(pid):
    name = OPENMP_RECORD.format(pid=pid, uid=os.getuid())
    return [pathlib.Path(d) / name for d in OPENMP_RECORD_DIRS]


def run_child(cache_dir, *args, debug=True, stale_openmp_record=False,
              max_bytes=None):
    env = child_env(cache_dir)
    if debug:
        env["JEET_DEBUG"] = "1"
    if max_bytes is not None:
        env["JEET_CACHE_MAX_BYTES"] = str(max_bytes)
    command = [sys.executable, "-c", CHILD, "0", *args]

    def plant_record():
        # In the child between fork and exec (its pid is CHILD's): the empty
        # record that a dead process with that pid would have left.
        name = OPENMP_RECORD.format(pid=os.getpid(), uid=os.getuid())
        open(os.path.join("/dev/shm", name), "wb").close()

    proc = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=plant_record if stale_openmp_record else None)
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        # Records of a child that crashed or was killed stay behind.
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        leftovers = [p for p in openmp_records(proc.pid) if p.exists()]
        for path in leftovers:
            path.unlink()
    proc = subprocess.CompletedProcess(command, proc.returncode, out, err)
    assert proc.returncode == 0, proc.stderr
    # libomp removes its record when the process ends normally; an empty
    # one left behind would crash a later process with the same pid.
    assert not leftovers, f"child {proc.args} left {leftovers}"
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    assert stats["error"] < 1e-4, stats
    messages = [line for line in proc.stderr.splitlines()
                if "disk cache" in line or "JEET_CACHE" in line]
    return stats, messages


def cache_files(cache_dir):
    return sorted(pathlib.Path(cache_dir).glob("*.jeetc"))


def test_hit_across_processes(tmp_path):
    stats, messages = run_child(tmp_path)
    assert stats["compilations"] == 1 and stats["disk_hits"] == 0
    assert len(cache_files(tmp_path)) == 1
    assert any("stored" in m for m in messages)
    stats, messages = run_child(tmp_path)
    assert stats["compilations"] == 0 and stats["disk_hits"] == 1, stats
    assert any("loaded" in m for m in messages)


def test_graphs_that_differ_have_their_own_entries(tmp_path):
    """Two graphs that differ in one constant, near the end of their text,
    are two entries: each process gets its own graph's code back (a key that
    hashed part of the text would hand one graph's code to the other)."""
    for scale in ("2", "3"):
        stats, _ = run_child(tmp_path, "scale=" + scale)
        assert stats["compilations"] == 1 and stats["disk_hits"] == 0, stats
    assert len(cache_files(tmp_path)) == 2
    for scale in ("3", "2"):
        # run_child checks the result against float64 with this scale.
        stats, _ = run_child(tmp_path, "scale=" + scale)
        assert stats["compilations"] == 0 and stats["disk_hits"] == 1, stats


def test_size_cap_removes_the_least_recently_used(tmp_path):
    """JEET_CACHE_MAX_BYTES: a store that takes the cache over the cap
    removes the entries used least recently (a hit counts as a use) until
    it holds at most 80% of the cap, never the entry just stored; a removed
    graph compiles again."""
    entries = {}
    for scale in ("1", "2"):
        before = set(cache_files(tmp_path))
        stats, _ = run_child(tmp_path, "scale=" + scale)
        assert stats["compilations"] == 1
        (entries[scale],) = set(cache_files(tmp_path)) - before
    size = entries["1"].stat().st_size
    # Entry 1 older than entry 2, then used again (a hit): 2 is the least
    # recently used.
    now = entries["2"].stat().st_mtime
    os.utime(entries["1"], (now - 300, now - 300))
    os.utime(entries["2"], (now - 200, now - 200))
    cap = int(size * 2.7)
    stats, messages = run_child(tmp_path, "scale=1", max_bytes=cap)
    assert stats["disk_hits"] == 1 and stats["compilations"] == 0, stats
    assert not any("removed" in m for m in messages), messages
    assert entries["1"].stat().st_mtime > entries["2"].stat().st_mtime
    # A third entry: three over the cap of 2.7, down to two (80% of the cap
    # is 2.16 entries).
    before = set(cache_files(tmp_path))
    stats, messages = run_child(tmp_path, "scale=3", max_bytes=cap)
    assert stats["compilations"] == 1, stats
    (entries["3"],) = set(cache_files(tmp_path)) - before
    assert set(cache_files(tmp_path)) == {entries["1"], entries["3"]}
    assert any("removed 1 least recently used entry" in m
               and "JEET_CACHE_MAX_BYTES" in m for m in messages), messages
    # The removed graph compiles again (and its store removes entry 1, now
    # the least recently used).
    stats, _ = run_child(tmp_path, "scale=2", max_bytes=cap)
    assert stats["compilations"] == 1 and stats["disk_hits"] == 0, stats
    assert len(cache_files(tmp_path)) == 2 and entries["3"].exists()
    # Without a cap (0) nothing is removed.
    stats, messages = run_child(tmp_path, "scale=4", max_bytes=0)
    assert len(cache_files(tmp_path)) == 3
    assert not any("removed" in m for m in messages), messages


@pytest.mark.parametrize("value", ["lots", "-5", "1.5G", "12X"])
def test_size_cap_that_is_no_size_is_said_and_ignored(tmp_path, value):
    """A JEET_CACHE_MAX_BYTES that holds no size: a warning naming it, and
    the default cap; the graph compiles, runs and is stored."""
    env = child_env(tmp_path)
    env["JEET_CACHE_MAX_BYTES"] = value
    proc = subprocess.run([sys.executable, "-c", CHILD, "0"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (f"jeet: warning: ignoring JEET_CACHE_MAX_BYTES='{value}': expected "
            "a size in bytes, or with K, M or G after it (0: no cap); using 2G"
            in proc.stderr), proc.stderr
    assert proc.stderr.count("JEET_CACHE_MAX_BYTES") == 1, proc.stderr
    assert len(cache_files(tmp_path)) == 1


def test_off_when_empty(tmp_path):
    env = child_env("")
    proc = subprocess.run([sys.executable, "-c", CHILD, "0"], env=env,
                          capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["compilations"] == 1
    assert not list(tmp_path.rglob("*.jeetc"))


def checksum_line(body):
    return b"sha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n"


def rewrite(path, transform):
    """Applies `transform` to the file's body and writes it back with a
    valid checksum, so that only the check being tested can reject it."""
    data = path.read_bytes()
    body = data[:data.rindex(b"\nsha256 ") + 1]
    body = transform(body)
    path.write_bytes(body + checksum_line(body))


@pytest.mark.parametrize("damage, why", [
    (lambda data: data[:len(data) // 2], "truncated"),
    (lambda data: data[:-40] + bytes(b ^ 0xFF for b in data[-40:-30]) +
     data[-30:], "checksum"),
    (lambda data: b"\x7fELF" + os.urandom(200), "not a Jeet cache file"),
    (lambda data: b"", "truncated"),
])
def test_corrupt_or_foreign_file_is_replaced(tmp_path, damage, why):
    run_child(tmp_path)
    (path,) = cache_files(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    stats, messages = run_child(tmp_path)
    assert stats["compilations"] == 1 and stats["disk_hits"] == 0
    assert any("ignoring" in m and why in m for m in messages), messages
    # Replaced by a good one.
    stats, _ = run_child(tmp_path)
    assert stats["disk_hits"] == 1 and stats["compilations"] == 0


@pytest.mark.parametrize("field, value, why", [
    (b"version", b"0.0.0-old", "written by Jeet 0.0.0-old"),
    # The same version from another build of the compiler.
    (b"version", jeet.__version__.encode() + b" build 0.0",
     "written by Jeet " + jeet.__version__ + " build 0.0"),
    (b"cpu", b"some-other-cpu +x", "another CPU"),
    (b"key", b"0" * 64, "another graph"),
])
def test_stale_entry_is_ignored(tmp_path, field, value, why):
    run_child(tmp_path)
    (path,) = cache_files(tmp_path)

    def change(body):
        lines = body.split(b"\n")
        for i, line in enumerate(lines):
            if line.startswith(field + b" "):
                lines[i] = field + b" " + value
                break
        return b"\n".join(lines)

    rewrite(path, change)
    stats, messages = run_child(tmp_path)
    assert stats["compilations"] == 1 and stats["disk_hits"] == 0
    assert any(why in m for m in messages), messages


def test_object_that_does_not_link(tmp_path):
    run_child(tmp_path)
    (path,) = cache_files(tmp_path)

    def garble_object(body):
        head, _, obj = body.partition(b"\nobject ")
        size, _, data = obj.partition(b"\n")
        junk = b"\x7fELF" + b"\x00" * (len(data) - 5) + b"\n"
        return head + b"\nobject " + size + b"\n" + junk

    rewrite(path, garble_object)
    stats, messages = run_child(tmp_path)
    assert stats["compilations"] == 1 and stats["disk_hits"] == 0
    assert any("cannot link" in m for m in messages), messages


def test_unusable_directory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory would go")
    stats, messages = run_child(blocker / "cache")
    assert stats["compilations"] == 1
    assert any("cannot store" in m for m in messages), messages


def test_full_disk(tmp_path):
    # RLIMIT_FSIZE makes every write past 2 KiB fail, as a full disk.
    stats, messages = run_child(tmp_path, "limit")
    assert stats["compilations"] == 1
    assert any("cannot store" in m for m in messages), messages
    assert not cache_files(tmp_path)
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("cached", [False, True])
def test_stale_openmp_record_of_the_same_pid(tmp_path, cached):
    """An empty libomp record named after the process (left by a dead one
    with the same pid) made the first parallel region die of SIGBUS."""
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm")
    if cached:
        run_child(tmp_path)
    stats, _ = run_child(tmp_path, stale_openmp_record=True)
    assert stats["disk_hits"] == int(cached)
    assert stats["compilations"] == int(not cached)


# A child that compiles (never runs) a four-layer graph whose hidden layers are
# intermediates of the arena (the first two share it with the third, so the
# plan's four numbers differ), and prints its memory plan, jeet.explain's text
# and the cache counters as JSON.
PLAN_CHILD = textwrap.dedent("""
    import json
    import numpy as np
    import jeet
    rng = np.random.default_rng(0)
    x, *ws = (jeet.from_numpy(rng.standard_normal(s, dtype=np.float32),
                              device="cpu")
              for s in ((16, 32), (32, 64), (64, 16), (16, 40), (40, 8)))
    y = x
    for w in ws[:-1]:
        y = jeet.relu(y @ w + 1.0)
    y = y @ ws[-1]
    print(json.dumps(dict(plan=jeet.compile(y).memory_plan,
                          explain=jeet.explain(y), **jeet.cache_stats())))
""")


def test_disk_hit_has_the_compiled_memory_plan(tmp_path):
    """The arena a cached entry runs with is the one its code was compiled
    for: plan and explain of a disk hit equal those of the compilation."""
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", PLAN_CHILD],
                              env=child_env(tmp_path), capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    compiled, loaded = runs
    assert compiled["compilations"] == 1 and compiled["disk_hits"] == 0
    assert loaded["compilations"] == 0 and loaded["disk_hits"] == 1, loaded
    assert compiled["plan"]["arena_bytes"] > 0, compiled["plan"]
    assert compiled["plan"]["buffers"] > 1, compiled["plan"]
    # Intermediates share the arena: a plan with two fields swapped differs.
    assert (compiled["plan"]["arena_bytes"] <
            compiled["plan"]["intermediate_bytes"]), compiled["plan"]
    assert loaded["plan"] == compiled["plan"]
    assert loaded["explain"] == compiled["explain"]


def test_processes_sharing_the_cache(tmp_path):
    env = child_env(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, "0"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert json.loads(out)["error"] < 1e-4
    assert len(cache_files(tmp_path)) == 1
    assert not list(tmp_path.glob("*.tmp"))
    stats, _ = run_child(tmp_path)
    assert stats["disk_hits"] == 1 and stats["compilations"] == 0


def test_processes_pruning_the_cache_at_once(tmp_path):
    """Six processes storing different graphs at once into a cache capped
    at about two entries: each removes others' entries, some the same ones,
    and one may read an entry another removes; every result is right, no
    process fails, and the cache ends under its cap."""
    stats, _ = run_child(tmp_path, "scale=1")
    cap = int(cache_files(tmp_path)[0].stat().st_size * 2.2)
    env = child_env(tmp_path)
    env["JEET_CACHE_MAX_BYTES"] = str(cap)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, "0", f"scale={1 + i % 3}.5"],
                              env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for i in range(6)]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert json.loads(out)["error"] < 1e-4
    assert sum(f.stat().st_size for f in cache_files(tmp_path)) <= cap
    assert not list(tmp_path.glob("*.tmp"))
