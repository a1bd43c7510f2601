"""int16, uint16, complex64 and complex128 in every family, against NumPy on fresh random data: creation
and conversion both ways, astype between all fourteen dtypes, promotion, elementwise arithmetic and the
elementary functions (complex: NumPy's values within a few ulp), reductions, scans, sorting, matmul,
take/put/where/masks, views (the real and imaginary parts, negative strides) and the errors of what complex
numbers cannot do (order). Op-semantics tests: they run on the current device (a GPU, else the CPU device)."""
import itertools
import warnings

import numpy as np
import pytest

import hipkit

NEW = ("int16", "uint16", "complex64", "complex128")
ALL = tuple(d.name for d in hipkit._dtypes.SUPPORTED)
COMPLEX = ("complex64", "complex128")
SIZES = (0, 1, 7, 97, 1031)


def _random(rng, dtype, n, special=True):
    """n values of dtype: integers over their range, floats and complex numbers of mixed magnitudes with
    special values (0, -0, inf, nan) mixed in."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
    real = np.dtype(np.float32 if dtype == np.complex64 else np.float64) if dtype.kind == "c" else dtype
    parts = []
    for _ in range(2 if dtype.kind == "c" else 1):
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(real)
        if special and n > 8:
            x[rng.integers(0, n, 4)] = np.array([0.0, -0.0, np.inf, np.nan], real)
        parts.append(x)
    if dtype.kind == "c":
        z = np.empty(n, dtype)
        z.real, z.imag = parts  # not re + 1j * im: 1j * inf has a NaN real part
        return z
    return parts[0]


def _poisoned(shape, dtype):
    """An output array filled with a value no op gives here (NaN for inexact dtypes)."""
    dtype = np.dtype(dtype)
    fill = np.nan if dtype.kind in "fc" else (np.iinfo(dtype).max if dtype.kind in "iu" else True)
    return hipkit.full(shape, fill, dtype=dtype)


def _close(got, want, rtol):
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)


# ---------------------------------------------------------------- dtypes, conversion, promotion

@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("n", SIZES)
def test_round_trip(rng, dtype, n):
    host = _random(rng, dtype, n)
    x = hipkit.asarray(host)
    assert x.dtype == np.dtype(dtype) and x.shape == (n,)
    np.testing.assert_array_equal(x.get(), host)
    # bits, not just values: NaN payloads and -0.0 survive
    assert x.get().tobytes() == host.tobytes()


@pytest.mark.parametrize("dtype", NEW)
def test_zero_d_and_item(rng, dtype):
    host = _random(rng, dtype, 1, special=False)[0]
    x = hipkit.asarray(np.asarray(host))
    assert x.shape == () and x.item() == host.item()
    assert type(x.item()) is type(host.item())


@pytest.mark.parametrize("src, dst", list(itertools.product(ALL, ALL)))
def test_astype_every_pair(rng, src, dst):
    if src in NEW or dst in NEW:
        host = _random(rng, src, 211, special=False)
        if np.dtype(dst).kind in "iub" and np.dtype(src).kind in "fc":
            host = (host.real if np.dtype(src).kind == "c" else host)
            low = 0 if np.dtype(dst).kind in "ub" else -100  # inside the destination's range (hipkit saturates
            host = np.clip(np.nan_to_num(host), low, 100).astype(src)  # outside it, where NumPy's is undefined)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's ComplexWarning: complex -> real keeps the real part
            want = host.astype(dst)
        got = hipkit.asarray(host).astype(dst).get()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("a, b", list(itertools.product(ALL, ALL)))
def test_promotion_table(a, b):
    assert hipkit.result_type(a, b) == np.result_type(a, b)


@pytest.mark.parametrize("dtype", ("float32", "float64", "int16", "uint16", "complex64", "complex128"))
def test_python_complex_scalars(rng, dtype):
    host = _random(rng, dtype, 50, special=False)
    x = hipkit.asarray(host)
    for got, want in ((x + 1j, host + 1j), (2j * x, 2j * host), (x - (1 + 2j), host - (1 + 2j))):
        _close(got.get(), want, 2e-6 if want.dtype == np.complex64 else 1e-13)


# ---------------------------------------------------------------- elementwise

ARITH = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(ARITH))
@pytest.mark.parametrize("n", (0, 1, 97, 1031))
def test_complex_arithmetic(rng, dtype, name, n):
    a, b = _random(rng, dtype, n), _random(rng, dtype, n)
    with np.errstate(all="ignore"):
        want = ARITH[name](a, b)
    got = getattr(hipkit, name)(hipkit.asarray(a), hipkit.asarray(b)).get()
    # Where an infinity meets a NaN or a zero, C99's Annex G (which hipkit follows, as the array API
    # recommends) recovers results that NumPy's loops leave as NaN: an infinity, or 0 for finite / infinite.
    finite = np.isfinite(want)
    _close(got[finite], want[finite], 1e-5 if dtype == "complex64" else 1e-12)
    recovered = got[~finite][np.isfinite(got[~finite])]
    assert name == "divide" and (recovered == 0).all() or recovered.size == 0, recovered


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_arithmetic_into_poisoned_out_view(rng, dtype):
    a, b = _random(rng, dtype, 60), _random(rng, dtype, 60)
    out = _poisoned((120,), dtype)
    hipkit.multiply(hipkit.asarray(a)[::-1], hipkit.asarray(b), out=out[::2])
    got = out.get()
    with np.errstate(all="ignore"):
        want = a[::-1] * b
    finite = np.isfinite(want)  # elsewhere Annex G's recovery may give inf where NumPy gives NaN
    _close(got[::2][finite], want[finite], 1e-5 if dtype == "complex64" else 1e-12)
    assert not np.isfinite(got[::2][~finite]).any()
    assert np.isnan(got[1::2]).all()  # the elements between stay unwritten


UNARY = ("exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh",
         "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "square", "reciprocal", "negative",
         "conjugate", "sign")


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", UNARY)
def test_complex_functions(rng, dtype, name):
    # moderate magnitudes: the functions' own accuracy, not overflow (special values: test_complex_special)
    n = 500
    real = np.float32 if dtype == "complex64" else np.float64
    z = (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
        if name == "sign":
            want = (z / np.abs(z)).astype(dtype)
    got = getattr(hipkit, name)(hipkit.asarray(z)).get()
    assert got.dtype == want.dtype
    # relative to the magnitude of each result: a small part next to a large one carries its error
    scale = np.maximum(np.abs(want), np.finfo(real).tiny)
    err = np.abs(got.astype(np.complex128) - want.astype(np.complex128)) / scale
    assert np.nanmax(err) < (2e-6 if dtype == "complex64" else 1e-14), (name, np.nanmax(err))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_special(dtype):
    inf, nan = np.inf, np.nan
    z = np.array([0, -0.0, complex(inf, 0), complex(-inf, 0), complex(0, inf), complex(nan, 0), complex(0, nan),
                  complex(inf, inf), complex(-1, 0), complex(-1, -0.0), complex(1e30, 1e30)], dtype)
    x = hipkit.asarray(z)
    np.testing.assert_array_equal(hipkit.isnan(x).get(), np.isnan(z))
    np.testing.assert_array_equal(hipkit.isinf(x).get(), np.isinf(z))
    np.testing.assert_array_equal(hipkit.isfinite(x).get(), np.isfinite(z))
    with np.errstate(all="ignore"):
        # branch cuts: sqrt and log of -1 +- 0i land on either side as the sign of zero says
        for name in ("sqrt", "log", "exp"):
            got, want = getattr(hipkit, name)(x).get(), getattr(np, name)(z)
            finite = np.isfinite(want)
            np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.signbit(hipkit.sqrt(x).get()[8:10].imag), [False, True])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_abs_real_imag_conj(rng, dtype):
    z = _random(rng, dtype, 300)
    x = hipkit.asarray(z)
    real = np.float32 if dtype == "complex64" else np.float64
    for name, want in (("abs", np.abs(z)), ("real", z.real.copy()), ("imag", z.imag.copy()), ("conj", np.conj(z))):
        got = getattr(hipkit, name)(x).get()
        assert got.dtype == want.dtype and (name == "conj" or got.dtype == real)
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)
    # x.real and x.imag are views: writing them writes x
    view = x.real
    assert view.dtype == real and view.shape == x.shape
    view[...] = 5.0
    np.testing.assert_array_equal(x.get().real, 5.0)
    np.testing.assert_array_equal(x.get().imag, z.imag)
    x.imag[::2] = -1.0
    np.testing.assert_array_equal(x.get().imag[::2], -1.0)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_comparisons_and_logic(rng, dtype):
    a = _random(rng, dtype, 200)
    b = a.copy()
    b[::3] += 1
    x, y = hipkit.asarray(a), hipkit.asarray(b)
    np.testing.assert_array_equal((x == y).get(), a == b)
    np.testing.assert_array_equal((x != y).get(), a != b)
    np.testing.assert_array_equal(hipkit.logical_not(x).get(), np.logical_not(a))
    np.testing.assert_array_equal(hipkit.where(x == y, x, y).get(), np.where(a == b, a, b))
    for name in ("less", "greater", "maximum", "minimum", "floor", "floor_divide", "remainder"):
        with pytest.raises(TypeError):
            getattr(hipkit, name)(*((x, y) if name not in ("floor",) else (x,)))


@pytest.mark.parametrize("dtype", ("int16", "uint16"))
@pytest.mark.parametrize("name", ("add", "subtract", "multiply", "floor_divide", "remainder", "maximum", "minimum",
                                  "bitwise_and", "bitwise_xor", "less", "equal", "left_shift", "right_shift"))
def test_int16_binary(rng, dtype, name):
    a, b = _random(rng, dtype, 777), _random(rng, dtype, 777)
    if name in ("left_shift", "right_shift"):
        b = (b % 20).astype(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
    got = getattr(hipkit, name)(hipkit.asarray(a), hipkit.asarray(b)).get()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ("int16", "uint16"))
def test_int16_scalars_and_mixed(rng, dtype):
    a = _random(rng, dtype, 100)
    x = hipkit.asarray(a)
    np.testing.assert_array_equal((x + 3).get(), a + np.array(3, dtype))
    with pytest.raises(OverflowError):
        x + 70000
    b = _random(rng, "int8", 100)
    with np.errstate(all="ignore"):
        want = a + b
    got = (x + hipkit.asarray(b)).get()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- reductions, scans, sorting

@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("axis", (None, 0, 1))
def test_sum_prod_mean(rng, dtype, axis):
    host = _random(rng, dtype, 13 * 29, special=False).reshape(13, 29)
    if np.dtype(dtype).kind == "c":
        host = (host / (np.abs(host) + 1)).astype(dtype)  # prod of modest values
    x = hipkit.asarray(host)
    tol = 1e-4 if dtype == "complex64" else 1e-10
    for name in ("sum", "prod", "mean"):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(host, axis=axis)
        got = np.asarray(getattr(hipkit, name)(x, axis=axis).get())
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        if np.dtype(dtype).kind == "c":
            np.testing.assert_allclose(got, want, rtol=tol)
        elif name == "mean":
            np.testing.assert_allclose(got, want, rtol=1e-12)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_refuses_order_reductions(rng, dtype):
    x = hipkit.asarray(_random(rng, dtype, 10))
    for name in ("max", "min", "argmax", "argmin", "sort", "argsort"):
        with pytest.raises((TypeError, hipkit.NotSupportedError)) as info:
            getattr(hipkit, name)(x)
        assert "complex" in str(info.value)


@pytest.mark.parametrize("dtype", ("int16", "uint16"))
def test_int16_max_min_arg(rng, dtype):
    host = _random(rng, dtype, 5 * 211).reshape(5, 211)
    x = hipkit.asarray(host)
    for name in ("max", "min", "argmax", "argmin"):
        np.testing.assert_array_equal(getattr(hipkit, name)(x, axis=1).get(), getattr(np, name)(host, axis=1))


@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("axis", (0, 1))
def test_cumsum(rng, dtype, axis):
    host = _random(rng, dtype, 31 * 37, special=False).reshape(31, 37)
    x = hipkit.asarray(host)
    want = np.cumsum(host, axis=axis)
    got = hipkit.cumsum(x, axis=axis).get()
    assert got.dtype == want.dtype
    if np.dtype(dtype).kind == "c":
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "complex64" else 1e-11)
    else:
        np.testing.assert_array_equal(got, want)
    # a reversed view in, the real and imaginary parts computed apart
    np.testing.assert_allclose(hipkit.cumsum(x[::-1], axis=axis).get(), np.cumsum(host[::-1], axis=axis),
                               rtol=1e-4 if dtype == "complex64" else 1e-11)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape, axis", [((97,), 0), ((13, 29), 1), ((29, 13), 0), ((1,), 0), ((0, 4), 1)])
def test_complex_cumprod(rng, dtype, shape, axis):
    # moduli near 1, so that the products stay in range
    z = (rng.uniform(0.7, 1.3, shape) * np.exp(1j * rng.uniform(-3, 3, shape))).astype(dtype)
    x = hipkit.asarray(z)
    tol = 1e-4 if dtype == "complex64" else 1e-12
    for got, want in ((hipkit.cumprod(x, axis=axis), np.cumprod(z, axis=axis)),
                      (hipkit.cumprod(x[::-1], axis=axis), np.cumprod(z[::-1], axis=axis))):
        got = got.get()
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ("int16", "uint16"))
@pytest.mark.parametrize("n", (0, 1, 97, 5000))
def test_int16_sort(rng, dtype, n):
    host = _random(rng, dtype, n)
    x = hipkit.asarray(host)
    np.testing.assert_array_equal(hipkit.sort(x).get(), np.sort(host))
    np.testing.assert_array_equal(hipkit.argsort(x).get(), np.argsort(host, kind="stable"))


# ---------------------------------------------------------------- matmul, indexing

@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", (((3, 5), (5, 4)), ((2, 7, 6), (6, 3)), ((1, 1), (1, 1)), ((4, 0), (0, 3))))
def test_complex_matmul(rng, dtype, shape):
    a = _random(rng, dtype, int(np.prod(shape[0])), special=False).reshape(shape[0])
    b = _random(rng, dtype, int(np.prod(shape[1])), special=False).reshape(shape[1])
    want = a @ b
    got = (hipkit.asarray(a) @ hipkit.asarray(b)).get()
    assert got.dtype == want.dtype
    scale = np.abs(a).max(initial=1) * np.abs(b).max(initial=1) * shape[0][-1]
    np.testing.assert_allclose(got, want, atol=scale * (1e-5 if dtype == "complex64" else 1e-13))


@pytest.mark.parametrize("dtype", NEW)
def test_take_put_mask(rng, dtype):
    host = _random(rng, dtype, 300)
    x = hipkit.asarray(host)
    idx = rng.integers(-300, 300, 50)
    np.testing.assert_array_equal(hipkit.take(x, hipkit.asarray(idx)).get(), np.take(host, idx))
    mask = rng.integers(0, 2, 300).astype(bool)
    np.testing.assert_array_equal(x[hipkit.asarray(mask)].get(), host[mask])
    values = _random(rng, dtype, 50)
    order = rng.permutation(300)[:50]
    y = x.copy()
    y[hipkit.asarray(order)] = hipkit.asarray(values)
    want = host.copy()
    want[order] = values
    np.testing.assert_array_equal(y.get(), want)
    # a reversed 2-d view through the generic path
    h2 = host.reshape(15, 20)
    np.testing.assert_array_equal(hipkit.asarray(h2)[::-1, 3:17:2].get(), h2[::-1, 3:17:2])


@pytest.mark.parametrize("dtype", NEW)
def test_dlpack_and_numpy_views_on_the_cpu_device(rng, dtype):
    host = _random(rng, dtype, 64)
    with hipkit.Device("cpu"):
        x = hipkit.asarray(host)
        back = np.from_dlpack(x)
        assert back.dtype == host.dtype
        np.testing.assert_array_equal(back, host)
        y = hipkit.from_dlpack(host)
        np.testing.assert_array_equal(y.get(), host)
