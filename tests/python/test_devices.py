"""Where arrays live: device= on every creation function (a hipkit.Device, a device number, "cpu",
"gpu"), `with hipkit.Device(...)`, ndarray.device, and moving arrays between devices (to_device,
copy, asarray and from_dlpack with device=). The CPU device is always there, so the tests of it run
on every machine; the moves between a GPU and the CPU device need a GPU."""
import gc

import numpy as np
import pytest

import hipkit

# (name, how to make an array on device d, what NumPy makes of the same call or None when random)
CREATION = [
    ("empty", lambda d: hipkit.empty((2, 3), np.float32, device=d), None),
    ("ndarray", lambda d: hipkit.ndarray((2, 3), np.int32, device=d), None),
    ("zeros", lambda d: hipkit.zeros((2, 3), np.int32, device=d), np.zeros((2, 3), np.int32)),
    ("ones", lambda d: hipkit.ones(4, device=d), np.ones(4)),
    ("full", lambda d: hipkit.full((3,), 2.5, np.float32, device=d), np.full(3, 2.5, np.float32)),
    ("arange", lambda d: hipkit.arange(1, 10, 2, device=d), np.arange(1, 10, 2)),
    ("arange float16", lambda d: hipkit.arange(5, dtype=np.float16, device=d), np.arange(5, dtype=np.float16)),
    ("linspace", lambda d: hipkit.linspace(0, 1, 5, device=d), np.linspace(0, 1, 5)),
    ("asarray", lambda d: hipkit.asarray([[1, 2], [3, 4]], device=d), np.array([[1, 2], [3, 4]])),
    ("array", lambda d: hipkit.array(np.arange(6.0)[::2], device=d), np.arange(6.0)[::2]),
    ("ascontiguousarray", lambda d: hipkit.ascontiguousarray(np.ones((2, 2)).T, device=d), np.ones((2, 2))),
    ("copy", lambda d: hipkit.copy(np.arange(3), device=d), np.arange(3)),
    ("empty_like", lambda d: hipkit.empty_like(np.zeros((2, 2)), device=d), None),
    ("zeros_like", lambda d: hipkit.zeros_like(np.ones(3, np.uint8), device=d), np.zeros(3, np.uint8)),
    ("ones_like", lambda d: hipkit.ones_like(np.zeros(2, bool), device=d), np.ones(2, bool)),
    ("full_like", lambda d: hipkit.full_like(np.zeros(3), 7, dtype=np.int64, device=d), np.full(3, 7)),
    ("random", lambda d: hipkit.random.default_rng(3).random(5, device=d), None),
    ("uniform", lambda d: hipkit.random.default_rng(3).uniform(-1, 1, (2, 2), np.float32, device=d), None),
    ("normal", lambda d: hipkit.random.default_rng(3).normal(size=3, device=d), None),
    ("standard_normal", lambda d: hipkit.random.default_rng(3).standard_normal(3, device=d), None),
]
NAMES = [name for name, _, _ in CREATION]


def _check_made_on(array, device, expected):
    assert isinstance(array, hipkit.ndarray)
    assert array.device == device and array.device.kind == device.kind
    if expected is not None:
        got = array.get()
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name, make, expected", CREATION, ids=NAMES)
@pytest.mark.parametrize("spec", ["cpu", "Device('cpu')", "the number"])
def test_device_cpu_on_each_creation_function(name, make, expected, spec):
    cpu = hipkit.Device("cpu")
    given = {"cpu": "cpu", "Device('cpu')": cpu, "the number": cpu.id}[spec]
    _check_made_on(make(given), cpu, expected)


@pytest.mark.needs_gpu
def test_device_gpu_on_each_creation_function():
    for name, make, expected in CREATION:
        for given in ("gpu", hipkit.Device(0), 0):
            with hipkit.Device("cpu"):  # device= wins over the current device
                array = make(given)
            try:
                _check_made_on(array, hipkit.Device(0), expected)
            except AssertionError as error:
                raise AssertionError(f"{name} with device={given!r}: {error}") from None


def test_random_numbers_do_not_depend_on_the_device_asked_for():
    current = hipkit.random.default_rng(11).random(1001, np.float32).get()
    on_cpu = hipkit.random.default_rng(11).random(1001, np.float32, device="cpu").get()
    np.testing.assert_array_equal(current.view(np.uint32), on_cpu.view(np.uint32))


