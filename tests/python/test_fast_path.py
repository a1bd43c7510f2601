"""The native fast path of the elementwise binary ops (hipkit._launch.fast_binary):
every binary op of the op table (hipkit.add ... hipkit.right_shift) and its operator
take same-shape, same-dtype contiguous arrays to hk_elementwise in C, a new output
included. It must give what the Python path gives, build arrays that behave
like any other (attributes, views, lifetime, memory returned to the pool), and
hand every other case to the Python path unchanged."""
import gc
import inspect
import operator
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hipkit

_launch = pytest.importorskip("hipkit._launch")

FAST = [("add", operator.add, np.add), ("subtract", operator.sub, np.subtract),
        ("multiply", operator.mul, np.multiply), ("divide", operator.truediv, np.divide),
        ("floor_divide", operator.floordiv, np.floor_divide)]
DTYPES = {"add": ("float32", "float64", "int32", "int64"), "subtract": ("float32", "float64", "int32", "int64"),
          "multiply": ("float32", "float64", "int32", "int64"), "divide": ("float32", "float64"),
          "floor_divide": ("int32", "int64")}


def test_the_fast_callables_look_like_functions():
    assert hipkit.add.__name__ == "add"
    assert "elementwise" in hipkit.add.__doc__
    assert str(inspect.signature(hipkit.add)) == "(x1, x2, /, out=None, *, stream=None)"
    assert str(inspect.signature(hipkit.ndarray.__add__)) == "(self, other)"
    assert "add" in repr(hipkit.add)


def _random(rng, dtype, shape):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    values = rng.integers(-1000, 1000, shape).astype(dtype)
    values[values == 0] = 7  # floor_divide by zero is its own test elsewhere
    return values


@pytest.mark.parametrize("name, op, np_op", FAST)
@pytest.mark.parametrize("shape", [(), (1,), (1023,), (37, 41), (2, 3, 5, 7)])
def test_new_outputs_out_and_in_place_match_numpy(rng, name, op, np_op, shape):
    for dtype in DTYPES[name]:
        a, b = _random(rng, dtype, shape), _random(rng, dtype, shape)
        x, y = hipkit.asarray(a), hipkit.asarray(b)
        want = np_op(a, b)
        for got in (getattr(hipkit, name)(x, y), op(x, y)):
            assert got.shape == want.shape and got.dtype == want.dtype, (name, dtype, shape)
            np.testing.assert_array_equal(got.get(), want)
            assert got.strides == want.strides and got.flags["C_CONTIGUOUS"] and got.base is None
            assert got.size == want.size and got.nbytes == want.nbytes and got.device == x.device
        z = hipkit.full(shape, -1, dtype)
        assert getattr(hipkit, name)(x, y, out=z) is z
        np.testing.assert_array_equal(z.get(), want)
        w = hipkit.asarray(a)
        w_before = w
        w = {"add": operator.iadd, "subtract": operator.isub, "multiply": operator.imul,
             "divide": operator.itruediv, "floor_divide": operator.ifloordiv}[name](w, y)
        assert w is w_before
        np.testing.assert_array_equal(w.get(), want)


def test_a_fast_result_behaves_like_any_array(rng):
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    z = hipkit.asarray(a) + hipkit.asarray(b)
    assert z.ptr != 0 and z.ptr == z._hk_address
    view = z[10:20:2]
    np.testing.assert_array_equal(view.get(), (a + b)[10:20:2])
    del z
    gc.collect()
    np.testing.assert_array_equal(view.get(), (a + b)[10:20:2])  # the view keeps the memory
    s = hipkit.sum(hipkit.asarray(a) * hipkit.asarray(b))  # through the cffi path (_data)
    assert abs(float(s) - float(np.dot(a.astype(np.float64), b))) < 1e-3
    np.testing.assert_array_equal((hipkit.asarray(a) + hipkit.asarray(b)).reshape(10, 100).get(),
                                  (a + b).reshape(10, 100))


def test_fast_results_give_their_memory_back():
    x = hipkit.ones(1 << 20, np.float32)
    hipkit.get_device().synchronize()
    before = hipkit.pool_stats()["bytes_in_use"]
    for _ in range(50):
        z = x + x
    del z
    gc.collect()
    hipkit.get_device().synchronize()
    assert hipkit.pool_stats()["bytes_in_use"] == before


def test_other_cases_take_the_python_path(rng):
    a = rng.standard_normal((6, 8)).astype(np.float32)
    x = hipkit.asarray(a)
    np.testing.assert_array_equal((x[:, ::2] + x[:, 1::2]).get(), a[:, ::2] + a[:, 1::2])  # views
    np.testing.assert_array_equal((x + 2.5).get(), a + np.float32(2.5))  # a scalar
    np.testing.assert_array_equal((x + x[0]).get(), a + a[0])  # broadcasting
    np.testing.assert_array_equal((x + x.astype(np.float64)).get(), a + a.astype(np.float64))  # promotion
    i = hipkit.asarray(np.arange(48, dtype=np.int32).reshape(6, 8))
    np.testing.assert_array_equal((i / i).get(), np.arange(48).reshape(6, 8) / np.arange(48).reshape(6, 8))
    with pytest.raises(TypeError):
        x + np.ones((6, 8), np.float32)  # implicit conversion is refused, as before
    with pytest.raises(ValueError):
        hipkit.add(x, x, out=hipkit.empty((5, 8), np.float32))  # a wrong out shape
    z = hipkit.empty((6, 8), np.float32)
    hipkit.add(x, x, out=z[:, :])  # a view as out
    np.testing.assert_array_equal(z.get(), a + a)
    s = hipkit.Stream()
    np.testing.assert_array_equal(hipkit.add(x, x, stream=s).get(stream=s), a + a)


