"""The C path of the elementwise ops (hipkit._native.ufunc, bindings/python/native/elementwise.c) and of
basic indexing (native/array.c). Every op of the op table with arity 1 or 2, as a function and as an
operator (forward, reflected, in place), does the common calls in C completely: hipkit arrays of any
layout (views, negative strides, broadcasting), Python scalars (NEP 50 weak scalars), mixed dtypes
(promoted, cast through a temporary), a new output or a fitting out=. It must give NumPy's values and
dtypes, build arrays that behave like any other, and hand every other case to the Python path
(_native.fallback_count() counts those), which gives the same result or NumPy's error."""
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
from hipkit import _native


class in_c:
    """Asserts that the calls in the block were all done in C (none handed to Python)."""

    def __enter__(self):
        self.before = _native.fallback_count()

    def __exit__(self, kind, *rest):
        if kind is None:
            assert _native.fallback_count() == self.before, "a common call took the Python path"
        return False


class handed_on:
    """Asserts that the block handed at least one call to the Python path."""

    def __enter__(self):
        self.before = _native.fallback_count()

    def __exit__(self, kind, *rest):
        if kind is None:
            assert _native.fallback_count() > self.before, "expected the Python path"
        return False


def test_the_c_callables_look_like_functions():
    assert hipkit.add.__name__ == "add"
    assert "elementwise" in hipkit.add.__doc__
    assert str(inspect.signature(hipkit.add)) == "(x1, x2, /, out=None, *, stream=None)"
    assert str(inspect.signature(hipkit.sqrt)) == "(x, /, out=None, *, stream=None)"
    assert str(inspect.signature(hipkit.ndarray.__add__)) == "(self, other)"
    assert "add" in repr(hipkit.add)


def _random(rng, dtype, shape):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    lo = 0 if np.dtype(dtype).kind == "u" else -100
    values = rng.integers(lo, 100, shape).astype(dtype)
    values[values == 0] = 7  # division by zero is its own test elsewhere
    return values


def _same(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got.get(), want, rtol=2e-6 if want.dtype == np.float32 else 1e-12, equal_nan=True)


BINARY = [("add", operator.add, operator.iadd), ("subtract", operator.sub, operator.isub),
          ("multiply", operator.mul, operator.imul), ("divide", operator.truediv, operator.itruediv),
          ("floor_divide", operator.floordiv, operator.ifloordiv), ("remainder", operator.mod, operator.imod),
          ("maximum", None, None), ("minimum", None, None), ("arctan2", None, None),
          ("equal", operator.eq, None), ("less", operator.lt, None), ("greater_equal", operator.ge, None),
          ("bitwise_and", operator.and_, operator.iand), ("left_shift", operator.lshift, None)]
NUMERIC = ("float32", "float64", "int32", "int64", "uint8", "int8", "uint32", "uint64")


def _dtypes_of(name):
    if name == "arctan2":
        return ("float32", "float64")
    if name in ("bitwise_and", "left_shift"):
        return ("int32", "int64", "uint8", "uint64")
    return NUMERIC


@pytest.mark.parametrize("name, op, iop", BINARY)
@pytest.mark.parametrize("shape", [(), (1,), (1023,), (37, 41), (2, 3, 5, 7)])
def test_same_shape_arrays_new_outputs_out_and_in_place(rng, name, op, iop, shape):
    np_op = getattr(np, name)
    for dtype in _dtypes_of(name):
        a, b = _random(rng, dtype, shape), _random(rng, dtype, shape)
        if name == "left_shift":
            b = b % 8
        x, y = hipkit.asarray(a), hipkit.asarray(b)
        want = np_op(a, b)
        with in_c():
            got = [getattr(hipkit, name)(x, y)] + ([op(x, y)] if op else [])
            z = hipkit.empty(shape, want.dtype)
            assert getattr(hipkit, name)(x, y, out=z) is z
        for g in got + [z]:
            _same(g, want)
        assert got[0].strides == want.strides and got[0].flags["C_CONTIGUOUS"] and got[0].base is None
        if iop and want.dtype == a.dtype:
            w = hipkit.asarray(a)
            w_before = w
            with in_c():
                w = iop(w, y)
            assert w is w_before
            _same(w, want)


SCALARS = [2, -3, 0.5, -1.25, True, False, 7]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float32",
                                   "float64"])
@pytest.mark.parametrize("name, op", [("add", operator.add), ("multiply", operator.mul),
                                      ("subtract", operator.sub), ("divide", operator.truediv),
                                      ("greater", operator.gt), ("equal", operator.eq),
                                      ("maximum", None), ("power", operator.pow)])
def test_python_scalars_are_weak_on_either_side(rng, dtype, name, op):
    a = _random(rng, dtype, (5, 7))
    x = hipkit.asarray(a)
    np_op = getattr(np, name)
    for s in SCALARS:
        if dtype == "bool" and name == "subtract" and type(s) is bool:
            continue  # NumPy refuses bool - bool (tested in test_ops)
        if np.dtype(dtype).kind == "u" and type(s) is int and s < 0:
            continue  # out of range for unsigned: OverflowError, below
        if name == "power" and np.dtype(dtype).kind in "biu" and type(s) is not float:
            continue  # integers to negative integer powers: ValueError (test_ops); the random data has them
        for left in (True, False):
            with np.errstate(all="ignore"):
                want = np.asarray(np_op(s, a) if left else np_op(a, s))
            with in_c():
                if op is not None:
                    got = op(s, x) if left else op(x, s)
                else:
                    got = getattr(hipkit, name)(s, x) if left else getattr(hipkit, name)(x, s)
            _same(got, want)