@pytest.mark.parametrize("name, make, expected", CREATION, ids=NAMES)
def test_device_none_is_the_current_device(name, make, expected):
    cpu = hipkit.Device("cpu")
    with cpu:
        _check_made_on(make(None), cpu, expected)
    _check_made_on(make(None), hipkit.get_device(), expected)


@pytest.mark.parametrize("spec, error", [("tpu", hipkit.InvalidDeviceError), (99, hipkit.InvalidDeviceError),
                                         (1.5, TypeError), (True, TypeError)])
def test_a_bad_device_is_refused_before_anything_is_made(spec, error):
    for name, make, _ in CREATION:
        with pytest.raises(error):
            make(spec)


def test_the_like_functions_keep_the_arrays_device():
    x = hipkit.arange(4, dtype=np.int32, device="cpu")
    for like in (hipkit.empty_like(x), hipkit.zeros_like(x), hipkit.ones_like(x), hipkit.full_like(x, 3)):
        assert like.device.is_cpu and like.dtype == np.int32 and like.shape == (4,)


@pytest.mark.needs_gpu
def test_the_like_functions_keep_a_gpu_arrays_device_and_take_device():
    x = hipkit.zeros(3, device="gpu")
    with hipkit.Device("cpu"):
        assert hipkit.zeros_like(x).device == 0 and hipkit.full_like(x, 1.0).device.is_gpu
        assert hipkit.ones_like(x, device="cpu").device.is_cpu


def test_to_device_of_the_arrays_own_device_is_the_array():
    x = hipkit.ones(3, device="cpu")
    assert x.to_device("cpu") is x and x.to_device(x.device) is x and x.to_device(x.device.id) is x
    assert hipkit.asarray(x, device="cpu") is x and hipkit.from_dlpack(x, device="cpu") is x
    assert hipkit.asarray(x, device="cpu", copy=True) is not x


@pytest.mark.parametrize("spec, error", [("tpu", hipkit.InvalidDeviceError), (99, hipkit.InvalidDeviceError),
                                         (None, TypeError)])
def test_to_device_refuses_what_names_no_device(spec, error):
    with pytest.raises(error):
        hipkit.ones(3, device="cpu").to_device(spec)


def test_astype_of_the_array_api_takes_device():
    x = hipkit.arange(5, device="cpu")
    y = hipkit.astype(x, hipkit.float32, device="cpu")
    assert y.device.is_cpu and y.dtype == np.float32 and y is not x
    assert hipkit.astype(x, hipkit.int64, copy=False, device="cpu") is x


# ---------------------------------------------------------------- moves with a GPU

@pytest.mark.needs_gpu
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float16", "float32", "float64"])
def test_to_device_moves_between_a_gpu_and_the_cpu_device(rng, dtype):
    host = (rng.standard_normal((37, 41)) * 50).astype(dtype)
    x = hipkit.asarray(host, device="gpu")
    y = x.to_device("cpu")
    assert y.device.is_cpu and y.ptr != x.ptr and y.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(y.get(), host)
    np.testing.assert_array_equal(np.asarray(y), host)  # host memory: NumPy views it
    z = y.to_device(hipkit.Device(0))
    assert z.device == 0 and z.ptr not in (x.ptr, y.ptr)
    np.testing.assert_array_equal(z.get(), host)
    # strided views move as their elements, and the copies are independent of each other
    v = x[::3, ::-2].to_device("cpu")
    np.testing.assert_array_equal(v.get(), host[::3, ::-2])
    w = y[1:, 5].to_device("gpu")
    np.testing.assert_array_equal(w.get(), host[1:, 5])
    y.fill(0)
    np.testing.assert_array_equal(x.get(), host)


@pytest.mark.needs_gpu
def test_moves_wait_for_the_work_queued_on_either_device(rng):
    host = rng.standard_normal(1 << 20).astype(np.float32)
    x = hipkit.asarray(host, device="gpu")
    for _ in range(3):
        with hipkit.Device("cpu"):
            y = x.to_device("cpu")
            y *= 2  # queued on the CPU device's worker threads
        x = y.to_device("gpu")
        x += 1  # queued on the GPU
    np.testing.assert_allclose(x.to_device("cpu").get(), ((host * 2 + 1) * 2 + 1) * 2 + 1, rtol=1e-6)


