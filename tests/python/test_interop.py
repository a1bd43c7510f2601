"""Zero-copy exchange (DLPack both ways with CuPy and PyTorch,
__cuda_array_interface__) and pinned host arrays with asynchronous copies."""
import gc

import numpy as np
import pytest

import hipkit


def _peer(name):
    module = pytest.importorskip(name)
    return module


def test_from_dlpack_refuses_host_arrays():
    with pytest.raises(BufferError, match="asarray"):
        hipkit.from_dlpack(np.zeros(3))
    with pytest.raises(TypeError, match="DLPack"):
        hipkit.from_dlpack([1, 2, 3])


def test_dlpack_device_names_this_platform():
    x = hipkit.empty(0, np.float32)
    kind, index = x.__dlpack_device__()
    assert kind == (2 if hipkit.platform() == "nvidia" else 10) and index == 0


@pytest.mark.gpu
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



@pytest.mark.gpu
def test_dlpack_shares_memory_with_torch(rng):
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
    hipkit.Device(0).synchronize()
    assert np.array_equal(u.cpu().numpy(), np.arange(12).reshape(3, 4).T + 1)
    y2 = hipkit.asarray(torch.ones(3, device="cuda"))  # asarray takes device tensors without a copy too
    assert y2.shape == (3,) and float(y2.sum()) == 3.0


@pytest.mark.gpu
def test_exported_memory_outlives_the_hipkit_array(rng):
    cp = _peer("cupy")
    host = rng.standard_normal(1000).astype(np.float32)
    x = hipkit.asarray(host)
    y = cp.from_dlpack(x)
    del x
    gc.collect()
    hipkit.zeros(1000, np.float32)  # would reuse the block if it had been freed
    assert np.array_equal(cp.asnumpy(y), host)


@pytest.mark.gpu
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


@pytest.mark.gpu
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


@pytest.mark.gpu
def test_arrays_of_two_devices(rng):
    if hipkit.device_count() < 2:
        pytest.skip("needs two GPUs")
    host = rng.standard_normal(1000).astype(np.float32)
    x = hipkit.asarray(host)
    with hipkit.Device(1):
        y = hipkit.asarray(host)
        assert y.device == 1
        with pytest.raises(ValueError, match="device 0"):
            x + y
        z = x.to_device(1)
        assert z.device == 1 and np.array_equal((z + y).get(), host * 2)
    w = y.to_device(hipkit.Device(0))
    assert w.device == 0 and np.array_equal(w.get(), host)
    assert x.to_device(0) is x
