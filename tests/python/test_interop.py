"""Zero-copy exchange: DLPack both ways with CuPy and PyTorch on a GPU, and with NumPy and PyTorch
CPU tensors on the CPU device (kDLCPU); __cuda_array_interface__ (GPU arrays) and
__array_interface__ (CPU-device arrays); moves between devices; pinned host arrays with
asynchronous copies."""
import gc

import numpy as np
import pytest

import hipkit


def _peer(name):
    module = pytest.importorskip(name)
    return module


def test_from_dlpack_refuses_what_has_no_dlpack():
    with pytest.raises(TypeError, match="DLPack"):
        hipkit.from_dlpack([1, 2, 3])


def test_dlpack_device_names_the_arrays_device(device):
    x = hipkit.empty(0, np.float32)
    if device.is_cpu:
        assert x.__dlpack_device__() == (1, 0)  # kDLCPU
    else:
        assert x.__dlpack_device__() == (2 if hipkit.platform() == "nvidia" else 10, device.id)


@pytest.mark.needs_gpu
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint32", "int64", "float16", "float32",
                                   "float64"])
def test_dlpack_round_trip_with_cupy(rng, dtype):
    cp = _peer("cupy")
    host = (rng.standard_normal((5, 7)) * 50).astype(dtype)
    x = hipkit.asarray(host)
    y = cp.from_dlpack(x)  # CuPy reads our capsule
    assert y.data.ptr == x.ptr
    assert np.array_equal(cp.asnumpy(y), host)
    z = hipkit.from_dlpack(y)  # and we read CuPy's
    assert z.ptr == y.data.ptr and z.dtype == host.dtype and z.shape == host.shape
    assert np.array_equal(z.get(), host)
    # views keep their strides both ways
    # (positive strides: CuPy 14 exports negative strides of wide dtypes wrongly, dividing them unsigned)
    v = cp.asarray(host)[::2, 1::3]
    w = hipkit.from_dlpack(v)
    assert w.ptr == v.data.ptr and np.array_equal(w.get(), host[::2, 1::3])
    t = hipkit.from_dlpack(cp.asarray(host).T)
    assert np.array_equal(t.get(), host.T)
    back = cp.from_dlpack(x[1:, ::3])
    assert np.array_equal(cp.asnumpy(back), host[1:, ::3])



@pytest.mark.needs_gpu
def test_dlpack_shares_memory_with_torch_on_the_gpu(rng):
    torch = _peer("torch")
    host = rng.standard_normal((4, 6)).astype(np.float32)
    x = hipkit.asarray(host)
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x.ptr and t.device.type == "cuda"
    t.mul_(2)  # written through PyTorch, seen by hipkit
    torch.cuda.synchronize()
    assert np.array_equal(x.get(), host * 2)
    u = torch.arange(12, dtype=torch.int64, device="cuda").reshape(3, 4).T
    y = hipkit.from_dlpack(u)
    assert y.ptr == u.data_ptr() and y.strides == (8, 32)
    assert np.array_equal(y.get(), np.arange(12).reshape(3, 4).T)
    hipkit.add(y, 1, out=y)  # written through hipkit, seen by PyTorch
    hipkit.get_device().synchronize()
    assert np.array_equal(u.cpu().numpy(), np.arange(12).reshape(3, 4).T + 1)
    y2 = hipkit.asarray(torch.ones(3, device="cuda"))  # asarray takes device tensors without a copy too
    assert y2.shape == (3,) and float(y2.sum()) == 3.0


@pytest.mark.needs_gpu
def test_exported_memory_outlives_the_hipkit_array(rng):
    cp = _peer("cupy")
    host = rng.standard_normal(1000).astype(np.float32)
    x = hipkit.asarray(host)
    y = cp.from_dlpack(x)
    del x
    gc.collect()
    hipkit.zeros(1000, np.float32)  # would reuse the block if it had been freed
    assert np.array_equal(cp.asnumpy(y), host)


@pytest.mark.needs_gpu
def test_cuda_array_interface_both_ways(rng):
    if hipkit.platform() != "nvidia":
        pytest.skip("__cuda_array_interface__ is NVIDIA's")
    cp = _peer("cupy")
    host = rng.standard_normal((3, 5)).astype(np.float64)
    x = hipkit.asarray(host)
    info = x.__cuda_array_interface__
    assert info["data"][0] == x.ptr and info["shape"] == (3, 5) and info["typestr"] == "<f8"
    y = cp.asarray(x)  # CuPy consumes __cuda_array_interface__ without a copy
    assert y.data.ptr == x.ptr and np.array_equal(cp.asnumpy(y), host)
    assert x.T.__cuda_array_interface__["strides"] == (8, 40)
    c = cp.asarray(host)[:, 1:]
    z = hipkit.asarray(c)
    assert z.ptr == c.data.ptr and np.array_equal(z.get(), host[:, 1:])