@pytest.mark.needs_gpu
def test_asarray_copy_and_from_dlpack_with_device_move_too(rng):
    host = rng.standard_normal((3, 4))
    x = hipkit.asarray(host)  # on the GPU
    for moved in (hipkit.asarray(x, device="cpu"), hipkit.copy(x, device="cpu"),
                  hipkit.from_dlpack(x, device="cpu"), hipkit.asarray(x, np.float32, device="cpu")):
        assert moved.device.is_cpu
        np.testing.assert_allclose(moved.get(), host, rtol=1e-7)
    with pytest.raises(ValueError, match="copy=False"):
        hipkit.asarray(x, device="cpu", copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        hipkit.from_dlpack(x, device="cpu", copy=False)
    back = hipkit.asarray(hipkit.asarray(host, device="cpu"), device=0)
    assert back.device == 0 and np.array_equal(back.get(), host)


@pytest.mark.needs_gpu
def test_a_moved_array_outlives_its_source(rng):
    host = rng.standard_normal(1000)
    y = hipkit.asarray(host, device="gpu").to_device("cpu")
    gc.collect()
    hipkit.zeros(1000, device="gpu"), hipkit.zeros(1000, device="cpu")  # would reuse a freed block
    np.testing.assert_array_equal(y.get(), host)


# ---------------------------------------------------------------- ops follow their data

@pytest.mark.needs_gpu
@pytest.mark.parametrize("there, here", [("cpu", "gpu"), ("gpu", "cpu")])
def test_ops_run_on_the_device_of_their_data_not_the_current_one(rng, there, here):
    host = rng.standard_normal((6, 5)).astype(np.float32)
    x = hipkit.asarray(host, device=there)
    with hipkit.Device(here):
        results = {
            "x + y (fast path)": (x + x, host + host),
            "x * 2 (scalar)": (x * 2, host * 2),
            "strided view": (x[:, ::2] - x[:, 1::2][:, :2].sum(), None),
            "sum": (x.sum(axis=0), host.sum(axis=0)),
            "cumsum": (hipkit.cumsum(x, axis=1), np.cumsum(host, axis=1)),
            "sort": (hipkit.sort(x, axis=1), np.sort(host, axis=1)),
            "argsort": (hipkit.argsort(x[:, 0]), np.argsort(host[:, 0], kind="stable")),
            "matmul": (x @ x.T, host @ host.T),
            "take": (hipkit.take(x, [4, 0], axis=0), host[[4, 0]]),
            "x[[...]]": (x[[1, 3]], host[[1, 3]]),
            "x[mask]": (x[x > 0], host[host > 0]),
            "where": (hipkit.where(x > 0, x, 0.0), np.where(host > 0, host, 0)),
            "concatenate": (hipkit.concatenate([x, x[:1]]), np.concatenate([host, host[:1]])),
            "nonzero": (hipkit.nonzero(x > 0)[1], np.nonzero(host > 0)[1]),
            "zeros_like": (hipkit.zeros_like(x), np.zeros_like(host)),
        }
        y = x.copy()
        y.fill(1.5)
        y[0] = 2.0
        y[[1, 2], 0] = -1.0
        y.sort(axis=1)
        hipkit.put(y, [0], 7.0)
        z = hipkit.empty_like(x)
        hipkit.multiply(x, 3.0, out=z)
        for name, (got, want) in results.items():
            assert got.device == hipkit.Device(there), name
            if want is not None:
                np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-5, err_msg=name)
        expected = np.full((6, 5), 1.5, np.float32)
        expected[0] = 2.0
        expected[[1, 2], 0] = -1.0
        expected.sort(axis=1)
        expected.flat[0] = 7.0
        assert y.device == hipkit.Device(there) and z.device == hipkit.Device(there)
        np.testing.assert_array_equal(y.get(), expected)
        np.testing.assert_allclose(z.get(), host * 3, rtol=1e-6)
        assert hipkit.get_device() == hipkit.Device(here)  # and the current device is as it was