def test_views_broadcasting_and_mixed_dtypes_are_done_in_c(rng):
    a = rng.standard_normal((6, 8)).astype(np.float32)
    i = rng.integers(-50, 50, (6, 8)).astype(np.int32)
    x, k = hipkit.asarray(a), hipkit.asarray(i)
    cases = [
        (lambda: x[:, ::2] + x[:, 1::2], a[:, ::2] + a[:, 1::2]),
        (lambda: x[1:] - x[:-1], a[1:] - a[:-1]),
        (lambda: x[::-1, ::-3] * 2.0, a[::-1, ::-3] * np.float32(2.0)),
        (lambda: x.T + x.T, a.T + a.T),
        (lambda: x + x[0], a + a[0]),
        (lambda: x[:, :1] * x[:1, :], a[:, :1] * a[:1, :]),
        (lambda: x[None, :, 3] + x[:, None, 3], a[None, :, 3] + a[:, None, 3]),
        (lambda: x + k, a + i),  # float32 + int32: float64, both cast
        (lambda: k * 1.5, i * 1.5),  # int32 with a Python float: float64
        (lambda: k / 4, i / 4),  # true division of integers: float64
        (lambda: k > 0.5, i > 0.5),
        (lambda: hipkit.sqrt(x[::2]), np.sqrt(a[::2])),
        (lambda: hipkit.exp(x.T), np.exp(a.T)),
        (lambda: -x[:, ::-1], -a[:, ::-1]),
        (lambda: abs(k[::3]), abs(i[::3])),
        (lambda: hipkit.sqrt(k), np.sqrt(i)),  # int32 -> float64 for the math functions
        (lambda: hipkit.negative(k.astype(np.uint8)), np.negative(i.astype(np.uint8))),
    ]
    for compute, want in cases:
        with np.errstate(all="ignore"):
            want = np.asarray(want)
        with in_c():
            got = compute()
        _same(got, want)


def test_out_as_a_view_and_in_place_on_views(rng):
    a = rng.standard_normal((6, 8)).astype(np.float64)
    x = hipkit.asarray(a)
    z = hipkit.zeros((8, 6), np.float64)
    with in_c():
        hipkit.multiply(x.T, 3.0, out=z)  # a transposed input, a fresh out
        x[:, ::2] += 1.0  # in place on a strided view
        hipkit.add(x[::2], x[::2], out=x[::2])  # the same view in and out
    np.testing.assert_array_equal(z.get(), a.T * 3.0)
    want = a.copy()
    want[:, ::2] += 1.0
    want[::2] += want[::2]
    np.testing.assert_array_equal(x.get(), want)


def test_other_cases_take_the_python_path_and_give_the_same(rng):
    a = rng.standard_normal((6, 8)).astype(np.float32)
    x = hipkit.asarray(a)
    h = hipkit.asarray(a.astype(np.float16))
    with handed_on():
        np.testing.assert_array_equal((x + np.float32(2.5)).get(), a + np.float32(2.5))  # a NumPy scalar
    with handed_on():
        np.testing.assert_array_equal((h + 1.0).get(), a.astype(np.float16) + 1.0)  # a float16 scalar
    with handed_on():
        with pytest.raises(OverflowError):
            hipkit.asarray(np.arange(3, dtype=np.int8)) + 300  # out of int8's range, as NumPy 2
    with handed_on():
        with pytest.raises(TypeError):
            x + np.ones((6, 8), np.float32)  # implicit host conversion is refused
    with handed_on():
        with pytest.raises(ValueError):
            hipkit.add(x, x, out=hipkit.empty((5, 8), np.float32))  # a wrong out shape
    with handed_on():
        with pytest.raises(ValueError):
            x + x[:5]  # shapes that do not broadcast
    with handed_on():
        z = hipkit.zeros((6, 8), np.float64)
        hipkit.add(x, x, out=z)  # out of another dtype: cast into it
        np.testing.assert_array_equal(z.get(), (a + a).astype(np.float64))
    with handed_on():
        y = hipkit.asarray(a)
        hipkit.add(y[1:], y[:-1], out=y[:-1])  # partial overlap: as if the inputs were copied first
        want = a.copy()
        want[:-1] = a[1:] + a[:-1]
        np.testing.assert_array_equal(y.get(), want)
    s = hipkit.Stream()
    k = hipkit.asarray(np.arange(48, dtype=np.int32).reshape(6, 8))
    with handed_on():
        np.testing.assert_array_equal(hipkit.add(k, 0.5, stream=s).get(stream=s), np.arange(48).reshape(6, 8) + 0.5)
    with in_c():
        on_stream = hipkit.add(x, x, stream=s)  # no cast: C
    np.testing.assert_array_equal(on_stream.get(stream=s), a + a)
    assert (x + "a" if False else True)
    with pytest.raises(TypeError):
        x + "a"  # an operator's NotImplemented, then Python's TypeError


def test_a_result_made_in_c_behaves_like_any_array(rng):
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    z = hipkit.asarray(a) + hipkit.asarray(b)
    assert z.ptr != 0 and z.ptr == z._hk_address and type(z) is hipkit.ndarray
    view = z[10:20:2]
    np.testing.assert_array_equal(view.get(), (a + b)[10:20:2])
    del z
    gc.collect()
    np.testing.assert_array_equal(view.get(), (a + b)[10:20:2])  # the view keeps the memory
    s = hipkit.sum(hipkit.asarray(a) * hipkit.asarray(b))  # through the cffi path (_data)
    assert abs(float(s) - float(np.dot(a.astype(np.float64), b))) < 1e-3
    np.testing.assert_array_equal((hipkit.asarray(a) + hipkit.asarray(b)).reshape(10, 100).get(),
                                  (a + b).reshape(10, 100))


