"""DLPack both ways on the CPU: zero-copy with numpy and PyTorch (the owner
kept alive by whoever holds the memory), and clear errors for what Jeet
cannot take: strides, dtypes, devices, capsules used twice. (GPU DLPack on the
fake driver and the emulator: test_residency.py.)"""

import ctypes
import gc

import numpy as np
import pytest

import jeet

try:
    import torch
except ImportError:  # `make setup` installs it; it may fail to (offline)
    torch = None

requires_torch = pytest.mark.skipif(
    torch is None, reason="PyTorch is not installed (make setup installs it "
                          "where PyPI is reachable)")


def host_allocated():
    return jeet.memory_stats("cpu")["allocated_bytes"]


def test_numpy_to_jeet_shares_memory_and_keeps_the_owner(rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    expected = x.astype(np.float64) * 2
    before = host_allocated()
    t = jeet.from_dlpack(x)
    assert t.shape == (3, 4) and t.dtype == "float32" and t.device == "cpu"
    assert t._rt.data_ptr == x.ctypes.data            # no copy
    assert host_allocated() == before                 # numpy's memory
    del x
    gc.collect()                                      # t keeps it alive
    np.testing.assert_allclose((t * 2).numpy(), expected, rtol=1e-6)


def test_int64_and_bool_are_shared_and_computed_with(rng):
    # Indices and masks cross without a copy, like float data: a gather by
    # int64 indices and a select by a bool mask, against numpy.
    table = rng.standard_normal((10, 3)).astype(np.float32)
    ids = rng.integers(0, 10, (4, 5)).astype(np.int64)
    mask = rng.standard_normal((4, 5, 3)) > 0
    before = host_allocated()
    tids, tmask = jeet.from_dlpack(ids), jeet.from_dlpack(mask)
    assert host_allocated() == before
    assert (tids.dtype, tmask.dtype) == ("int64", "bool")
    assert tids._rt.data_ptr == ids.ctypes.data
    assert tmask._rt.data_ptr == mask.ctypes.data
    rows = jeet.take(jeet.from_dlpack(table), tids, axis=0)
    out = jeet.where(tmask, rows, 0.0).numpy()
    expected = np.where(mask, table.astype(np.float64)[ids], 0.0)
    np.testing.assert_array_equal(out, expected.astype(np.float32))
    ids[0, 0] = (ids[0, 0] + 1) % 10          # the writes are seen
    mask[0, 0, 0] = not mask[0, 0, 0]
    np.testing.assert_array_equal(tids.numpy(), ids)
    np.testing.assert_array_equal(tmask.numpy(), mask)


def test_numpy_sees_writes_through_shared_memory():
    x = np.zeros(4, np.float32)
    t = jeet.from_dlpack(x)
    x[2] = 7.0
    np.testing.assert_array_equal(t.numpy(), [0, 0, 7, 0])


def test_jeet_to_numpy_shares_memory_and_keeps_the_buffer(rng):
    a = rng.standard_normal(8).astype(np.float32)
    t = jeet.tensor(a, device="cpu") + 1
    t.execute()
    gc.collect()                 # earlier tests' garbage freed before counting
    before = host_allocated()
    y = np.from_dlpack(t)
    assert y.ctypes.data == t._rt.data_ptr
    del t
    gc.collect()
    np.testing.assert_allclose(y, a.astype(np.float64) + 1, rtol=1e-6)
    assert host_allocated() == before                 # y holds the buffer
    del y
    gc.collect()
    assert host_allocated() < before                  # now it is given back


def test_asarray_is_a_read_only_view(rng):
    # np.asarray of a CPU tensor reads Jeet's memory (no copy); writes need
    # a copy (np.array, .numpy()); bfloat16 (none in NumPy) converts.
    t = jeet.tensor(rng.standard_normal((4, 5)).astype(np.float32), device="cpu") * 2
    view = np.asarray(t)
    assert view.ctypes.data == np.from_dlpack(t).ctypes.data == np.asarray(t).ctypes.data
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0, 0] = 1.0
    copied = np.array(t)
    assert copied.flags.writeable and copied.ctypes.data != view.ctypes.data
    np.testing.assert_array_equal(copied, view)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    b = jeet.tensor([1.5, -2.0], dtype="bfloat16", device="cpu")
    np.testing.assert_array_equal(np.asarray(b), [1.5, -2.0])
    with pytest.raises(ValueError, match="bfloat16 tensor on cpu cannot be converted.*without a copy"):
        np.asarray(b, copy=False)


