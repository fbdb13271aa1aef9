"""GPU tensors stay on the GPU.

On the recording fake CUDA driver (a subprocess per test, with
JEET_CUDA_DRIVER pointing at it; it runs no kernel, so only what the runtime
asks of the driver is checked): a cached 10-kernel graph executed 100 times
on resident inputs copies, allocates and waits for nothing until a result is
read, and is one CUDA-graph launch per execution (one launch per kernel with
graphs off); failures of queued work, mixed devices and DLPack's stream
handshake. On the GPU emulator (marker gpu: `make test` runs these with
JEET_CUDA_DRIVER set to it): the same paths with the numbers of numpy."""

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jeet
from conftest import requires_gpu

EXECUTIONS = 100
KERNELS = 10


def _build_dir():
    here = pathlib.Path(__file__).resolve().parents[2]
    for candidate in (os.environ.get("JEET_BUILD_DIR", ""), here / "build"):
        if candidate and (pathlib.Path(candidate) / "lib").is_dir():
            return pathlib.Path(candidate)
    return None


def _fake_driver():
    build = _build_dir()
    path = build / "lib" / "libjeet_fake_cuda.so" if build else None
    return path if path and path.exists() else None


def run_on_fake_gpu(code):
    """Runs `code` in a fresh interpreter whose CUDA driver is the recording
    fake one; `fake` (the library, through ctypes), `calls(name)` (how many
    times the runtime called `name`) and `stats()` (memory_stats('gpu')) are
    defined for it. The code asserts; it fails the test with its output."""
    fake = _fake_driver()
    if fake is None:
        pytest.skip("the fake CUDA driver (libjeet_fake_cuda.so) is not built")
    prelude = textwrap.dedent(f"""
        import ctypes, gc
        import numpy as np
        import jeet
        fake = ctypes.CDLL({str(fake)!r})
        fake.fake_cuda_count_calls.restype = ctypes.c_size_t
        fake.fake_cuda_log.restype = ctypes.c_char_p
        def calls(name):
            return fake.fake_cuda_count_calls(name.encode())
        def stats():
            return jeet.memory_stats('gpu')
        def delta(before, after):
            return {{k: after[k] - before[k] for k in after
                    if isinstance(after[k], int)}}
        assert jeet.gpu_available(), jeet.devices()
    """)
    env = dict(os.environ, JEET_CUDA_DRIVER=str(fake))
    result = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code) + "\nprint('OK')"],
        env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0 and result.stdout.strip().endswith("OK"), (
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result.stdout


# Ten matmuls in a row: ten kernels (a kernel never holds two matmuls).
CHAIN = """
    def chain(a, *ws):
        for w in ws:
            a = a @ w
        return a
    graph = jeet.jit(chain)
    A = jeet.rand(32, 32, device='gpu')
    Ws = [jeet.rand(32, 32, device='gpu') for _ in range(10)]
"""


def test_cached_graph_replays_on_resident_inputs():
    run_on_fake_gpu(CHAIN + f"""
    C = graph(A, *Ws)                    # compiles, runs the kernels once
    assert jeet.compile(C).num_kernels == {KERNELS}
    fake.fake_cuda_clear_log()
    before = stats()
    for _ in range({EXECUTIONS} - 1):
        C = graph(A, *Ws)
    d = delta(before, stats())
    # Nothing copied, allocated from the driver or waited for ...
    assert d['h2d_bytes'] == 0 and d['d2h_bytes'] == 0, d
    assert d['device_mallocs'] == 0 and calls('cuMemAlloc_v2') == 0, d
    assert d['synchronizations'] == 0 and calls('cuStreamSynchronize') == 0, d
    # ... nothing allocated from the cache but each execution's output ...
    assert d['num_allocs'] == {EXECUTIONS} - 1, d
    # ... and every execution is one graph launch, no kernel by itself.
    assert d['graph_launches'] == {EXECUTIONS} - 1, d
    assert calls('cuGraphLaunch') == {EXECUTIONS} - 1
    assert d['kernels_launched'] == 0 and calls('cuLaunchKernel') == 0, d
    assert calls('cuGraphAddKernelNode_v2') == {KERNELS}    # built once
    assert jeet.compile(C).cuda_graphs == 'on'
    # Reading the result is the one wait and the one copy.
    before = stats()
    values = C.numpy()
    d = delta(before, stats())
    assert d['synchronizations'] == 1 and d['d2h_bytes'] == values.nbytes, d
    assert d['h2d_bytes'] == 0 and d['graph_launches'] == 0, d
    """)


def test_without_graphs_each_kernel_is_launched():
    run_on_fake_gpu(CHAIN + f"""
    assert jeet.set_cuda_graphs(False) is True
    C = graph(A, *Ws)
    before = stats()
    for _ in range({EXECUTIONS} - 1):
        C = graph(A, *Ws)
    d = delta(before, stats())
    assert d['kernels_launched'] == {KERNELS} * ({EXECUTIONS} - 1), d
    assert d['graph_launches'] == 0 and calls('cuGraphCreate') == 0, d
    assert d['h2d_bytes'] + d['d2h_bytes'] + d['synchronizations'] == 0, d
    assert d['device_mallocs'] == 0, d
    assert jeet.compile(C).cuda_graphs.startswith('off: CUDA graphs are turned off')
    """)


def test_lazy_execute_stays_on_the_device():
    # The seed's pattern: declare, execute, read.
    run_on_fake_gpu("""
    A = jeet.tensor([256, 256], dtype='float32', device='gpu')
    B = jeet.tensor([256, 256], dtype='float32', device='gpu')
    before = stats()
    C = jeet.matmul(A, B)
    result = C.execute()
    d = delta(before, stats())
    assert result is C and C.device == 'gpu' and C._rt.device == 'cuda:0'
    assert d['d2h_bytes'] == 0 and d['synchronizations'] == 0, d
    assert d['h2d_bytes'] == 0, d        # the inputs were already there
    before = stats()
    C.numpy()
    d = delta(before, stats())
    assert d['d2h_bytes'] == 256 * 256 * 4 and d['synchronizations'] == 1, d
    """)


def test_creation_copies_host_data_once_and_to_moves_explicitly():
    run_on_fake_gpu("""
    before = stats()
    x = jeet.from_numpy(np.ones((64, 64), np.float32), device='gpu')
    z = jeet.zeros(64, 64, device='gpu')
    d = delta(before, stats())
    assert d['h2d_bytes'] == 64 * 64 * 4, d     # zeros are set on the device
    assert d['synchronizations'] == 0, d
    before = stats()
    h = x.to('cpu')
    d = delta(before, stats())
    assert h.device == 'cpu' and d['d2h_bytes'] == 64 * 64 * 4, d
    assert x.to('gpu') is x                      # already there
    before = stats()
    g = h.to('gpu')
    d = delta(before, stats())
    assert g.device == 'gpu' and d['h2d_bytes'] == 64 * 64 * 4, d
    """)


def test_every_creation_allocates_on_the_device_and_every_read_copies_once():
    run_on_fake_gpu("""
    n = 64 * 64 * 4
    made = {
        'tensor(shape)': (lambda: jeet.tensor([64, 64], dtype='float32',
                                              device='gpu'), 0),
        'zeros': (lambda: jeet.zeros(64, 64, device='gpu'), 0),
        'tensor(data)': (lambda: jeet.tensor(np.ones((64, 64), np.float32),
                                             device='gpu'), n),
        'ones': (lambda: jeet.ones(64, 64, device='gpu'), n),
        'full': (lambda: jeet.full((64, 64), 3.0, device='gpu'), n),
        'rand': (lambda: jeet.rand(64, 64, device='gpu'), n),
        'randn': (lambda: jeet.randn(64, 64, device='gpu'), n),
        'arange': (lambda: jeet.arange(64 * 64, device='gpu'), n),
        'from_numpy': (lambda: jeet.from_numpy(
            np.ones((64, 64), np.float32), device='gpu'), n),
    }
    for name, (make, h2d) in made.items():
        before = stats()
        t = make()
        t.execute()
        d = delta(before, stats())
        # On the device, with at most one copy of the host's data.
        assert t.device == 'gpu' and t._rt.device == 'cuda:0', name
        assert d['h2d_bytes'] == h2d and d['num_allocs'] == 1, (name, d)
        assert d['d2h_bytes'] == 0 and d['synchronizations'] == 0, (name, d)
    t = jeet.ones(4, device='gpu') * 2
    s = t.sum()
    jeet.execute(t, s)
    reads = {
        'numpy': (lambda: t.numpy(), 16), '__array__': (lambda: np.asarray(t), 16),
        'tolist': (lambda: t.tolist(), 16), 'item': (lambda: s.item(), 4),
        'float': (lambda: float(s), 4),
    }
    for name, (read, nbytes) in reads.items():
        before = stats()
        read()
        d = delta(before, stats())
        # One wait and one copy device->host of the tensor's bytes.
        assert d['d2h_bytes'] == nbytes and d['synchronizations'] == 1, (name, d)
        assert d['h2d_bytes'] == 0, (name, d)
    before = stats()
    jeet.synchronize()
    d = delta(before, stats())
    assert d['synchronizations'] == 1 and d['d2h_bytes'] == 0, d
    """)


def test_failed_asynchronous_work_is_named_at_the_next_wait():
    run_on_fake_gpu(CHAIN + """
    graph(A, *Ws).numpy()                        # warm: arena, module
    gc.collect()
    start = stats()
    C = graph(A, *Ws)                            # queued; the GPU fails
    fake.fake_cuda_fail_next(b'cuStreamSynchronize', 700)
    for attempt in range(2):                     # reading it, again
        try:
            C.numpy()
            raise AssertionError('no error')
        except jeet.JeetError as error:
            text = str(error)
            assert "'main(32x32xf32, 32x32xf32" in text, text  # the graph
            assert 'asynchronous work on cuda:0 failed' in text, text
            assert 'CUDA_ERROR_ILLEGAL_ADDRESS' in text, text
    try:                                         # computing with it
        (C + 1).execute()
        raise AssertionError('no error')
    except jeet.JeetError as error:
        assert 'input #0 of' in str(error), str(error)
    jeet.synchronize()                           # the device works on
    D = graph(A, *Ws)
    D.numpy()
    del C, D
    gc.collect()
    end = stats()
    assert end['allocated_bytes'] == start['allocated_bytes'], (start, end)
    """)


def test_mixed_devices_are_an_error():
    run_on_fake_gpu("""
    a = jeet.ones(4, device='gpu')
    b = jeet.ones(4, device='cpu')
    try:
        a + b
        raise AssertionError('no error')
    except jeet.JeetError as error:
        assert 'different devices (cpu, gpu)' in str(error), str(error)
    """)


def test_bad_input_on_the_gpu_leaks_nothing():
    # Mixed devices and a GPU capsule imported twice: clear errors, and the
    # allocators of both devices back where they started.
    run_on_fake_gpu("""
    a = jeet.ones(1024, device='gpu')
    a.execute()
    gc.collect()
    start = (stats()['allocated_bytes'],
             jeet.memory_stats('cpu')['allocated_bytes'])
    for _ in range(3):
        b = jeet.ones(1024, device='cpu') * 2
        try:
            (a + b).execute()
            raise AssertionError('no error')
        except jeet.JeetError as error:
            assert 'different devices (cpu, gpu)' in str(error), str(error)
        capsule = (a * 3).__dlpack__(stream=-1)
        u = jeet.from_dlpack(capsule)
        assert u.device == 'gpu'
        try:
            jeet.from_dlpack(capsule)
            raise AssertionError('no error')
        except jeet.JeetError as error:
            assert 'already consumed' in str(error), str(error)
        del b, u, capsule
    gc.collect()
    end = (stats()['allocated_bytes'],
           jeet.memory_stats('cpu')['allocated_bytes'])
    assert end == start, (start, end)
    """)


def test_dlpack_of_gpu_tensors_orders_the_consumers_stream():
    run_on_fake_gpu("""
    t = jeet.ones(8, device='gpu') * 2
    t.execute()
    assert t.__dlpack_device__() == (2, 0)        # kDLCUDA, device 0
    fake.fake_cuda_clear_log()
    capsule = t.__dlpack__(stream=1)              # the legacy default stream
    log = fake.fake_cuda_log().decode()
    assert 'cuEventRecord(stream=1)' in log, log  # Jeet's stream ...
    assert 'cuStreamWaitEvent(stream=legacy' in log, log  # ... before it
    assert calls('cuStreamSynchronize') == 0      # the host does not wait
    u = jeet.from_dlpack(capsule)                 # zero-copy, back in Jeet
    assert u.device == 'gpu' and u._rt.data_ptr == t._rt.data_ptr
    fake.fake_cuda_clear_log()
    t.__dlpack__(stream=-1)                       # no ordering asked for
    assert calls('cuStreamWaitEvent') == 0
    v = jeet.from_dlpack(t)      # passes Jeet's own stream: nothing to do
    assert v._rt.data_ptr == t._rt.data_ptr and calls('cuStreamWaitEvent') == 0
    try:
        t.__dlpack__(stream=0)
        raise AssertionError('no error')
    except jeet.JeetError as error:
        assert 'stream 0 is ambiguous' in str(error), str(error)
    """)


def test_foreign_gpu_memory_is_given_back_after_jeets_work():
    # Another library's CUDA memory (a DLPack capsule made by hand; its
    # deleter notes how often the host had waited by then), used by a queued
    # execution and dropped: the producer gets it back only once Jeet's
    # stream has passed that work. Jeet's own exported memory needs no wait.
    run_on_fake_gpu("""
    import ctypes
    class DLDevice(ctypes.Structure):
        _fields_ = [('device_type', ctypes.c_int32), ('device_id', ctypes.c_int32)]
    class DLDataType(ctypes.Structure):
        _fields_ = [('code', ctypes.c_uint8), ('bits', ctypes.c_uint8),
                    ('lanes', ctypes.c_uint16)]
    class DLTensor(ctypes.Structure):
        _fields_ = [('data', ctypes.c_void_p), ('device', DLDevice),
                    ('ndim', ctypes.c_int32), ('dtype', DLDataType),
                    ('shape', ctypes.POINTER(ctypes.c_int64)),
                    ('strides', ctypes.POINTER(ctypes.c_int64)),
                    ('byte_offset', ctypes.c_uint64)]
    Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    class Managed(ctypes.Structure):
        _fields_ = [('dl_tensor', DLTensor), ('manager_ctx', ctypes.c_void_p),
                    ('deleter', Deleter)]
    waits_when_deleted = []
    @Deleter
    def deleter(_):
        waits_when_deleted.append(calls('cuStreamSynchronize'))
    owner = jeet.ones(256, device='gpu')       # stands for the producer's memory
    owner.execute()
    shape = (ctypes.c_int64 * 1)(256)
    managed = Managed(DLTensor(owner._rt.data_ptr, DLDevice(2, 0), 1,
                               DLDataType(2, 32, 1), shape, None, 0),
                      None, deleter)
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    u = jeet.from_dlpack(new_capsule(ctypes.addressof(managed), b'dltensor', None))
    assert u.device == 'gpu' and u._rt.data_ptr == owner._rt.data_ptr
    v = (u * 2).execute()                      # queued, reads u's memory
    fake.fake_cuda_clear_log()
    before = stats()
    del u
    gc.collect()
    assert waits_when_deleted == [1], waits_when_deleted
    assert delta(before, stats())['synchronizations'] == 1
    # Jeet's own memory back through DLPack: back to Jeet's allocator, in
    # stream order, without a wait.
    w = jeet.from_dlpack(v)
    (w + 1).execute()
    before = stats()
    del w
    gc.collect()
    assert delta(before, stats())['synchronizations'] == 0
    """)


def test_exported_gpu_memory_returns_to_jeet_behind_the_consumers_work():
    # A consumer on another stream (the legacy default one) drops the
    # capsule's tensor: Jeet's stream waits, on the device, for the work it
    # queued there, before Jeet can reuse the memory; the host does not wait.
    run_on_fake_gpu("""
    t = jeet.ones(256, device='gpu') * 2
    t.execute()
    capsule = t.__dlpack__(stream=1)
    u = jeet.from_dlpack(capsule)              # the consumer
    del t
    gc.collect()
    fake.fake_cuda_clear_log()
    before = stats()
    del u, capsule
    gc.collect()
    log = fake.fake_cuda_log().decode().splitlines()
    assert 'cuEventRecord(stream=legacy)' in log, log
    waits = [i for i, line in enumerate(log)
             if line.startswith('cuStreamWaitEvent(stream=1,')]
    assert waits and waits[0] > log.index('cuEventRecord(stream=legacy)'), log
    assert delta(before, stats())['synchronizations'] == 0
    assert delta(before, stats())['num_frees'] == 1   # then back to the cache
    """)


# -- On the GPU emulator: the same paths, with numpy's numbers --------------


@requires_gpu
@pytest.mark.parametrize("graphs", [True, False], ids=["graphs", "no-graphs"])
def test_resident_graph_numerics(rng, graphs):
    previous = jeet.set_cuda_graphs(graphs)
    try:
        def chain(a, *ws):
            for w in ws:
                a = jeet.tanh(a @ w)
            return a
        graph = jeet.jit(chain)
        before = jeet.memory_stats("gpu")
        for _ in range(3):       # launched, then built and replayed, replayed
            a = rng.standard_normal((16, 32)).astype(np.float32)
            ws = [rng.standard_normal((32, 32)).astype(np.float32) / 4
                  for _ in range(KERNELS)]
            C = graph(jeet.tensor(a, device="gpu"),
                      *[jeet.tensor(w, device="gpu") for w in ws])
            assert C.device == "gpu"
            expected = a.astype(np.float64)
            for w in ws:
                expected = np.tanh(expected @ w.astype(np.float64))
            np.testing.assert_allclose(C.numpy(), expected, rtol=1e-4,
                                       atol=1e-5)
        status = jeet.compile(C).cuda_graphs
        assert status == "on" if graphs else status.startswith("off")
        # The emulator really replayed: the kernels of the first execution
        # were launched one by one, the next two were one graph launch each
        # (with new buffers each time: the graph's parameters were updated).
        after = jeet.memory_stats("gpu")
        launched = after["kernels_launched"] - before["kernels_launched"]
        replayed = after["graph_launches"] - before["graph_launches"]
        assert (launched, replayed) == ((KERNELS, 2) if graphs
                                        else (3 * KERNELS, 0))
    finally:
        jeet.set_cuda_graphs(previous)


@requires_gpu
@pytest.mark.parametrize("graphs", [True, False], ids=["graphs", "no-graphs"])
def test_cached_graph_on_resident_inputs_numerics(rng, graphs):
    # The fake driver's scenario on a device that computes: ten matmuls in a
    # row, executed 100 times on resident inputs; the counts of the fake
    # driver's test and numpy's numbers.
    previous = jeet.set_cuda_graphs(graphs)
    try:
        def chain(a, *ws):
            for w in ws:
                a = a @ w
            return a
        graph = jeet.jit(chain)
        a = rng.standard_normal((32, 32)).astype(np.float32)
        ws = [rng.standard_normal((32, 32)).astype(np.float32) / 4
              for _ in range(KERNELS)]
        A = jeet.tensor(a, device="gpu")
        Ws = [jeet.tensor(w, device="gpu") for w in ws]
        C = graph(A, *Ws)
        assert jeet.compile(C).num_kernels == KERNELS
        before = jeet.memory_stats("gpu")
        for _ in range(EXECUTIONS - 1):
            C = graph(A, *Ws)
        after = jeet.memory_stats("gpu")
        d = {k: after[k] - before[k] for k in after
             if isinstance(after[k], int)}
        assert d["h2d_bytes"] == d["d2h_bytes"] == 0, d
        assert d["synchronizations"] == 0 and d["device_mallocs"] == 0, d
        assert d["num_allocs"] == EXECUTIONS - 1, d
        if graphs:
            assert d["graph_launches"] == EXECUTIONS - 1, d
            assert d["kernels_launched"] == 0, d
        else:
            assert d["graph_launches"] == 0, d
            assert d["kernels_launched"] == KERNELS * (EXECUTIONS - 1), d
        expected = a.astype(np.float64)
        for w in ws:
            expected = expected @ w.astype(np.float64)
        # Ten float32 products of 32 terms each: the rounding error of an
        # element follows the magnitude of the terms (outputs up to ~100),
        # not the element's own, which cancellation can make small.
        scale = np.abs(expected).max()
        np.testing.assert_allclose(C.numpy(), expected, rtol=1e-4,
                                   atol=1e-5 * scale)
    finally:
        jeet.set_cuda_graphs(previous)


@requires_gpu
def test_seed_result_stays_on_the_device(rng):
    a = rng.random((128, 128), dtype=np.float32)
    b = rng.random((128, 128), dtype=np.float32)
    A = jeet.tensor(a, device="gpu")
    B = jeet.tensor(b, device="gpu")
    C = jeet.matmul(A, B)
    before = jeet.memory_stats("gpu")
    C.execute()
    after = jeet.memory_stats("gpu")
    assert C.device == "gpu" and C._rt.device == "cuda:0"
    assert after["d2h_bytes"] == before["d2h_bytes"]
    assert after["synchronizations"] == before["synchronizations"]
    values = C.numpy()
    done = jeet.memory_stats("gpu")
    assert done["d2h_bytes"] - after["d2h_bytes"] == values.nbytes
    assert done["synchronizations"] - after["synchronizations"] == 1
    np.testing.assert_allclose(values, a.astype(np.float64) @ b, rtol=1e-4,
                               atol=1e-4)


@requires_gpu
def test_dlpack_round_trip_on_the_gpu(rng):
    x = rng.standard_normal(64).astype(np.float32)
    t = jeet.tensor(x, device="gpu") * 3
    u = jeet.from_dlpack(t)
    assert u._rt.data_ptr == t._rt.data_ptr
    np.testing.assert_allclose((u + 1).numpy(), x.astype(np.float64) * 3 + 1,
                               rtol=1e-6, atol=1e-6)


# -- The static memory plan -------------------------------------------------

PLAN_CHAIN = """
    def chain(a, *ws):
        for w in ws:
            a = jeet.tanh(a @ w)
        return a
    graph = jeet.jit(chain)
    A = jeet.rand(64, 64, device=DEVICE)
    Ws = [jeet.rand(64, 64, device=DEVICE) for _ in range(5)]
    C = graph(A, *Ws)
    plan = jeet.compile(C).memory_plan
    buffer = 64 * 64 * 4
    # Five matmuls in a row: each intermediate is dead once the next is
    # made, so two buffers' space holds them all (the liveness bound).
    assert plan['buffers'] >= 4, plan
    assert plan['intermediate_bytes'] == plan['buffers'] * buffer, plan
    assert plan['arena_bytes'] == plan['live_bytes_bound'] == 2 * buffer, plan
    line = ('arena: {arena_bytes} bytes for {buffers} intermediate(s) of '
            '{intermediate_bytes} bytes (liveness lower bound '
            '{live_bytes_bound} bytes)').format(**plan)
    assert line in jeet.explain(chain(A, *Ws)).splitlines(), jeet.explain(C)
"""


def test_memory_plan_on_the_gpu():
    # A cached execution takes only its output from the allocator: the
    # intermediates are in the arena the first execution allocated.
    run_on_fake_gpu("DEVICE = 'gpu'\n" + textwrap.dedent(PLAN_CHAIN) +
                    textwrap.dedent("""
    C.numpy()
    before = stats()
    for _ in range(10):
        C = graph(A, *Ws)
    d = delta(before, stats())
    assert d['num_allocs'] == 10 and d['device_mallocs'] == 0, d
    """))


def test_memory_plan_on_the_cpu():
    exec("DEVICE = 'cpu'\n" + textwrap.dedent(PLAN_CHAIN),
         {"jeet": jeet, "np": np})
    # Without matmuls (whose packed copy of B is kernel scratch from the
    # allocator's cache), a cached CPU execution allocates its output only.
    x = jeet.rand(64, 64, device="cpu")
    def f(x):
        return jeet.tanh(jeet.exp(x) + x) * jeet.sum(x, axis=1, keepdims=True)
    graph = jeet.jit(f)
    y = graph(x)
    assert jeet.compile(y).memory_plan["arena_bytes"] == 64 * 4
    before = jeet.memory_stats("cpu")
    for _ in range(10):
        y = graph(x)
    after = jeet.memory_stats("cpu")
    assert after["num_allocs"] - before["num_allocs"] == 10
    np.testing.assert_allclose(
        y.numpy(), np.tanh(np.exp(x.numpy().astype(np.float64)) + x.numpy())
        * x.numpy().astype(np.float64).sum(axis=1, keepdims=True),
        rtol=1e-5, atol=1e-5)