def test_results_and_temporaries_give_their_memory_back():
    x = hipkit.ones(1 << 20, np.float32)
    k = hipkit.ones(1 << 10, np.int32)
    hipkit.get_device().synchronize()
    before = hipkit.pool_stats()["bytes_in_use"]
    for _ in range(50):
        z = x + x
        w = k * 0.5  # a cast through a temporary
        v = x[::2] + 1.0
    del z, w, v
    gc.collect()
    hipkit.get_device().synchronize()
    assert hipkit.pool_stats()["bytes_in_use"] == before


# ---------------------------------------------------------------- basic indexing in C

KEYS = [0, -1, 3, slice(None), slice(1, None), slice(None, -1), slice(None, None, 2), slice(None, None, -1),
        slice(5, 1, -2), slice(7, 7), slice(100, 200), (1, 2), (slice(1, 4), 2), (Ellipsis, 1), (1, Ellipsis),
        (None, 0), (slice(None), None), (Ellipsis, None, slice(None, None, -1)), (), Ellipsis, (0, 0, 0),
        (-2, slice(None, None, 3), None, 1)]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_basic_indexing_gives_numpy_views(rng, key):
    a = rng.standard_normal((6, 7, 5)).astype(np.float32)
    x = hipkit.asarray(a)
    want = a[key]
    got = x[key]
    assert isinstance(got, hipkit.ndarray) and got.shape == np.shape(want)
    assert got.base is x and got.dtype == a.dtype
    np.testing.assert_array_equal(got.get(), want)
    if got.size > 1:
        assert got.strides == want.strides or 0 in got.shape
    assert got.flags["C_CONTIGUOUS"] == np.asarray(want).flags.c_contiguous or got.size <= 1


@pytest.mark.parametrize("key, error", [(6, IndexError), (-7, IndexError), ((0, 0, 0, 0), IndexError),
                                        ((Ellipsis, Ellipsis), IndexError), (1.5, IndexError),
                                        (slice(None, None, 0), ValueError), ("a", IndexError)], ids=repr)
def test_bad_basic_indices_raise_numpys_errors(key, error):
    a = np.zeros((6, 7, 5), np.float32)
    x = hipkit.asarray(a)
    with pytest.raises(error):
        a[key]
    with pytest.raises(error):
        x[key]


def test_views_of_views_keep_the_owner_and_the_transpose_is_a_view(rng):
    a = rng.standard_normal((4, 6)).astype(np.float64)
    x = hipkit.asarray(a)
    v = x[1:, ::2][::-1]
    assert v.base is x and v._offset == 3 * 6 and v.strides == a[1:, ::2][::-1].strides
    np.testing.assert_array_equal(v.get(), a[1:, ::2][::-1])
    t = x.T
    assert t.base is x and t.shape == (6, 4) and t.strides == a.T.strides
    np.testing.assert_array_equal(t.get(), a.T)
    assert x.T.T.shape == x.shape
    e = hipkit.zeros((0, 3))
    assert e[1:].shape == (0, 3) and e.T.shape == (3, 0)
    with pytest.raises(AttributeError):
        x.shape = (6, 4)  # metadata is read-only: reshape makes a view


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
        ((x + y).get(), a + b),                                # the C path
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


# ---------------------------------------------------------------- reductions in C

REDUCTIONS = ["sum", "prod", "mean", "min", "max", "any", "all", "argmin", "argmax"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "int64", "uint64", "float32", "float64"])
def test_reductions_over_axes_are_done_in_c(rng, name, dtype):
    a = _random(rng, dtype, (4, 5, 6))
    if name == "prod" and np.dtype(dtype).kind != "b":
        a = (a % 3 + 1).astype(dtype)  # small factors: no overflow differences to discuss
    x = hipkit.asarray(a)
    one_axis = name in ("argmin", "argmax")
    axes = [None, 0, 1, -1, 2] + ([] if one_axis else [(0, 2), (2, 0, 1), (-1, 0), ()])
    for axis in axes:
        for keepdims in (False, True):
            want = np.asarray(getattr(np, name)(a, axis=axis, keepdims=keepdims))
            with in_c():
                got = getattr(hipkit, name)(x, axis=axis, keepdims=keepdims)
                method = getattr(x, name)(axis, keepdims=keepdims)  # the method, axis positional
                view = getattr(hipkit, name)(x[:, ::-2].T, axis=axis, keepdims=keepdims)  # a strided view
            want_view = np.asarray(getattr(np, name)(a[:, ::-2].T, axis=axis, keepdims=keepdims))
            for g, w in ((got, want), (method, want), (view, want_view)):
                assert g.shape == w.shape and g.dtype == w.dtype, (name, dtype, axis, keepdims)
                tol = 1e-4 if dtype == "float32" else 1e-12  # float32 sums near 0: an absolute bound too
                np.testing.assert_allclose(g.get(), w, rtol=tol, atol=tol)