def test_pinned_arrays_and_asynchronous_copies(rng):
    host = rng.standard_normal(1 << 20).astype(np.float32)
    pinned = hipkit.pinned_empty(host.shape, np.float32)
    pinned[...] = host
    x = hipkit.empty(host.shape, np.float32)
    with hipkit.Stream() as s:
        x.set(pinned, stream=s)
        y = hipkit.multiply(x, 2.0, stream=s)
        back = hipkit.pinned_empty(host.shape, np.float32)
        back[...] = np.nan
        y.get(stream=s, out=back, blocking=False)
        s.synchronize()
    assert np.array_equal(back, host * 2)
    view = back[10:20]
    del back
    gc.collect()
    assert np.array_equal(view, host[10:20] * 2)  # a view keeps the pinned memory alive


@pytest.mark.needs_gpu(2)
def test_arrays_of_two_gpus(rng):
    host = rng.standard_normal(1000).astype(np.float32)
    x = hipkit.asarray(host)
    with hipkit.Device(1):
        y = hipkit.asarray(host)
        assert y.device == 1 and y.device.is_gpu
        with pytest.raises(ValueError, match="two devices"):
            x + y
        z = x.to_device(1)
        assert z.device == 1 and np.array_equal((z + y).get(), host * 2)
    w = y.to_device(hipkit.Device(0))
    assert w.device == 0 and np.array_equal(w.get(), host)
    assert x.to_device(0) is x


# ---------------------------------------------------------------- the CPU device: host memory, kDLCPU

def _on_cpu(host):
    return hipkit.asarray(host, device="cpu")


class _Producer:
    """Only the DLPack protocol of `array`, so consumers take the capsule path."""

    def __init__(self, array, **kwargs):
        self.array, self.kwargs = array, kwargs

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**{**kwargs, **self.kwargs})

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
                                   "float32", "float64"])
def test_numpy_from_dlpack_shares_a_cpu_device_array(rng, dtype):
    host = (rng.standard_normal((5, 7)) * 50).astype(dtype)
    x = _on_cpu(host)
    assert x.__dlpack_device__() == (1, 0)  # kDLCPU
    n = np.from_dlpack(x)
    assert n.ctypes.data == x.ptr and n.dtype == host.dtype and np.array_equal(n, host)
    n[0, 0] = n[1, 1]  # written through NumPy, seen by hipkit
    assert x[0, 0].item() == host[1, 1]
    host[0, 0] = host[1, 1]
    for view, expected in ((x[::2, 1::3], host[::2, 1::3]), (x.T, host.T), (x[::-1, ::-2], host[::-1, ::-2]),
                           (x[3, 4], host[3, 4]), (x[:, None, 2], host[:, None, 2])):
        got = np.from_dlpack(view)
        assert got.ctypes.data == view.ptr and got.shape == expected.shape
        assert np.array_equal(got, np.asarray(expected, dtype)) and got.strides == view.strides


def test_numpy_sees_the_cpu_devices_queued_work_done(rng):
    host = rng.standard_normal(1 << 20)
    x = _on_cpu(host)
    for _ in range(5):
        hipkit.multiply(x, 2.0, out=x)  # queued on the CPU device's worker threads
    np.testing.assert_array_equal(np.from_dlpack(x), host * 32)  # __dlpack__ waits for the device


def test_hipkit_from_dlpack_shares_a_numpy_array(rng):
    n = rng.standard_normal((6, 8))
    h = hipkit.from_dlpack(n)
    assert h.ptr == n.ctypes.data and h.device.is_cpu and h.shape == (6, 8) and h.dtype == n.dtype
    before = n.copy()
    hipkit.add(h, 1.0, out=h)  # written through hipkit...
    h.device.synchronize()  # ...asynchronously, as on a GPU: NumPy sees it once the device is done
    np.testing.assert_array_equal(n, before + 1)
    v = hipkit.from_dlpack(n[::2, ::-3])
    assert v.ptr == n[::2, ::-3].ctypes.data and np.array_equal(v.get(), n[::2, ::-3])
    np.testing.assert_array_equal((v * 2).get(), n[::2, ::-3] * 2)
    i = hipkit.from_dlpack(np.arange(10, dtype=np.int32))
    assert i.dtype == np.int32 and int(hipkit.sum(i)) == 45


def test_hipkit_from_dlpack_round_trips_through_its_own_capsules(rng):
    host = rng.standard_normal((4, 5)).astype(np.float32)
    x = _on_cpu(host)
    for producer in (_Producer(x), _Producer(x, max_version=None)):  # versioned and legacy capsules
        y = hipkit.from_dlpack(producer)
        assert y.ptr == x.ptr and y.device.is_cpu and np.array_equal(y.get(), host)
    t = hipkit.from_dlpack(_Producer(x.T[1:]))
    assert np.array_equal(t.get(), host.T[1:])


