"""The native fast path of the elementwise binary ops (hipkit._launch.fast_binary):
hipkit.add/subtract/multiply/divide/floor_divide and the operators + - * / //
take same-shape, same-dtype contiguous arrays to hk_binary in C, a new output
included. It must give what the Python path gives, build arrays that behave
like any other (attributes, views, lifetime, memory returned to the pool), and
hand every other case to the Python path unchanged."""
import gc
import inspect
import operator

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


@pytest.mark.gpu
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


@pytest.mark.gpu
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


@pytest.mark.gpu
def test_fast_results_give_their_memory_back():
    x = hipkit.ones(1 << 20, np.float32)
    hipkit.Device(0).synchronize()
    before = hipkit.pool_stats()["bytes_in_use"]
    for _ in range(50):
        z = x + x
    del z
    gc.collect()
    hipkit.Device(0).synchronize()
    assert hipkit.pool_stats()["bytes_in_use"] == before


@pytest.mark.gpu
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
