"""hipkit's NumPy-named functions against NumPy itself: every elementwise op,
reduction, scan, sort, matmul and take, across the ten dtypes and awkward
shapes (0-d, empty, 1, primes, non-contiguous and negative-stride views,
broadcasting), on fresh random data, with outputs poisoned where given."""
import math

import numpy as np
import pytest

import hipkit


ALL = ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"]
INTS = ["int8", "uint8", "int32", "uint32", "int64", "uint64"]
FLOATS = ["float16", "float32", "float64"]
NUMERIC = INTS + FLOATS


def data(rng, shape, dtype, special=True, low=None, high=None):
    """Random values of `dtype`: bools, integers over the whole range (or [low, high]), floats
    scaled normals with NaN, +-inf and -0.0 mixed in when `special`."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo = info.min if low is None else max(low, info.min)
        hi = info.max if high is None else min(high, info.max)
        return rng.integers(lo, hi, shape, dtype=dtype, endpoint=True)
    values = (rng.standard_normal(shape) * 10).astype(dtype)
    if low is not None:
        values = rng.uniform(low, high, shape).astype(dtype)
    if special and values.size >= 8:
        flat = values.reshape(-1)
        picks = rng.choice(flat.size, size=min(4, flat.size // 2), replace=False)
        for i, v in zip(picks, [np.nan, np.inf, -np.inf, -0.0]):
            flat[i] = v
    return values


def views(rng, host):
    """(name, numpy view, hipkit view of the same elements) for a 2-d or bigger host array."""
    dev = hipkit.asarray(host)
    out = [("contiguous", host, dev)]
    if host.ndim >= 1 and host.shape[0] > 1:
        out.append(("reversed", host[::-1], dev[::-1]))
    if host.ndim >= 2:
        out.append(("transposed", host.T, dev.T))
        out.append(("strided", host[::2, 1:], dev[::2, 1:]))
    return out


def check(got, expected, rtol=0.0, atol=0.0):
    """Same shape and dtype; equal (or close, NaNs in the same places)."""
    assert isinstance(got, hipkit.ndarray), type(got)
    host = got.get()
    expected = np.asarray(expected)
    assert host.shape == expected.shape, (host.shape, expected.shape)
    assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    if expected.dtype.kind == "f" and (rtol or atol):
        np.testing.assert_allclose(host.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True)
        assert np.array_equal(np.isnan(host), np.isnan(expected))
    else:
        np.testing.assert_array_equal(host, expected, strict=True)


def tol(dtype, ulps=4):
    dtype = np.dtype(dtype)
    return float(np.finfo(dtype).eps) * ulps if dtype.kind == "f" else 0.0


# ---------------------------------------------------------------- elementwise, binary

ARITH = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "minimum", "maximum"]
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]


def _expected(name, *args):
    with np.errstate(all="ignore"):
        result = getattr(np, name)(*args)
        if name == "floor_divide" and result.dtype.kind == "f":
            # +-inf // finite non-zero is +-inf and finite // +-inf the signed zero a / b in hipkit (the array
            # API's special cases); NumPy 2.4 gives NaN, and -1.0 for -1.0 // inf
            a, b = (np.asarray(v).astype(result.dtype) for v in args)
            edge = np.isinf(a) & np.isfinite(b) & (b != 0) | np.isfinite(a) & np.isinf(b)
            result = np.where(edge, a / b, result).astype(result.dtype)
    return result


def _supported(name, dtype):
    dtype = np.dtype(dtype)
    if name in BITWISE and dtype.kind == "f":
        return False
    if name == "subtract" and dtype == np.bool_:
        return False
    return True


@pytest.mark.parametrize("name", ARITH + COMPARE + BITWISE)
@pytest.mark.parametrize("dtype", ALL)
def test_binary_same_dtype(rng, name, dtype):
    shape = (37, 29)
    a, b = data(rng, shape, dtype), data(rng, shape, dtype)
    if not _supported(name, dtype):
        with pytest.raises(TypeError):
            getattr(hipkit, name)(hipkit.asarray(a), hipkit.asarray(b))
        return
    expected = _expected(name, a, b)
    got = getattr(hipkit, name)(hipkit.asarray(a), hipkit.asarray(b))
    if name == "floor_divide" and np.dtype(dtype).kind == "f":
        check(got, expected, rtol=tol(dtype, 2), atol=0)
    else:
        check(got, expected, rtol=tol(dtype, 1) if name in ("divide", "remainder") else 0)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "less", "logical_or"])
def test_binary_views_and_broadcasting(rng, name, dtype):
    host = data(rng, (12, 9), dtype)
    for label, view, dev in views(rng, host):
        o = data(rng, view.shape, dtype)
        check(getattr(hipkit, name)(dev, hipkit.asarray(o)), _expected(name, view, o))
        check(getattr(hipkit, name)(hipkit.asarray(o), dev), _expected(name, o, view))
    # (5,1,7) with (3,1): (5,3,7); a row against a column; 0-d against anything
    a, b = data(rng, (5, 1, 7), dtype), data(rng, (3, 1), dtype)
    check(getattr(hipkit, name)(hipkit.asarray(a), hipkit.asarray(b)), _expected(name, a, b))
    r, c = data(rng, (1, 6), dtype), data(rng, (4, 1), dtype)
    check(getattr(hipkit, name)(hipkit.asarray(c), hipkit.asarray(r)), _expected(name, c, r))
    s = data(rng, (), dtype)
    check(getattr(hipkit, name)(hipkit.asarray(s), hipkit.asarray(a)), _expected(name, s, a))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (1009,), (3, 0, 2), (2, 3, 5, 7)])
def test_shapes(rng, shape):
    a, b = data(rng, shape, "float32"), data(rng, shape, "float32")
    check(hipkit.add(hipkit.asarray(a), hipkit.asarray(b)), a + b)
    check(hipkit.asarray(a) * 2.5, a * np.float32(2.5))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_python_scalars_are_weak(rng, dtype):
    a = data(rng, (50,), dtype, low=0, high=100)
    x = hipkit.asarray(a)
    with np.errstate(all="ignore"):
        for value in (3, 2.5, True):
            check(x + value, a + value)
            check(value - x, value - a)
            check(x * value, a * value)
    check(x == 3, a == 3)
    check(x < 2.5, a < 2.5)


def test_python_int_out_of_range_raises():
    x = hipkit.asarray(np.zeros(3, np.uint8))
    with pytest.raises(OverflowError, match="300"):
        x + 300
    with pytest.raises(OverflowError):
        x + (-1)


@pytest.mark.parametrize("pair", [("int8", "uint8"), ("int32", "float32"), ("uint64", "int64"),
                                  ("float16", "float64"), ("bool", "int8"), ("uint32", "int32"),
                                  ("float16", "int64"), ("int16", "uint16"), ("uint8", "int16")])
def test_type_promotion(rng, pair):
    a, b = data(rng, (40,), pair[0], special=False, low=0, high=50), data(rng, (40,), pair[1], special=False,
                                                                         low=1, high=50)
    for name in ("add", "multiply", "maximum", "divide", "less"):
        expected = _expected(name, a, b)
        got = getattr(hipkit, name)(hipkit.asarray(a), hipkit.asarray(b))
        check(got, expected, rtol=tol(expected.dtype, 1))


def test_numpy_scalars_are_strong(rng):
    a = data(rng, (10,), "float32", special=False)
    check(hipkit.asarray(a) + np.float64(1.5), a + np.float64(1.5))
    check(hipkit.asarray(a.astype(np.int8)) + np.int32(5), a.astype(np.int8) + np.int32(5))


# ---------------------------------------------------------------- power, integer edge cases

@pytest.mark.parametrize("dtype", NUMERIC)
def test_power(rng, dtype):
    if np.dtype(dtype).kind in "iu":
        a = data(rng, (300,), dtype, low=-6, high=6)
        b = data(rng, (300,), dtype, low=0, high=7)
        check(hipkit.power(hipkit.asarray(a), hipkit.asarray(b)), np.power(a, b))
    else:
        a = np.abs(data(rng, (300,), dtype, special=False)) + np.asarray(0.5, dtype)
        b = data(rng, (300,), dtype, special=False, low=-3, high=3)
        check(hipkit.power(hipkit.asarray(a), hipkit.asarray(b)), _expected("power", a, b), rtol=tol(dtype, 8))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_integer_edges(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.min, info.max, -7, 7, -7, 7, 0, 5], dtype)
    b = np.array([-1, 1, -1, 2, -2, -2, 2, 3, 0], dtype)
    for name in ("floor_divide", "remainder", "add", "subtract", "multiply"):
        check(getattr(hipkit, name)(hipkit.asarray(a), hipkit.asarray(b)), _expected(name, a, b))
    check(hipkit.absolute(hipkit.asarray(a)), np.abs(a))
    check(-hipkit.asarray(a), _expected("negative", a))


def test_float_remainder_and_floor_divide_signs():
    a = np.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0, np.inf, 3.0, np.nan], np.float64)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 2.0, np.inf, 1.0], np.float64)
    check(hipkit.remainder(hipkit.asarray(a), hipkit.asarray(b)), _expected("remainder", a, b), rtol=1e-15)
    check(hipkit.floor_divide(hipkit.asarray(a), hipkit.asarray(b)), _expected("floor_divide", a, b), rtol=1e-15)


# ---------------------------------------------------------------- elementwise, unary

MATH = ["exp", "log", "log2", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh"]


@pytest.mark.parametrize("name", MATH)
@pytest.mark.parametrize("dtype", ALL)
def test_math(rng, name, dtype):
    a = data(rng, (1009,), dtype, low=-5 if name not in ("log", "log2", "sqrt") else 0, high=5)
    if np.dtype(dtype).kind == "f" and name in ("exp", "expm1"):
        a = np.clip(a, -30, 30).astype(dtype)
    expected = _expected(name, a)
    got = getattr(hipkit, name)(hipkit.asarray(a))
    ulps = 2 if expected.dtype == np.float16 else 8
    check(got, expected, rtol=tol(expected.dtype, ulps), atol=tol(expected.dtype, ulps))


@pytest.mark.parametrize("dtype", FLOATS)
def test_erf(rng, dtype):
    from math import erf
    a = data(rng, (500,), dtype, special=False, low=-4, high=4)
    expected = np.array([erf(float(v)) for v in a], np.float64).astype(dtype)
    check(hipkit.erf(hipkit.asarray(a)), expected, rtol=tol(dtype, 4), atol=tol(dtype, 4))


@pytest.mark.parametrize("name", ["negative", "absolute", "logical_not", "invert", "floor", "ceil", "rint",
                                  "isnan", "isinf", "isfinite"])
@pytest.mark.parametrize("dtype", ALL)
def test_unary(rng, name, dtype):
    a = data(rng, (17, 13), dtype)
    try:
        expected = _expected(name, a)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(hipkit, name)(hipkit.asarray(a))
        return
    if expected.dtype == np.int16:
        expected = expected.astype(np.int32)
    check(getattr(hipkit, name)(hipkit.asarray(a)), expected)
    check(getattr(hipkit, name)(hipkit.asarray(a)[::-1, ::2]), _expected(name, a[::-1, ::2]).astype(expected.dtype))


def test_rint_halves_to_even():
    a = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, -2.5000001], np.float64)
    check(hipkit.rint(hipkit.asarray(a)), np.rint(a))
    check(hipkit.round(hipkit.asarray(a)), np.round(a))
    check(hipkit.round(hipkit.asarray(a), 2), np.round(a, 2), rtol=1e-15)


@pytest.mark.parametrize("dtype", ALL)
def test_where_and_clip(rng, dtype):
    cond = rng.random((6, 7)) < 0.5
    a, b = data(rng, (6, 7), dtype), data(rng, (7,), dtype)
    check(hipkit.where(hipkit.asarray(cond), hipkit.asarray(a), hipkit.asarray(b)), np.where(cond, a, b))
    if dtype != "bool":
        lo, hi = data(rng, (), dtype, special=False), data(rng, (), dtype, special=False)
        lo, hi = min(lo, hi), max(lo, hi)
        check(hipkit.clip(hipkit.asarray(a), hipkit.asarray(lo), hipkit.asarray(hi)), np.clip(a, lo, hi))
        check(hipkit.asarray(a).clip(None, hipkit.asarray(hi)), np.clip(a, None, hi))


def test_where_with_scalars_and_nonbool_condition(rng):
    cond = data(rng, (20,), "int32", low=-1, high=1)
    a = data(rng, (20,), "float32", special=False)
    check(hipkit.where(hipkit.asarray(cond), hipkit.asarray(a), 0.0), np.where(cond, a, np.float32(0.0)))


def test_nan_propagation_in_minimum_maximum_clip():
    a = np.array([np.nan, 1.0, 2.0, np.nan], np.float32)
    b = np.array([1.0, np.nan, 0.0, np.nan], np.float32)
    for name in ("minimum", "maximum"):
        check(getattr(hipkit, name)(hipkit.asarray(a), hipkit.asarray(b)), getattr(np, name)(a, b))
    check(hipkit.clip(hipkit.asarray(a), 0.5, 1.5), np.clip(a, 0.5, 1.5))


# ---------------------------------------------------------------- out=, in place, operators

def test_out_and_in_place(rng):
    a, b = data(rng, (30, 20), "float32"), data(rng, (30, 20), "float32")
    x, y = hipkit.asarray(a), hipkit.asarray(b)
    out = hipkit.full((30, 20), np.nan, np.float32)
    assert hipkit.add(x, y, out=out) is out
    check(out, a + b)
    x += y
    check(x, a + b)
    # out of another dtype (same kind) converts; an unsafe one raises
    out64 = hipkit.full((30, 20), np.nan, np.float64)
    hipkit.multiply(hipkit.asarray(a), hipkit.asarray(b), out=out64)
    check(out64, (a * b).astype(np.float64))
    with pytest.raises(TypeError, match="same_kind"):
        hipkit.add(hipkit.asarray(a), hipkit.asarray(b), out=hipkit.empty((30, 20), np.int32))
    # out overlapping an input in a shifted way: computed through a temporary, like NumPy
    z = hipkit.asarray(a[0].copy())
    hipkit.add(z[1:], z[:-1], out=z[:-1])
    expected = a[0].copy()
    expected[:-1] = a[0][1:] + a[0][:-1]
    check(z, expected)
    # broadcasting into a bigger out
    o = hipkit.full((4, 3), np.nan, np.float64)
    hipkit.add(hipkit.asarray(np.arange(3.0)), 1.0, out=o)
    check(o, np.broadcast_to(np.arange(3.0) + 1.0, (4, 3)))
    with pytest.raises(ValueError):
        hipkit.add(hipkit.asarray(np.ones((2, 3))), 1.0, out=hipkit.empty((3,), np.float64))


def test_operators(rng):
    a = data(rng, (9, 4), "int32", low=-50, high=50)
    b = data(rng, (9, 4), "int32", low=1, high=50)
    x, y = hipkit.asarray(a), hipkit.asarray(b)
    check(x + y, a + b)
    check(x - y, a - b)
    check(x * y, a * b)
    check(x / y, a / b)
    check(x // y, a // b)
    check(x % y, a % b)
    check(x ** 2, a ** 2)
    check(x & y, a & b)
    check(x | y, a | b)
    check(x ^ y, a ^ b)
    check(~x, ~a)
    check(-x, -a)
    check(abs(x), abs(a))
    check(x == y, a == b)
    check(x != y, a != b)
    check(x < y, a < b)
    check(x >= y, a >= b)
    check(3 - x, 3 - a)
    check(2 ** hipkit.asarray(np.arange(5)), 2 ** np.arange(5))


def test_host_arrays_are_refused():
    x = hipkit.asarray(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="hipkit.asarray"):
        hipkit.add(x, np.ones(3, np.float32))
    with pytest.raises(TypeError):
        x + np.ones(3, np.float32)


# ---------------------------------------------------------------- reductions

REDUCTIONS = ["sum", "prod", "min", "max", "argmin", "argmax", "mean", "var", "std", "any", "all"]


def _reduce_expected(name, a, axis, keepdims):
    if a.dtype == np.float16 and name in ("var", "std", "mean"):
        # NumPy squares float16 deviations in float16 (overflowing to inf); hipkit accumulates in float32
        return getattr(np, name)(a.astype(np.float32), axis=axis, keepdims=keepdims).astype(np.float16)
    with np.errstate(all="ignore"):
        if name in ("argmin", "argmax"):
            return getattr(np, name)(a, axis=axis, keepdims=keepdims)
        return getattr(np, name)(a, axis=axis, keepdims=keepdims)


def _reduce_tolerance(name, a, expected):
    if expected.dtype.kind != "f":
        return 0.0, 0.0
    eps = float(np.finfo(np.float32 if a.dtype in (np.float16, np.float32) else np.float64).eps)
    if expected.dtype == np.float16:
        eps = float(np.finfo(np.float16).eps)
    n = max(a.size, 1)
    scale = float(np.nanmax(np.abs(a.astype(np.float64)), initial=1.0)) if a.size else 1.0
    if name == "prod":
        return 1e3 * eps, 0.0
    return 4 * eps, 4 * eps * scale * math.sqrt(n) * (scale if name in ("var", "std") else 1.0)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", ALL)
def test_reductions(rng, name, dtype):
    a = data(rng, (7, 11, 13), dtype, special=False, low=-3 if name == "prod" else None,
             high=3 if name == "prod" else None)
    if name == "prod" and np.dtype(dtype).kind == "f":
        a = rng.uniform(0.9, 1.1, a.shape).astype(dtype)
    for axis in (None, 0, 1, 2, (0, 2), (1, 2), -1):
        if name in ("argmin", "argmax") and isinstance(axis, tuple):
            continue
        for keepdims in (False, True):
            expected = _reduce_expected(name, a, axis, keepdims)
            expected = np.asarray(expected)
            got = getattr(hipkit, name)(hipkit.asarray(a), axis=axis, keepdims=keepdims)
            rtol, atol = _reduce_tolerance(name, a, expected)
            check(got, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["sum", "min", "max", "argmax", "mean", "any"])
def test_reductions_of_views(rng, name):
    a = data(rng, (40, 30), "float32", special=False)
    for label, view, dev in views(rng, a):
        for axis in (None, 0, 1):
            expected = np.asarray(_reduce_expected(name, view, axis, False))
            rtol, atol = _reduce_tolerance(name, view, expected)
            check(getattr(hipkit, name)(dev, axis=axis), expected, rtol=rtol, atol=atol)
    b = np.broadcast_to(a[:1], (40, 30))
    dev = hipkit.broadcast_to(hipkit.asarray(a[:1]), (40, 30))
    expected = np.asarray(_reduce_expected(name, b, 0, False))
    rtol, atol = _reduce_tolerance(name, b, expected)
    check(getattr(hipkit, name)(dev, axis=0), expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("n", [1, 2, 1000003])
def test_big_sums_and_nan(rng, n):
    a = data(rng, (n,), "float32", special=False)
    check(hipkit.sum(hipkit.asarray(a)), np.sum(a, dtype=np.float64).astype(np.float32), rtol=1e-5,
          atol=1e-5 * float(np.abs(a).sum()))
    a[n // 2] = np.nan
    for name in ("sum", "min", "max", "mean"):
        assert math.isnan(float(getattr(hipkit, name)(hipkit.asarray(a))))
    assert int(hipkit.argmax(hipkit.asarray(a))) == n // 2
    assert int(hipkit.argmin(hipkit.asarray(a))) == n // 2


def test_empty_reductions():
    e = hipkit.empty((0, 3), np.float32)
    check(hipkit.sum(e), np.float32(0))
    check(hipkit.sum(e, axis=0), np.zeros(3, np.float32))
    check(hipkit.prod(e, axis=0), np.ones(3, np.float32))
    check(hipkit.any(e), np.bool_(False))
    check(hipkit.all(e), np.bool_(True))
    with np.errstate(all="ignore"):
        check(hipkit.mean(e, axis=0), np.full(3, np.nan, np.float32), rtol=1e-7)
    with pytest.raises(ValueError, match="identity"):
        hipkit.min(e)
    with pytest.raises(ValueError):
        hipkit.argmax(e)
    check(hipkit.sum(hipkit.empty((3, 0), np.float32), axis=1), np.zeros(3, np.float32))


def test_integer_sums_widen():
    a = np.full(1000, 2**30, np.int32)
    check(hipkit.sum(hipkit.asarray(a)), np.sum(a))
    u = np.full(10, 250, np.uint8)
    check(hipkit.sum(hipkit.asarray(u)), np.sum(u))
    check(hipkit.mean(hipkit.asarray(u)), np.mean(u), rtol=1e-15)


def test_var_std_ddof(rng):
    a = data(rng, (50, 8), "float64", special=False)
    for ddof in (0, 1):
        check(hipkit.var(hipkit.asarray(a), axis=0, ddof=ddof), np.var(a, axis=0, ddof=ddof), rtol=1e-12)
        check(hipkit.std(hipkit.asarray(a), ddof=ddof), np.std(a, ddof=ddof), rtol=1e-12)


def test_reduction_errors():
    x = hipkit.asarray(np.ones((2, 3)))
    with pytest.raises(np.exceptions.AxisError):
        hipkit.sum(x, axis=2)
    with pytest.raises(ValueError, match="repeated"):
        hipkit.sum(x, axis=(0, 0))
    with pytest.raises(TypeError):
        hipkit.argmax(x, axis=(0, 1))


def test_methods_and_scalar_results(rng):
    a = data(rng, (5, 6), "float64", special=False)
    x = hipkit.asarray(a)
    assert x.sum().shape == ()
    assert float(x.sum()) == pytest.approx(a.sum())
    assert x.max().item() == a.max()
    check(x.mean(axis=1), a.mean(axis=1), rtol=1e-14)
    assert int(x.argmin()) == int(a.argmin())


def test_dot_and_norm(rng):
    a, b = data(rng, (257,), "float32", special=False), data(rng, (257,), "float32", special=False)
    got = float(hipkit.dot(hipkit.asarray(a), hipkit.asarray(b)))
    assert got == pytest.approx(float(np.dot(a.astype(np.float64), b)), rel=1e-4, abs=1e-3)
    for ord in (None, 1, 2, np.inf, -np.inf, 3):
        expected = np.linalg.norm(a, ord)
        got = hipkit.linalg.norm(hipkit.asarray(a), ord)
        assert float(got) == pytest.approx(float(expected), rel=1e-4), ord
    m = data(rng, (6, 5), "float64", special=False)
    check(hipkit.linalg.norm(hipkit.asarray(m), axis=1), np.linalg.norm(m, axis=1), rtol=1e-13)
    assert float(hipkit.linalg.norm(hipkit.asarray(m))) == pytest.approx(np.linalg.norm(m))


# ---------------------------------------------------------------- scans

@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ALL)
def test_scans(rng, name, dtype):
    a = data(rng, (9, 8, 7), dtype, special=False, low=-2 if name == "cumprod" else None,
             high=2 if name == "cumprod" else None)
    if np.dtype(dtype).kind == "f":
        a = (rng.uniform(0.5, 1.5, a.shape) if name == "cumprod" else rng.standard_normal(a.shape)).astype(dtype)
    for axis in (None, 0, 1, 2, -1):
        expected = getattr(np, name)(a, axis=axis)
        got = getattr(hipkit, name)(hipkit.asarray(a), axis=axis)
        if expected.dtype.kind == "f":
            eps = float(np.finfo(expected.dtype).eps)
            scale = float(np.abs(a.astype(np.float64)).sum())
            check(got, expected, rtol=64 * eps, atol=64 * eps * scale)
        else:
            check(got, expected)


@pytest.mark.parametrize("n", [0, 1, 31, 1000003])
def test_cumsum_long(rng, n):
    a = data(rng, (n,), "int32", low=-1000, high=1000)
    check(hipkit.cumsum(hipkit.asarray(a)), np.cumsum(a))
    f = data(rng, (n,), "float64", special=False)
    check(hipkit.cumsum(hipkit.asarray(f)), np.cumsum(f), rtol=1e-10, atol=1e-9 * max(1.0, float(np.abs(f).sum())))
    check(hipkit.cumsum(hipkit.asarray(a)[::-1]), np.cumsum(a[::-1]))


def test_cumsum_nan():
    a = np.array([1.0, np.nan, 2.0, 3.0], np.float32)
    check(hipkit.cumsum(hipkit.asarray(a)), np.cumsum(a), rtol=1e-6)


# ---------------------------------------------------------------- sorting

@pytest.mark.parametrize("dtype", ALL)
def test_sort_and_argsort(rng, dtype):
    for shape in ((0,), (1,), (2,), (1009,), (13, 31), (3, 4, 65)):
        a = data(rng, shape, dtype, low=-5 if np.dtype(dtype).kind in "iu" else None,
                 high=5 if np.dtype(dtype).kind in "iu" else None)  # many duplicates: stability shows
        for axis in (-1, 0) if len(shape) > 1 else (-1, None):
            check(hipkit.sort(hipkit.asarray(a), axis=axis), np.sort(a, axis=axis, kind="stable"))
            check(hipkit.argsort(hipkit.asarray(a), axis=axis), np.argsort(a, axis=axis, kind="stable"))


def test_sort_nan_last_and_in_place(rng):
    a = np.array([3.0, np.nan, -np.inf, 0.0, -0.0, np.inf, np.nan, -1.0], np.float32)
    check(hipkit.sort(hipkit.asarray(a)), np.sort(a))
    check(hipkit.argsort(hipkit.asarray(a)), np.argsort(a, kind="stable"))
    x = hipkit.asarray(a)
    x.sort()
    check(x, np.sort(a))
    big = data(rng, (1 << 20) + 3, "float32")
    check(hipkit.sort(hipkit.asarray(big)), np.sort(big))
    check(hipkit.sort(hipkit.asarray(big)[::-3]), np.sort(big[::-3]))


# ---------------------------------------------------------------- matmul

ENGINES = ["own", pytest.param("vendor", marks=pytest.mark.needs_gpu)]  # the vendor BLAS is a GPU's


def _engine_ok(engine):
    if engine == "vendor":
        x = hipkit.asarray(np.ones((1, 1), np.float32))
        try:
            hipkit.matmul(x, x, engine="vendor")
        except hipkit.NotSupportedError as error:
            pytest.skip(f"no vendor BLAS here: {error}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul(rng, engine, dtype):
    _engine_ok(engine)
    eps = float(np.finfo(dtype).eps)
    for (m, k, n) in [(1, 1, 1), (17, 5, 3), (64, 64, 64), (129, 127, 65), (300, 2, 1), (3, 0, 4)]:
        a, b = data(rng, (m, k), dtype, special=False), data(rng, (k, n), dtype, special=False)
        expected = a.astype(np.float64) @ b.astype(np.float64)
        bound = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
        got = hipkit.matmul(hipkit.asarray(a), hipkit.asarray(b), engine=engine).get()
        assert got.dtype == np.dtype(dtype) and got.shape == (m, n)
        assert np.all(np.abs(got - expected) <= 4 * (k + 1) * eps * bound + 1e-30), (m, k, n)
    # transposed and strided operands, batches with broadcasting, vectors
    a, b = data(rng, (33, 20), dtype, special=False), data(rng, (33, 40), dtype, special=False)
    got = hipkit.matmul(hipkit.asarray(a).T, hipkit.asarray(b)[:, ::2], engine=engine).get()
    np.testing.assert_allclose(got, a.T @ b[:, ::2], rtol=1e3 * eps, atol=1e3 * eps)
    a, b = data(rng, (2, 1, 5, 6), dtype, special=False), data(rng, (3, 6, 4), dtype, special=False)
    np.testing.assert_allclose(hipkit.matmul(hipkit.asarray(a), hipkit.asarray(b), engine=engine).get(), a @ b,
                               rtol=1e3 * eps, atol=1e3 * eps)
    v = data(rng, (6,), dtype, special=False)
    np.testing.assert_allclose((hipkit.asarray(a[0, 0]) @ hipkit.asarray(v)).get(), a[0, 0] @ v, rtol=1e3 * eps)
    np.testing.assert_allclose((hipkit.asarray(v) @ hipkit.asarray(b[0])).get(), v @ b[0], rtol=1e3 * eps)


def test_matmul_integer_and_errors(rng):
    a, b = data(rng, (5, 4), "int32", low=-9, high=9), data(rng, (4, 3), "int32", low=-9, high=9)
    check(hipkit.matmul(hipkit.asarray(a), hipkit.asarray(b)), a @ b)
    with pytest.raises(ValueError, match="mismatch"):
        hipkit.matmul(hipkit.asarray(a), hipkit.asarray(a))
    with pytest.raises(ValueError, match="dimensions"):
        hipkit.matmul(hipkit.asarray(a), 2.0)


# ---------------------------------------------------------------- take and indexing

@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "int32", "float64"])
def test_take(rng, dtype):
    a = data(rng, (6, 7, 5), dtype)
    for axis in (None, 0, 1, 2, -1):
        size = a.size if axis is None else a.shape[axis]
        idx = rng.integers(-size, size, (4, 3))
        check(hipkit.take(hipkit.asarray(a), hipkit.asarray(idx), axis=axis), np.take(a, idx, axis=axis))
        wild = rng.integers(-3 * size, 3 * size, 9)
        for mode in ("wrap", "clip"):
            check(hipkit.take(hipkit.asarray(a), hipkit.asarray(wild), axis=axis, mode=mode),
                  np.take(a, wild, axis=axis, mode=mode))
    with pytest.raises(IndexError):
        hipkit.take(hipkit.asarray(a), hipkit.asarray(np.array([0, 99])), axis=0)


def test_indexing(rng):
    a = data(rng, (8, 9, 10), "float32")
    x = hipkit.asarray(a)
    for key in [3, -1, (2, 3), (slice(1, 7, 2),), (slice(None, None, -1), 4), (Ellipsis, 2), (None, 1),
                (slice(2, 2),), (1, slice(None), slice(None, None, -3))]:
        check(x[key], a[key])
    idx = np.array([0, 5, 2, 2])
    check(x[idx], a[idx])
    check(x[:, idx], a[:, idx])
    check(x[1, idx], a[1, idx])
    mask = a > 0
    check(x[hipkit.asarray(mask)], a[mask])
    row_mask = rng.random(8) < 0.5
    check(x[hipkit.asarray(row_mask)], a[row_mask])


def test_assignment(rng):
    a = data(rng, (6, 5), "float64")
    x = hipkit.asarray(a)
    x[1:4, ::2] = 7.0
    a[1:4, ::2] = 7.0
    check(x, a)
    x[0] = hipkit.asarray(np.arange(5.0))
    a[0] = np.arange(5.0)
    check(x, a)
    x[:, 1] = np.arange(6)  # host data: copied
    a[:, 1] = np.arange(6)
    check(x, a)
    mask = a > 2
    x[hipkit.asarray(mask)] = -1.0
    a[mask] = -1.0
    check(x, a)


# ---------------------------------------------------------------- conversion, creation

@pytest.mark.parametrize("src", ALL)
def test_astype(rng, src):
    a = data(rng, (40,), src, special=False, low=0, high=100)
    for dst in ALL:
        with np.errstate(all="ignore"):
            expected = a.astype(dst)
        check(hipkit.asarray(a).astype(dst), expected)


def test_creation():
    check(hipkit.ones((2, 3), np.int8), np.ones((2, 3), np.int8))
    check(hipkit.zeros_like(hipkit.empty((4,), np.uint32)), np.zeros(4, np.uint32))
    check(hipkit.full((3,), 2.5, np.float16), np.full(3, 2.5, np.float16))
    check(hipkit.arange(10, dtype=np.uint8), np.arange(10, dtype=np.uint8))
    check(hipkit.arange(2.0, 5.0, 0.5), np.arange(2.0, 5.0, 0.5))
    check(hipkit.linspace(0, 1, 11), np.linspace(0, 1, 11), rtol=1e-15, atol=1e-16)
    a, b = np.arange(6.0).reshape(2, 3), np.arange(9.0).reshape(3, 3)
    check(hipkit.concatenate([hipkit.asarray(a), hipkit.asarray(b)]), np.concatenate([a, b]))
    check(hipkit.stack([hipkit.asarray(a), hipkit.asarray(a)], axis=1), np.stack([a, a], axis=1))
    check(hipkit.asarray(a).reshape(3, 2), a.reshape(3, 2))
    check(hipkit.asarray(a).T.reshape(-1), a.T.reshape(-1))
    check(hipkit.expand_dims(hipkit.asarray(a), 0), np.expand_dims(a, 0))


def test_repr_and_scalars():
    x = hipkit.asarray(np.array([1.5, 2.0], np.float32))
    assert "1.5" in repr(x) and "float32" in repr(x)
    assert float(x[0]) == 1.5
    assert x[1].item() == 2.0
    assert len(x) == 2
    assert [float(v) for v in x] == [1.5, 2.0]
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