def test_a_numpy_array_viewed_by_hipkit_stays_alive():
    n = np.arange(1000, dtype=np.float64)
    h = hipkit.from_dlpack(n)
    del n
    gc.collect()
    np.zeros(1000) + 1  # NumPy would reuse the freed memory
    assert float(hipkit.sum(h)) == 999 * 1000 / 2


def test_memory_exported_to_numpy_outlives_the_hipkit_array(rng):
    host = rng.standard_normal(1000)
    n = np.from_dlpack(_on_cpu(host))
    gc.collect()
    hipkit.zeros(1000, device="cpu")  # would reuse the block if it had been freed
    np.testing.assert_array_equal(n, host)


def test_read_only_numpy_arrays_are_copied_or_refused():
    n = np.arange(4.0)
    n.flags.writeable = False
    h = hipkit.from_dlpack(n)
    assert h.ptr != n.ctypes.data and np.array_equal(h.get(), n)
    with pytest.raises(BufferError, match="read-only"):
        hipkit.from_dlpack(n, copy=False)


def test_from_dlpack_copies_when_asked(rng):
    n = rng.standard_normal(5)
    h = hipkit.from_dlpack(n, copy=True)
    assert h.ptr != n.ctypes.data and h.device.is_cpu and np.array_equal(h.get(), n)
    s = hipkit.from_dlpack(n, copy=False)
    assert s.ptr == n.ctypes.data


def test_asarray_copies_host_data_but_shares_it_with_copy_false_on_the_cpu_device(rng):
    n = rng.standard_normal(5)
    assert hipkit.asarray(n, device="cpu").ptr != n.ctypes.data  # host data is copied, as onto a GPU
    shared = hipkit.asarray(n, device="cpu", copy=False)
    assert shared.ptr == n.ctypes.data
    with pytest.raises(ValueError, match="copy=False"):
        hipkit.asarray([1.0, 2.0], device="cpu", copy=False)  # a list has no memory to share


def test_numpy_asarray_views_a_cpu_device_array(rng):
    host = rng.standard_normal((3, 4)).astype(np.float32)
    x = _on_cpu(host)
    n = np.asarray(x)
    assert n.ctypes.data == x.ptr and np.array_equal(n, host) and n.flags.writeable
    assert np.shares_memory(np.asarray(x[:, 1:]), n) and np.array_equal(np.asarray(x[::-1, ::2]), host[::-1, ::2])
    assert np.array(x, copy=True).ctypes.data != x.ptr and np.asarray(x, dtype=np.float64).dtype == np.float64
    assert np.asarray(hipkit.empty((0, 3), device="cpu")).shape == (0, 3)
    assert np.asarray(hipkit.broadcast_to(x[0], (2, 4))).strides == (0, 4)
    del x
    gc.collect()
    hipkit.zeros((3, 4), np.float32, device="cpu")
    np.testing.assert_array_equal(n, host)  # the view keeps the array alive


def test_cuda_array_interface_is_refused_for_cpu_device_arrays():
    x = hipkit.zeros(3, device="cpu")
    assert not hasattr(x, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="CPU device"):
        x.__cuda_array_interface__


def test_dlpack_with_torch_on_the_cpu_device(rng):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the CPU-tensor DLPack exchange is "
                                                "not checked here")
    host = rng.standard_normal((4, 6)).astype(np.float32)
    x = _on_cpu(host)
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x.ptr and t.device.type == "cpu"
    t.mul_(2)  # written through PyTorch, seen by hipkit
    np.testing.assert_array_equal(x.get(), host * 2)
    u = torch.arange(12, dtype=torch.int64).reshape(3, 4).T
    y = hipkit.from_dlpack(u)
    assert y.ptr == u.data_ptr() and y.strides == (8, 32) and y.device.is_cpu
    hipkit.add(y, 1, out=y)  # written through hipkit, seen by PyTorch
    y.device.synchronize()
    assert np.array_equal(u.numpy(), np.arange(12).reshape(3, 4).T + 1)
    z = hipkit.asarray(torch.ones(3), device="cpu")  # asarray copies host data
    assert z.shape == (3,) and float(z.sum()) == 3.0


@pytest.mark.needs_gpu
def test_a_gpu_array_exports_a_host_copy_when_numpy_asks_for_the_cpu(rng):
    host = rng.standard_normal((3, 5))
    x = hipkit.asarray(host)  # on the GPU
    assert x.__dlpack_device__()[0] in (2, 10)
    n = np.from_dlpack(x, device="cpu")  # dl_device=(kDLCPU, 0): a copy
    np.testing.assert_array_equal(n, host)
    with pytest.raises(BufferError, match="copy=False"):
        np.from_dlpack(x, device="cpu", copy=False)
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        np.asarray(x)  # no implicit copy from a GPU