def test_reductions_hand_the_rare_calls_to_python_and_give_the_same(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    x = hipkit.asarray(a)
    with handed_on():
        np.testing.assert_allclose(x.sum(dtype=np.float64).get(), a.sum(dtype=np.float64))  # a dtype
    with handed_on():
        out = hipkit.empty(4, np.float32)
        assert hipkit.sum(x, axis=0, out=out) is out  # an out
        np.testing.assert_allclose(out.get(), a.sum(axis=0), rtol=1e-6)
    with handed_on():
        with pytest.raises(ValueError, match="zero-size"):
            hipkit.max(hipkit.empty((0, 3)), axis=0)
    with handed_on():
        with pytest.raises(np.exceptions.AxisError):
            x.sum(axis=2)
    with handed_on():
        with pytest.raises(ValueError):
            x.sum(axis=(0, 0))  # a repeated axis
    with handed_on():
        assert float(hipkit.sum(2.5)) == 2.5  # a Python scalar: a 0-d array first
    s = hipkit.Stream()
    with in_c():
        on_stream = x.sum(axis=1, stream=s)
    np.testing.assert_allclose(on_stream.get(stream=s), a.sum(axis=1), rtol=1e-6)
    with in_c():
        assert hipkit.sum(hipkit.empty((0, 3))).get() == 0.0 and hipkit.prod(hipkit.empty(0)).get() == 1.0


def test_where_with_arrays_and_python_scalars_is_done_in_c(rng):
    a = rng.standard_normal((5, 6)).astype(np.float32)
    b = rng.integers(-5, 5, (5, 6)).astype(np.int64)
    c = a > 0
    x, y, k = hipkit.asarray(a), hipkit.asarray(b), hipkit.asarray(c)
    cases = [
        (lambda: hipkit.where(k, x, 0.0), np.where(c, a, np.float32(0.0))),
        (lambda: hipkit.where(k, 1, x), np.where(c, np.float32(1), a)),
        (lambda: hipkit.where(k, x, y), np.where(c, a, b)),  # float32 with int64: float64
        (lambda: hipkit.where(k[0], x, x[::-1]), np.where(c[0], a, a[::-1])),  # a broadcast condition
        (lambda: hipkit.where(k.T, y.T, -1), np.where(c.T, b.T, -1)),
        (lambda: hipkit.where(y, x, 2.5), np.where(b, a, np.float32(2.5))),  # an int condition, cast to bool
    ]
    for compute, want in cases:
        with in_c():
            got = compute()
        _same(got, np.asarray(want))
    z = hipkit.empty((5, 6), np.float32)
    with in_c():
        assert hipkit.where(k, x, 0.0, out=z) is z
    np.testing.assert_array_equal(z.get(), np.where(c, a, 0))
    with handed_on():
        np.testing.assert_array_equal(hipkit.where(k)[0].get(), np.where(c)[0])  # one argument: nonzero
    with handed_on():
        np.testing.assert_array_equal(hipkit.where(True, x, 0.0).get(), a)  # a scalar condition


# ---------------------------------------------------------------- creation in C

@pytest.mark.parametrize("dtype", [None, np.float32, "int32", np.dtype(np.uint8), bool, int, float, "float64",
                                   np.int64, "uint64", np.int8])
@pytest.mark.parametrize("shape", [0, 7, (3, 4), (), (2, 0, 3), (1, 1, 1, 1, 1, 1, 1, 5)])
def test_empty_zeros_ones_full_are_done_in_c(shape, dtype):
    with in_c():
        made = [hipkit.zeros(shape, dtype), hipkit.ones(shape, dtype=dtype), hipkit.empty(shape, dtype),
                hipkit.full(shape, 1, dtype), hipkit.full(shape, True, dtype=dtype)]
    wants = [np.zeros(shape, dtype), np.ones(shape, dtype), np.empty(shape, dtype), np.full(shape, 1, dtype),
             np.full(shape, True, dtype)]
    for got, want in zip(made, wants):
        assert got.shape == want.shape and got.dtype == want.dtype and got.flags["C_CONTIGUOUS"]
    for got, want in zip(made[:2] + made[3:], wants[:2] + wants[3:]):
        np.testing.assert_array_equal(got.get(), want)
    with in_c():
        f = hipkit.full(shape, 2.5)  # dtype from the fill value, as NumPy
        g = hipkit.full(shape, -3)
        h = hipkit.full(shape, False)
    for got, want in ((f, np.full(shape, 2.5)), (g, np.full(shape, -3)), (h, np.full(shape, False))):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)


def test_creation_hands_the_rare_calls_to_python_and_gives_the_same():
    with handed_on():
        np.testing.assert_array_equal(hipkit.ones(3, np.float16).get(), np.ones(3, np.float16))
    with handed_on():
        np.testing.assert_array_equal(hipkit.full(4, 1.5, np.int32).get(), np.full(4, 1.5, np.int32))  # a cast
    with handed_on():
        np.testing.assert_array_equal(hipkit.full(2, np.float32(0.25)).get(), np.full(2, np.float32(0.25)))
    with handed_on():
        assert hipkit.zeros(3, device="cpu").device.is_cpu
    with handed_on():
        with pytest.raises(ValueError):
            hipkit.zeros(-1)
    with handed_on():
        with pytest.raises(ValueError):
            hipkit.empty((2**40, 2**40))
    with handed_on():
        with pytest.raises(OverflowError):
            hipkit.full(3, 300, np.int8)
    with handed_on():
        with pytest.raises(TypeError):
            hipkit.zeros(3, "U3")
    with handed_on():
        assert hipkit.zeros([2, 3]).shape == (2, 3)  # a list shape


# ---------------------------------------------------------------- matmul in C

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((64, 64), (64, 64)), ((3, 5), (5, 2)), ((5,), (5, 4)), ((3, 5), (5,)),
                                    ((7,), (7,)), ((2, 3, 4), (4, 5)), ((4, 5), (3, 5, 2)), ((2, 1, 3, 4), (5, 4, 6)),
                                    ((1, 0), (0, 3)), ((0, 4), (4, 2))], ids=str)