def test_lazy_tensor_is_computed_for_export():
    t = jeet.ones(3, device="cpu") * 4
    assert not t.is_materialized
    np.testing.assert_array_equal(np.from_dlpack(t), [4, 4, 4])


def test_device_of_a_cpu_tensor():
    assert jeet.ones(2, device="cpu").__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("dtype", ["float16", "int32"])
def test_other_dtypes_round_trip(dtype):
    x = np.arange(6).reshape(2, 3).astype(dtype)
    t = jeet.from_dlpack(x)
    assert t.dtype == dtype
    np.testing.assert_array_equal(np.from_dlpack(t), x)


def test_capsule_is_consumed_once():
    capsule = jeet.ones(2, device="cpu").__dlpack__()
    t = jeet.from_dlpack(capsule)
    np.testing.assert_array_equal(t.numpy(), [1, 1])
    with pytest.raises(jeet.JeetError, match="already consumed"):
        jeet.from_dlpack(capsule)


def test_versioned_capsule():
    capsule = jeet.ones(2, device="cpu").__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(capsule)
    np.testing.assert_array_equal(jeet.from_dlpack(capsule).numpy(), [1, 1])


def test_unused_capsules_free_the_buffer():
    t = jeet.ones(1024, device="cpu") * 2
    t.execute()
    before = host_allocated()
    for _ in range(3):
        t.__dlpack__()
        t.__dlpack__(max_version=(1, 0))
    del t
    gc.collect()
    assert host_allocated() < before


def test_strided_and_foreign_dtypes_are_refused():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(jeet.JeetError, match=r"shape \(4, 3\) has strides "
                       r"\(1, 4\) .*not C-contiguous.*ascontiguousarray"):
        jeet.from_dlpack(x.T)
    with pytest.raises(jeet.JeetError, match="dtype float64 is not supported"):
        jeet.from_dlpack(x.astype(np.float64))
    with pytest.raises(jeet.JeetError, match="dtype int8 is not supported"):
        jeet.from_dlpack(x.astype(np.int8))
    with pytest.raises(jeet.JeetError, match="dtype uint8 is not supported"):
        jeet.from_dlpack(x.astype(np.uint8))
    # A dimension of one element may have any stride.
    column = np.arange(4, dtype=np.float32).reshape(4, 1)
    np.testing.assert_array_equal(jeet.from_dlpack(column[:, :1]).numpy(),
                                  column)


