"""Every row of the library's op table (HK_OP_TABLE, read through hk_op_get_info) against NumPy: each
unary and binary elementwise function, for each of the ten dtypes, on fresh random data with the special
values mixed in (+-0, +-inf, NaN, the domain edges +-1 and their neighbours, the integer extremes, shift
counts around the width), through the C fast path (contiguous, new output), into a poisoned out=, and
through the general path (reversed views). The list of ops comes from the library, so a new row is tested
here without an edit. Where and clip (three inputs) are tested in test_numpy_api.py."""
import math

import numpy as np
import pytest

import hipkit


# The real dtypes (complex numbers against NumPy: test_new_dtypes.py, within a few ulp of the modulus).
DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
          "float64"]
# (op, dtype) that hipkit refuses (TypeError) although NumPy has a loop: nextafter in float16 (hipkit computes
# float16 in float32, where a step of float32 would be lost when rounding back), so neither for bool, int8 and
# uint8, which NumPy computes in float16.
REFUSED = {("nextafter", d) for d in ("bool", "int8", "uint8", "float16")}
ROWS = [row for row in hipkit.ops._OPS.values() if row.arity in (1, 2)]

# Ops computed by the vendors' device math (and NumPy's own, SIMD, versions): compared within a few units in
# the last place; every other op must match NumPy bit for bit (NaN with NaN).
APPROXIMATE = {"power", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "sinh", "cosh",
               "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "arctan2", "hypot",
               "logaddexp", "erf"}


def float_specials(dtype):
    f = np.finfo(dtype)
    one = dtype.type(1)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 10.0, -100.0, np.inf, -np.inf, np.nan,
              np.nextafter(one, dtype.type(2)), np.nextafter(one, dtype.type(0)),
              np.nextafter(-one, dtype.type(-2)), np.nextafter(-one, dtype.type(0)),
              f.tiny, -f.tiny, f.smallest_subnormal, f.max, -f.max, 3.0, -7.0]
    return np.array(values, dtype=dtype)


def int_specials(dtype):
    info = np.iinfo(dtype)
    bits = dtype.itemsize * 8
    values = {info.min, info.max, info.min + 1, 0, 1, 2, 3, 7, bits - 1, bits, bits + 1}
    if info.min < 0:
        values |= {-1, -2, -7}
    return np.array(sorted(values), dtype=dtype)