def test_matmul_and_the_operator_are_done_in_c(rng, dtype, shapes):
    a = rng.standard_normal(shapes[0]).astype(dtype)
    b = rng.standard_normal(shapes[1]).astype(dtype)
    x, y = hipkit.asarray(a), hipkit.asarray(b)
    want = a @ b
    with in_c():
        got = [hipkit.matmul(x, y), x @ y]
        if a.ndim == 2 and b.ndim == 2:
            got.append(hipkit.matmul(x.T.T, y[::1]))  # views
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for g in got:
        assert g.shape == np.shape(want) and g.dtype == want.dtype
        np.testing.assert_allclose(g.get(), want, rtol=tol, atol=tol * 10)


def test_matmul_hands_the_rare_calls_to_python_and_gives_the_same(rng):
    a = rng.standard_normal((4, 4)).astype(np.float32)
    x = hipkit.asarray(a)
    i = hipkit.asarray(np.arange(16, dtype=np.int64).reshape(4, 4))
    with handed_on():
        np.testing.assert_array_equal((i @ i).get(), np.arange(16).reshape(4, 4) @ np.arange(16).reshape(4, 4))
    with handed_on():
        np.testing.assert_allclose((x @ x.astype(np.float64)).get(), a @ a.astype(np.float64), rtol=1e-6)
    with handed_on():
        out = hipkit.empty((4, 4), np.float32)
        assert hipkit.matmul(x, x, out=out) is out
    with handed_on():
        np.testing.assert_allclose(hipkit.matmul(x, x, engine="own").get(), a @ a, rtol=1e-5)
    with handed_on():
        with pytest.raises(ValueError, match="mismatch"):
            x @ hipkit.ones((3, 2), np.float32)
    with handed_on():
        with pytest.raises(ValueError):
            x @ hipkit.asarray(np.float32(2))  # a 0-d operand


# ---------------------------------------------------------------- scans in C

@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "int64", "uint64", "float32", "float64"])
def test_scans_are_done_in_c(rng, name, dtype):
    a = _random(rng, dtype, (4, 6))
    if name == "cumprod" and np.dtype(dtype).kind != "b":
        a = (a % 2 + 1).astype(dtype)
    x = hipkit.asarray(a)
    np_f = getattr(np, name)
    cases = [(lambda: getattr(hipkit, name)(x), np_f(a)), (lambda: getattr(x, name)(0), np_f(a, 0)),
             (lambda: getattr(hipkit, name)(x, axis=-1), np_f(a, axis=-1)),
             (lambda: getattr(hipkit, name)(x[1], axis=None), np_f(a[1])),
             (lambda: getattr(hipkit, name)(x[:, ::-2], axis=1), np_f(a[:, ::-2], axis=1)),
             (lambda: getattr(hipkit, name)(x[0, 0]), np_f(a[0, 0])),
             (lambda: getattr(hipkit, name)(x[0, 0], axis=0), np_f(a[0, 0], axis=0))]
    for compute, want in cases:
        with in_c():
            got = compute()
        assert got.shape == want.shape and got.dtype == want.dtype
        # a float sum near 0 carries the rounding of its terms (the GPU adds in another order than NumPy)
        atol = 1e-6 * float(np.abs(a).sum()) if np.dtype(dtype).kind == "f" and name == "cumsum" else 0
        np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=atol)


def test_scans_hand_the_rare_calls_to_python_and_give_the_same(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x = hipkit.asarray(a)
    with handed_on():
        np.testing.assert_allclose(hipkit.cumsum(x[:, ::2]).get(), np.cumsum(a[:, ::2]), rtol=1e-5)  # flattened view
    with handed_on():
        np.testing.assert_allclose(hipkit.cumsum(x, dtype=np.float64).get(), np.cumsum(a, dtype=np.float64))
    with handed_on():
        with pytest.raises(np.exceptions.AxisError):
            hipkit.cumsum(x, axis=2)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
                                   "float32", "float64"])
def test_item_float_int_of_one_element_read_in_c(rng, dtype):
    a = _random(rng, dtype, (3, 2))
    if np.dtype(dtype).kind == "u":
        a[1, 1] = np.iinfo(dtype).max  # the top of the range survives
    x = hipkit.asarray(a)
    for got, want in ((x[1, 1].item(), a[1, 1].item()), (x[1:2, 1:].item(), a[1:2, 1:].item()),
                      (x.item(3), a.item(3)), (x.item(2, 0), a.item(2, 0))):
        assert type(got) is type(want) and (got == want or (got != got and want != want))
    assert float(x[0, 1]) == float(a[0, 1]) and int(x[2, 0]) == int(a[2, 0])
    with pytest.raises(ValueError, match="size 1"):
        x.item()


def test_an_int64_index_array_gathers_in_c(rng):
    a = rng.standard_normal((50, 3)).astype(np.float32)
    x = hipkit.asarray(a)
    for i in (rng.integers(-50, 50, 17), rng.integers(0, 50, (4, 5)), np.array([], np.int64), np.array(7)):
        idx = hipkit.asarray(i.astype(np.int64))
        want = a[i]
        with in_c():
            got = x[idx]
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)
    with handed_on():
        with pytest.raises(IndexError, match="out of bounds"):
            x[hipkit.asarray(np.array([3, 50]))]  # checked: IndexError, as NumPy
    with handed_on():
        np.testing.assert_array_equal(x[hipkit.asarray(np.array([1, 2], np.int32))].get(), a[[1, 2]])  # int32