def test_what_is_kept_of_each_array_is_its_own(rng):
    """The fast path keeps each array's dtype, shape, size and address in its
    __dict__ (_hk_meta) after first use: views at other offsets, reshaped
    views of the same memory and new results must each get their own."""
    a, b = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    x, y = hipkit.asarray(a), hipkit.asarray(b)
    np.testing.assert_array_equal((x + y).get(), a + b)
    assert "_hk_meta" in x.__dict__ and "_hk_meta" in y.__dict__
    for lo, hi in ((1, 33), (7, 39), (0, 32), (32, 64)):  # contiguous views: same length, other addresses
        np.testing.assert_array_equal((x[lo:hi] + y[:32]).get(), a[lo:hi] + b[:32])
        np.testing.assert_array_equal((x[:32] - y[lo:hi]).get(), a[:32] - b[lo:hi])
    x2, y2 = x.reshape(8, 8), y.reshape(8, 8)  # the same memory, another shape
    np.testing.assert_array_equal((x2 * y2).get(), (a * b).reshape(8, 8))
    with pytest.raises(ValueError):
        x2 + y  # shapes (8, 8) and (64,) do not broadcast: the shapes kept are not mixed up
    z = x + y
    w = z * x  # a fresh result as an input
    np.testing.assert_array_equal(w.get(), (a + b) * a)
    np.testing.assert_array_equal(hipkit.add(z, y, out=z).get(), a + b + b)  # in place, cached output
    hipkit.add(x[1:33], x[:32], out=x[:32])  # partial overlap: the Python path, as if the inputs were copied first
    want = a.copy()
    want[:32] = a[1:33] + a[:32]
    np.testing.assert_array_equal(x.get(), want)


@pytest.mark.parametrize("devices", [
    pytest.param((0, 1, 0, 1), marks=pytest.mark.needs_gpu(2), id="two-gpus"),
    pytest.param(("gpu", "cpu", "gpu", "cpu"), marks=pytest.mark.needs_gpu, id="gpu-and-cpu"),
])
def test_ops_on_each_device_in_turn(rng, devices):
    """Built-in kernels are launched through a per-device function table on
    NVIDIA: using two devices in turn must launch each on its own (and the fast
    path must not take an array of one device for one of the other)."""
    a = rng.standard_normal(1001).astype(np.float32)
    for device in devices:
        with hipkit.Device(device):
            x = hipkit.asarray(a)
            z = hipkit.full(a.shape, 2.0, np.float32)
            assert x.device == hipkit.Device(device)
            np.testing.assert_array_equal((x + x).get(), a + a)
            np.testing.assert_array_equal((x * z).get(), a * 2)
            np.testing.assert_allclose(hipkit.exp(x).get(), np.exp(a), rtol=2e-6)
            np.testing.assert_array_equal(hipkit.arange(10, dtype=np.int64).get(), np.arange(10))


LAUNCH_API_SCRIPT = textwrap.dedent("""
    import numpy as np
    import hipkit
    rng = np.random.default_rng(5)
    a = rng.standard_normal((37, 42)).astype(np.float64)
    b = rng.standard_normal((37, 42)).astype(np.float64)
    x, y = hipkit.asarray(a), hipkit.asarray(b)
    checks = [
        ((x + y).get(), a + b),                                # the C fast path
        (hipkit.full((5, 3), 7, np.int32).get(), np.full((5, 3), 7, np.int32)),  # fill
        (hipkit.arange(100, dtype=np.int64).get(), np.arange(100)),               # iota
        ((x[:, ::2] * y[:, 1::2]).get(), a[:, ::2] * b[:, 1::2]),                 # strided elementwise
        (hipkit.maximum(x, 0.5).get(), np.maximum(a, 0.5)),                       # a host scalar
        ((x > y).get(), a > b),
    ]
    for got, want in checks:
        np.testing.assert_array_equal(got, want)
    print("ok", len(checks))
""")


@pytest.mark.needs_gpu
@pytest.mark.parametrize("api", ["default", "runtime"])
def test_both_launch_paths_give_the_same_results(api):
    """HIPKIT_LAUNCH_API=runtime (read once per process) launches the built-in
    kernels with the runtime's <<<>>> instead of the driver's cuLaunchKernel
    (GPU launches: the child runs on the first GPU)."""
    env = dict(os.environ, HIPKIT_DEVICE="gpu")
    env.pop("HIPKIT_LAUNCH_API", None)
    if api == "runtime":
        env["HIPKIT_LAUNCH_API"] = "runtime"
    done = subprocess.run([sys.executable, "-c", LAUNCH_API_SCRIPT], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "6"]