def specials(dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.array([False, True])
    return float_specials(dtype) if dtype.kind == "f" else int_specials(dtype)


def random_values(rng, n, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        wide = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        small = rng.integers(max(info.min, -20), 20, n, dtype=dtype, endpoint=True)
        return np.where(rng.random(n) < 0.5, wide, small)
    normal = rng.standard_normal(n) * 10
    unit = rng.uniform(-1.5, 1.5, n)  # inside and just outside [-1, 1] (arcsin, arctanh ...)
    return np.where(rng.random(n) < 0.5, normal, unit).astype(dtype)


def operands(rng, row, dtype):
    """Host inputs: every pair of special values (binary) or each one (unary), then random values, 1009
    of them, so the length is awkward for the kernels' vectors."""
    s = specials(dtype)
    if row.arity == 1:
        inputs = [np.concatenate([s, random_values(rng, 1009, dtype)])]
    else:
        a, b = np.repeat(s, s.size), np.tile(s, s.size)
        inputs = [np.concatenate([a, random_values(rng, 1009, dtype)]),
                  np.concatenate([b, random_values(rng, 1009, dtype)])]
    if row.name == "power" and np.dtype(dtype).kind in "iu":  # NumPy raises for negative integer exponents
        inputs[1] = np.abs(inputs[1]) % 70 if np.dtype(dtype).kind == "i" else inputs[1] % 70
        inputs[1] = inputs[1].astype(dtype)
    return inputs


def numpy_result(row, inputs):
    """What NumPy computes, and the deviations hipkit documents (hipkit.h, HK_OP_TABLE)."""
    with np.errstate(all="ignore"):
        if row.name == "erf":  # NumPy has no erf: math.erf in float64, rounded to the loop dtype
            x = inputs[0]
            dtype = x.dtype if x.dtype.kind == "f" else hipkit.ops._math_float(x.dtype)
            return np.array([math.erf(v) for v in x.astype(np.float64)]).astype(dtype)
        expected = getattr(np, row.name)(*inputs)
        if row.name == "floor_divide" and expected.dtype.kind == "f":
            # +-inf // finite non-zero is +-inf (the array API); NumPy 2.4 gives NaN
            a, b = (v.astype(expected.dtype) for v in inputs)
            edge = np.isinf(a) & np.isfinite(b) & (b != 0)
            edge |= np.isfinite(a) & np.isinf(b)  # finite // +-inf: the signed zero a / b (2024.12; NumPy -1.0)
            expected = np.where(edge, a / b, expected).astype(expected.dtype)
        if row.name == "reciprocal" and expected.dtype.kind in "iu":
            expected = np.where(inputs[0] == 0, 0, expected).astype(expected.dtype)  # 1 // 0 gives 0
    return expected


def ulp(x, dtype):
    x = np.abs(x.astype(np.float64))
    f = np.finfo(dtype)
    exponent = np.floor(np.log2(np.maximum(x, float(f.tiny))))
    return np.exp2(exponent - (f.nmant))


def assert_matches(row, got, expected, inputs):
    host = got.get()
    assert host.dtype == expected.dtype, (row.name, host.dtype, expected.dtype)
    assert host.shape == expected.shape
    if expected.dtype.kind != "f":
        bad = np.flatnonzero(host != expected)
        assert bad.size == 0, (row.name, [(tuple(v[i] for v in inputs), host[i], expected[i]) for i in bad[:5]])
        return
    g, e = host.astype(np.float64), expected.astype(np.float64)
    nan_ok = np.isnan(g) == np.isnan(e)
    same = (g == e) & (np.signbit(g) == np.signbit(e)) | (np.isnan(g) & np.isnan(e))
    if row.name in ("minimum", "maximum"):
        # of 0.0 and -0.0 hipkit gives the first (NumPy's scalar loops); NumPy's SIMD loops for float32 and
        # float64 pick by sign; the array API leaves it to the implementation
        same |= (g == 0) & (e == 0)
    if row.name in APPROXIMATE or row.name in ("floor_divide", "remainder"):
        # 8 ulp in float32/float64 (both libraries' errors), 1 in float16 (computed in float32, rounded
        # twice); logaddexp's sum cancels near 0, so its ulp is taken at the inputs' scale
        ulps = 1.0 if expected.dtype == np.float16 else 8.0
        scale = np.abs(e)
        if row.name == "logaddexp":
            scale = np.maximum(scale, np.maximum(*(np.abs(v.astype(np.float64)) for v in inputs)))
        if row.name in ("floor_divide", "remainder"):  # the quotient's rounding: a unit of the dividend's scale
            scale = np.maximum(scale, np.abs(inputs[0].astype(np.float64)) * float(np.finfo(expected.dtype).eps))
            ulps = 2.0
        finite = np.isfinite(g) & np.isfinite(e)
        with np.errstate(invalid="ignore", over="ignore"):
            close = finite & (np.abs(g - e) <= ulps * ulp(scale, expected.dtype))
        same |= close
        # the edge of the range: one side rounds to the largest finite number, the other to inf
        big = float(np.finfo(expected.dtype).max)
        same |= (np.isinf(g) & (np.abs(e) == big) | np.isinf(e) & (np.abs(g) == big)) & \
            (np.signbit(g) == np.signbit(e))
    bad = np.flatnonzero(~(same & nan_ok))
    assert bad.size == 0, (row.name, str(expected.dtype),
                           [(tuple(v[i] for v in inputs), host[i], expected[i]) for i in bad[:5]])


def poison(shape, dtype):
    dtype = np.dtype(dtype)
    value = True if dtype == np.bool_ else 123 if dtype.kind in "iu" else 12345.678
    return hipkit.asarray(np.full(shape, value, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_every_op_matches_numpy(rng, row, dtype):
    inputs = operands(rng, row, dtype)
    fn = getattr(hipkit, row.name)
    try:
        with np.errstate(all="ignore"):
            expected = numpy_result(row, inputs)
    except TypeError:  # NumPy has no loop for this dtype: hipkit refuses it as well
        with pytest.raises(TypeError):
            fn(*(hipkit.asarray(v) for v in inputs))
        return
    if (row.name, dtype) in REFUSED:
        with pytest.raises(TypeError):
            fn(*(hipkit.asarray(v) for v in inputs))
        return
    devices = [hipkit.asarray(v) for v in inputs]
    assert_matches(row, fn(*devices), expected, inputs)  # contiguous: the fast path for binaries
    out = poison(expected.shape, expected.dtype)
    assert fn(*devices, out=out) is out
    assert_matches(row, out, expected, inputs)
    # reversed views: the general (strided) path
    reversed_inputs = [v[::-1] for v in inputs]
    got = fn(*(hipkit.asarray(v)[::-1] for v in inputs))
    assert_matches(row, got, numpy_result(row, reversed_inputs), reversed_inputs)


def test_the_array_api_names_are_the_same_functions():
    for row in ROWS:
        if row.array_api_name:
            assert getattr(hipkit, row.array_api_name) is getattr(hipkit, row.name), row.name


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64"])
def test_shift_operators(rng, dtype):
    a, b = random_values(rng, 257, dtype), rng.integers(0, np.dtype(dtype).itemsize * 8, 257).astype(dtype)
    x, y = hipkit.asarray(a), hipkit.asarray(b)
    np.testing.assert_array_equal((x << y).get(), a << b)
    np.testing.assert_array_equal((x >> y).get(), a >> b)
    np.testing.assert_array_equal((x << 3).get(), a << np.dtype(dtype).type(3))
    np.testing.assert_array_equal((1 << y).get() if np.dtype(dtype).kind == "i" else (x >> 1).get(),
                                  (np.dtype(dtype).type(1) << b) if np.dtype(dtype).kind == "i" else a >> 1)
    z = hipkit.asarray(a.copy())
    z <<= y
    np.testing.assert_array_equal(z.get(), a << b)
    z >>= y
    np.testing.assert_array_equal(z.get(), (a << b) >> b)


def test_floor_divide_of_infinity_is_infinity():
    x = hipkit.asarray(np.array([np.inf, -np.inf, np.inf, -np.inf, np.inf, 1.0, -1.0]))
    y = hipkit.asarray(np.array([2.0, 2.0, -3.0, -3.0, np.inf, np.inf, np.inf]))
    got = hipkit.floor_divide(x, y).get()
    np.testing.assert_array_equal(got, [np.inf, -np.inf, -np.inf, np.inf, np.nan, 0.0, -0.0])
    assert np.signbit(got[-1])  # -1.0 // inf is -0.0 (the array API 2024.12's; NumPy 2.4 gives -1.0)