def test_boolean_masks_select_on_the_device(rng):
    a = rng.standard_normal((6, 7)).astype(np.float32)
    x = hipkit.asarray(a)
    for m in (a > 0, a > 10, a > -10, (a > 0)[:, ::-1]):
        k = hipkit.asarray(np.ascontiguousarray(m))
        with in_c():
            got = x[k]
        np.testing.assert_array_equal(got.get(), a[m])
        assert got.dtype == a.dtype and got.shape == a[m].shape
        np.testing.assert_array_equal(x.T[k.T].get(), a.T[m.T])  # views of both
        np.testing.assert_array_equal(x[::2][k[::2]].get(), a[::2][m[::2]])
        np.testing.assert_array_equal(x[np.ascontiguousarray(m)].get(), a[m])  # a host mask: the Python path
    for v in (a, a[:, 0], a > 0.3, np.zeros((3, 4), np.int64)):
        got = hipkit.nonzero(hipkit.asarray(np.ascontiguousarray(v)))
        want = np.nonzero(v)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == np.int64
            np.testing.assert_array_equal(g.get(), w)
    np.testing.assert_array_equal(hipkit.flatnonzero(hipkit.asarray(a > 0)).get(), np.flatnonzero(a > 0))
    with pytest.raises(IndexError):
        x[hipkit.asarray(np.ones((6, 6), bool))]  # a mask of another shape, as NumPy


# ---------------------------------------------------------------- reshape, transpose, copy, astype, setitem in C

def test_reshape_ravel_transpose_copy_astype_in_c(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x = hipkit.asarray(a)
    with in_c():
        views = [(x.reshape(3, 8), a.reshape(3, 8)), (x.reshape((2, -1, 3)), a.reshape((2, -1, 3))),
                 (x.reshape(-1), a.reshape(-1)), (x.ravel(), a.ravel()), (x.transpose(), a.transpose()),
                 (x.transpose(1, 0), a.transpose(1, 0)), (x.transpose((-1, 0)), a.transpose((-1, 0))),
                 (x[1:3].reshape(12), a[1:3].reshape(12)), (x.reshape(24, 1, 1)[::-1], a.reshape(24, 1, 1)[::-1])]
    for got, want in views:
        assert got.shape == want.shape and got.strides == want.strides and got.base is x
        np.testing.assert_array_equal(got.get(), want)
    with in_c():
        made = [(x.copy(), a.copy()), (x.T.copy(), a.T.copy()), (x.astype(np.float64), a.astype(np.float64)),
                (x.astype("int32"), a.astype("int32")), (x[:, ::-2].astype(np.float16), a[:, ::-2].astype(np.float16)),
                (x.astype(np.float32, copy=False), a)]
    for got, want in made:
        assert got.shape == want.shape and got.dtype == want.dtype and got.flags["C_CONTIGUOUS"]
        np.testing.assert_array_equal(got.get(), want)
    assert x.astype(np.float32, copy=False) is x and x.astype(np.float32) is not x
    with handed_on():
        np.testing.assert_array_equal(x.T.reshape(24).get(), a.T.reshape(24))  # a strided reshape: a copy
    with handed_on():
        with pytest.raises(ValueError):
            x.reshape(5, 5)
    with handed_on():
        with pytest.raises(ValueError):
            x.transpose(0, 0)
    with handed_on():
        with pytest.raises(TypeError):
            x.ravel(1)
    with handed_on():
        np.testing.assert_array_equal(x.T.ravel().get(), a.T.ravel())


def test_assignment_into_basic_views_in_c(rng):
    a = rng.standard_normal((5, 6)).astype(np.float64)
    x = hipkit.asarray(a)
    b = rng.standard_normal(6)
    y = hipkit.asarray(b)
    i = hipkit.asarray(np.arange(30, dtype=np.int32).reshape(5, 6))
    want, iwant = a.copy(), np.arange(30, dtype=np.int32).reshape(5, 6)
    with in_c():
        x[1] = 2.5
        x[2:4, ::2] = -1
        x[0] = y  # an array, broadcast
        x[4] = y[::-1]
        x[:, 0] = True
        i[1:3] = x[1:3]  # converted: float64 into int32
        x[3] += 1.0  # the view assigned back to itself
    want[1] = 2.5
    want[2:4, ::2] = -1
    want[0] = b
    want[4] = b[::-1]
    want[:, 0] = True
    iwant[1:3] = want[1:3]
    want[3] += 1.0
    np.testing.assert_array_equal(x.get(), want)
    np.testing.assert_array_equal(i.get(), iwant)
    with handed_on():
        x[1:] = x[:-1]  # overlap: through a temporary, as NumPy
    want[1:] = want[:-1].copy()
    np.testing.assert_array_equal(x.get(), want)
    with handed_on():
        with pytest.raises(OverflowError):
            i[0] = 2**40
    with handed_on():
        i[0] = 1.75  # a float into an int array: cast by the Python path
    iwant[0] = 1.75
    np.testing.assert_array_equal(i.get(), iwant)
    with pytest.raises(ValueError, match="cannot delete"):
        del x[0]


def test_clip_with_both_bounds_is_done_in_c(rng):
    a = rng.standard_normal((5, 6)).astype(np.float32)
    i = rng.integers(-50, 50, (5, 6)).astype(np.int64)
    x, k = hipkit.asarray(a), hipkit.asarray(i)
    lo, hi = hipkit.asarray(a[0] - 0.5), hipkit.asarray(a[1] + 0.5)
    cases = [(lambda: hipkit.clip(x, -0.5, 0.5), np.clip(a, np.float32(-0.5), np.float32(0.5))),
             (lambda: x.clip(0, 1), np.clip(a, 0, 1)), (lambda: hipkit.clip(k, -10, 10), np.clip(i, -10, 10)),
             (lambda: hipkit.clip(x.T, lo[None, :5], hi[None, :5]),
              np.clip(a.T, a[0, None, :5] - np.float32(0.5), a[1, None, :5] + np.float32(0.5))),
             (lambda: hipkit.clip(k, 0.5, 20), np.clip(i, 0.5, 20))]  # int64 with float bounds: float64
    for compute, want in cases:
        with in_c():
            got = compute()
        _same(got, np.asarray(want))
    with handed_on():
        np.testing.assert_array_equal(hipkit.clip(x, None, 0.5).get(), np.clip(a, None, np.float32(0.5)))
    with handed_on():
        np.testing.assert_array_equal(hipkit.clip(x, max=0.25).get(), np.clip(a, max=np.float32(0.25)))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
                                   "float32", "float64", "longlong", "ulonglong"])