def test_export_to_another_device_or_stream_is_refused():
    t = jeet.ones(2, device="cpu")
    with pytest.raises(BufferError, match="cannot be exported"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(jeet.JeetError, match="a CPU tensor takes no stream"):
        t.__dlpack__(stream=1)


def test_copy_on_request():
    t = jeet.ones(3, device="cpu") * 5
    y = np.from_dlpack(t, copy=True)
    assert y.ctypes.data != t._rt.data_ptr
    np.testing.assert_array_equal(y, [5, 5, 5])


def test_not_dlpack():
    with pytest.raises(jeet.JeetError, match="expected an object with "
                       "__dlpack__ or a DLPack capsule, got list"):
        jeet.from_dlpack([1, 2, 3])


# A DLPack tensor on a device Jeet does not know, made by hand.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


def test_foreign_device_is_refused():
    data = (ctypes.c_float * 4)()
    shape = (ctypes.c_int64 * 1)(4)
    managed = _DLManagedTensor()
    managed.dl_tensor = _DLTensor(
        ctypes.cast(data, ctypes.c_void_p), _DLDevice(10, 0), 1,  # kDLROCM
        _DLDataType(2, 32, 1), shape, None, 0)
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule = new_capsule(ctypes.addressof(managed), b"dltensor", None)
    with pytest.raises(jeet.JeetError,
                       match="tensors on DLPack device type 10 are not "
                             "supported"):
        jeet.from_dlpack(capsule)


@requires_torch
def test_torch_to_jeet_shares_memory(rng):
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    t = jeet.from_dlpack(x)
    assert t._rt.data_ptr == x.data_ptr()
    x[0, 0] = 100.0
    np.testing.assert_array_equal(t.numpy()[0], [100, 1, 2, 3])
    del x
    gc.collect()
    assert t.numpy()[0, 0] == 100


@requires_torch
def test_jeet_to_torch_shares_memory(rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    t = jeet.tensor(a, device="cpu") * 2
    y = torch.from_dlpack(t)
    assert y.data_ptr() == t._rt.data_ptr
    np.testing.assert_allclose(y.numpy(), a.astype(np.float64) * 2, rtol=1e-6)


@requires_torch
def test_bfloat16_through_torch():
    x = torch.tensor([1.0, 2.5, -3.0], dtype=torch.bfloat16)
    t = jeet.from_dlpack(x)
    assert t.dtype == "bfloat16"
    np.testing.assert_array_equal((t * 2).numpy(), [2.0, 5.0, -6.0])
    back = torch.from_dlpack(t * 2)
    assert back.dtype == torch.bfloat16
    assert back.tolist() == [2.0, 5.0, -6.0]


@requires_torch
def test_torch_strides_and_dtypes_are_refused():
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    with pytest.raises(jeet.JeetError, match="not C-contiguous"):
        jeet.from_dlpack(x.t())
    with pytest.raises(jeet.JeetError, match="dtype float64 is not supported"):
        jeet.from_dlpack(x.double())
    with pytest.raises(jeet.JeetError, match="dtype int16 is not supported"):
        jeet.from_dlpack(x.short())


@requires_torch
def test_torch_int64_and_bool_are_shared():
    ids = torch.tensor([[3, 1], [0, 2]], dtype=torch.int64)
    mask = ids > 1
    tids, tmask = jeet.from_dlpack(ids), jeet.from_dlpack(mask)
    assert tids._rt.data_ptr == ids.data_ptr()
    assert tmask._rt.data_ptr == mask.data_ptr()
    ids[0, 0] = 7
    np.testing.assert_array_equal(tids.numpy(), [[7, 1], [0, 2]])
    np.testing.assert_array_equal(tmask.numpy(), [[True, False], [False, True]])


def test_bfloat16_tensor_times_a_python_scalar():
    # The scalar becomes a rank-0 bfloat16 constant (its rounding once
    # failed on rank 0).
    t = jeet.tensor([1.0, 2.5], dtype="bfloat16", device="cpu") * 2
    np.testing.assert_array_equal(t.numpy(), [2.0, 5.0])


def test_refused_imports_leak_nothing():
    # A refused import gives the capsule back untouched (its producer frees
    # it), and a consumed capsule holds nothing more once dropped: the
    # producers' reference counts and the allocator return to where they
    # started.
    import sys
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    view, wide = x.T, x.astype(np.float64)
    gc.collect()
    start = host_allocated()
    counts = [sys.getrefcount(a) for a in (x, view, wide)]
    for _ in range(3):
        with pytest.raises(jeet.JeetError, match="not C-contiguous"):
            jeet.from_dlpack(view)
        with pytest.raises(jeet.JeetError, match="float64 is not supported"):
            jeet.from_dlpack(wide)
        capsule = jeet.ones(1024, device="cpu").__dlpack__()
        t = jeet.from_dlpack(capsule)
        with pytest.raises(jeet.JeetError, match="already consumed"):
            jeet.from_dlpack(capsule)
        del t, capsule
    gc.collect()
    assert [sys.getrefcount(a) for a in (x, view, wide)] == counts
    assert host_allocated() == start


@requires_torch
def test_refused_torch_imports_leak_nothing():
    import sys
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    view, wide = x.t(), x.double()
    counts = [sys.getrefcount(a) for a in (view, wide)]
    for _ in range(3):
        with pytest.raises(jeet.JeetError, match="not C-contiguous"):
            jeet.from_dlpack(view)
        with pytest.raises(jeet.JeetError, match="float64 is not supported"):
            jeet.from_dlpack(wide)
    gc.collect()
    assert [sys.getrefcount(a) for a in (view, wide)] == counts