def test_asarray_of_numpy_arrays_copies_in_c(rng, dtype):
    for shape in [(), (0,), (7,), (3, 4), (2, 1, 3)]:
        a = _random(rng, dtype, shape)
        with in_c():
            x = hipkit.asarray(a)
            assert hipkit.asarray(x) is x
        assert x.shape == a.shape and x.dtype == a.dtype and x.flags["C_CONTIGUOUS"]
        np.testing.assert_array_equal(x.get(), a)
        a.flags.writeable = False
        with in_c():
            np.testing.assert_array_equal(hipkit.asarray(a).get(), a)  # read-only host data: fine to read


def test_asarray_hands_the_rare_calls_to_python_and_gives_the_same(rng):
    a = rng.standard_normal((4, 6))
    for obj, want in ((a[:, ::2], a[:, ::2]), (a.astype(">f8"), a), (a.astype(">i2"), a.astype(np.int16)),
                      (a.tolist(), a), (3.5, np.float64(3.5))):
        with handed_on():
            got = hipkit.asarray(obj)
        np.testing.assert_array_equal(got.get(), want)
    with handed_on():
        assert hipkit.asarray(a, dtype=np.float32).dtype == np.float32
    with handed_on():
        assert hipkit.asarray(a, device="cpu").device.is_cpu


def test_arange_of_python_ints_is_done_in_c():
    cases = [(5,), (0,), (-3,), (2, 9), (9, 2), (10, -7, -3), (-5, 5, 4), (0, 2**40, 2**38), (3, 4, 100),
             (-(2**62), 2**62, 2**61)]
    for args in cases:
        for dtype in (None, np.int64, np.int32, np.float32, np.float64, "float64"):
            if dtype in (np.int32,) and any(abs(v) > 2**31 for v in args):
                continue
            want = np.arange(*args, dtype=dtype)
            with in_c():
                got = hipkit.arange(*args, dtype=dtype) if dtype is not None else hipkit.arange(*args)
            assert got.shape == want.shape and got.dtype == want.dtype, (args, dtype)
            np.testing.assert_array_equal(got.get(), want)
    for args, kwargs in (((0.5, 3), {}), ((5,), {"dtype": np.uint8}), ((np.int64(4),), {}), ((1, 10, 2), {"device": "cpu"})):
        with handed_on():
            np.testing.assert_array_equal(hipkit.arange(*args, **kwargs).get(),
                                          np.arange(*args, **{k: v for k, v in kwargs.items() if k != "device"}))
    with handed_on():
        with pytest.raises(ValueError):
            hipkit.arange(1, 5, 0)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32",
                                   "float64"])
def test_sort_and_argsort_along_any_axis_in_c(rng, dtype):
    a = _random(rng, dtype, (5, 7, 4))
    if np.dtype(dtype).kind == "f":
        a[1, 2, 3] = np.nan
    x = hipkit.asarray(a)
    for axis in (-1, 0, 1, 2, -3):
        with in_c():
            s = hipkit.sort(x, axis=axis)
            i = x.argsort(axis)
            v = hipkit.sort(x[:, ::-2], axis, stable=True)
        np.testing.assert_array_equal(s.get(), np.sort(a, axis=axis, kind="stable"))
        np.testing.assert_array_equal(i.get(), np.argsort(a, axis=axis, kind="stable"))
        np.testing.assert_array_equal(v.get(), np.sort(a[:, ::-2], axis=axis, kind="stable"))
        assert i.dtype == np.int64 and s.dtype == a.dtype
    with handed_on():
        np.testing.assert_array_equal(hipkit.sort(x, axis=None).get(), np.sort(a, axis=None))
    with handed_on():
        np.testing.assert_array_equal(hipkit.sort(x, descending=True).get(), np.flip(np.sort(a), -1))
    with handed_on():
        with pytest.raises(np.exceptions.AxisError):
            hipkit.sort(x, axis=3)


def test_like_functions_of_an_array_here_take_the_c_path(rng):
    x = hipkit.asarray(rng.standard_normal((3, 4)).astype(np.float32))
    with in_c():
        z, o, e = hipkit.zeros_like(x), hipkit.ones_like(x, dtype=np.int32), hipkit.empty_like(x)
        f = hipkit.full_like(x, 2.5)
    assert z.dtype == np.float32 and o.dtype == np.int32 and e.shape == (3, 4)
    np.testing.assert_array_equal(f.get(), np.full((3, 4), 2.5, np.float32))


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_and_std_with_ddof_or_correction_in_c(rng, name):
    a = rng.standard_normal((6, 5)).astype(np.float64)
    x = hipkit.asarray(a)
    np_f = getattr(np, name)
    for axis in (None, 0, 1, (0, 1)):
        for kw, np_kw in (({}, {}), ({"ddof": 1}, {"ddof": 1}), ({"correction": 1}, {"ddof": 1}),
                          ({"correction": 2.0}, {"ddof": 2}), ({"keepdims": True}, {"keepdims": True})):
            with in_c():
                got = getattr(hipkit, name)(x, axis=axis, **kw)
            want = np.asarray(np_f(a, axis=axis, **np_kw))
            assert got.shape == want.shape
            np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    with handed_on():  # a fractional correction: the Python path, which scales the ddof=0 result
        got = getattr(hipkit, name)(x, correction=0.5)
    np.testing.assert_allclose(got.get(), np_f(a, ddof=0.5), rtol=1e-12)
    with handed_on():
        with pytest.raises(ValueError):
            getattr(hipkit, name)(x, ddof=1, correction=2)


def test_get_of_a_contiguous_array_in_c(rng):
    for dtype in ("bool", "int8", "uint64", "float16", "float32", "float64"):
        a = _random(rng, dtype, (3, 5))
        x = hipkit.asarray(a)
        with in_c():
            got = [x.get(), x[1:].get(), x[0, 0].get(), hipkit.empty((0, 3), dtype).get()]
        for g, w in zip(got, [a, a[1:], a[0, 0], np.empty((0, 3), dtype)]):
            assert type(g) is np.ndarray and g.shape == np.shape(w) and g.dtype == a.dtype and g.flags.writeable
            np.testing.assert_array_equal(g, w)
        with handed_on():
            np.testing.assert_array_equal(x.T.get(), a.T)  # strided: gathered first, in Python
        out = np.empty((3, 5), a.dtype)
        with handed_on():
            assert x.get(out=out) is out
        np.testing.assert_array_equal(out, a)


def test_concatenate_and_stack_of_one_dtype_in_c(rng):
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((2, 4)).astype(np.float32)
    c = rng.standard_normal((3, 5)).astype(np.float32)
    x, y, z = hipkit.asarray(a), hipkit.asarray(b), hipkit.asarray(c)
    cases = [(lambda: hipkit.concatenate([x, y]), np.concatenate([a, b])),
             (lambda: hipkit.concatenate((x, z), axis=1), np.concatenate((a, c), axis=1)),
             (lambda: hipkit.concatenate([x.T, z.T[::-1]], -2), np.concatenate([a.T, c.T[::-1]], -2)),
             (lambda: hipkit.concatenate([x]), a), (lambda: hipkit.stack([x, x[::-1]], axis=1), np.stack([a, a[::-1]], 1)),
             (lambda: hipkit.concatenate([x[:0], y]), np.concatenate([a[:0], b]))]
    for compute, want in cases:
        with in_c():
            got = compute()
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want)
    with handed_on():
        got = hipkit.concatenate([x, y.astype(np.float64)])  # promotion: Python
    np.testing.assert_array_equal(got.get(), np.concatenate([a, b.astype(np.float64)]))
    with handed_on():
        np.testing.assert_array_equal(hipkit.concatenate([x, y], axis=None).get(), np.concatenate([a, b], axis=None))
    with handed_on():
        with pytest.raises(ValueError, match="must match exactly"):
            hipkit.concatenate([x, z])


def test_masked_assignment_of_a_scalar_in_c(rng):
    a = rng.standard_normal((5, 6)).astype(np.float32)
    i = rng.integers(-9, 9, (5, 6)).astype(np.int8)
    x, k = hipkit.asarray(a), hipkit.asarray(i)
    want, iwant = a.copy(), i.copy()
    with in_c():
        x[x < 0] = 0.0
        x[hipkit.asarray(a > 1.0)] = 2.5
        k[k > 3] = -1
        x.T[x.T > 0.5] = True
        k[hipkit.zeros((5, 6), bool)] = 7  # nothing selected
    want[a < 0] = 0.0
    want[a > 1.0] = 2.5
    iwant[i > 3] = -1
    want.T[want.T > 0.5] = True
    np.testing.assert_array_equal(x.get(), want)
    np.testing.assert_array_equal(k.get(), iwant)
    with handed_on():
        with pytest.raises(OverflowError):
            k[k > 0] = 300  # out of int8's range, as NumPy 2
    with handed_on():
        x[x > 1] = hipkit.asarray(np.float32(9))  # an array value: Python
    want[want > 1] = 9
    np.testing.assert_array_equal(x.get(), want)


def test_copy_deepcopy_and_pickle_make_real_copies(rng):
    import copy
    import pickle
    a = rng.standard_normal((3, 4)).astype(np.float32)
    x = hipkit.asarray(a)
    for y in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x)), copy.copy(x.T)):
        assert isinstance(y, hipkit.ndarray) and y.ptr != x.ptr and y.dtype == x.dtype
        np.testing.assert_array_equal(y.get(), a if y.shape == a.shape else a.T)
    z = copy.copy(x)
    z += 1.0
    np.testing.assert_array_equal(x.get(), a)  # the copy is its own memory


def test_assignment_through_an_int64_index_array_in_c(rng):
    a = rng.standard_normal((8, 3)).astype(np.float32)
    x = hipkit.asarray(a)
    want = a.copy()
    i = np.array([6, 0, -1, 3], np.int64)
    k = hipkit.asarray(i)
    v = rng.standard_normal((4, 3)).astype(np.float32)
    with in_c():
        x[k] = 1.5
        x[hipkit.asarray(np.array([2, 5]))] = hipkit.asarray(v[:2])
        x[hipkit.asarray(np.array([[1], [4]]))] = hipkit.asarray(v[0])  # broadcast over (2, 1, 3)
        x[k[:0]] = 3.0  # no indices: nothing written
    want[i] = 1.5
    want[[2, 5]] = v[:2]
    want[np.array([[1], [4]])] = v[0]
    np.testing.assert_array_equal(x.get(), want)
    with handed_on():
        with pytest.raises(IndexError):
            x[hipkit.asarray(np.array([0, 8]))] = 0.0
    np.testing.assert_array_equal(x.get(), want)  # nothing written by the refused call
    with handed_on():
        x[k] = hipkit.asarray(v.astype(np.float64))  # a cast: Python
    want[i] = v
    np.testing.assert_array_equal(x.get(), want)
