"""Every op against NumPy, on fresh random data, at awkward sizes, with the
output poisoned first so unwritten elements show."""
import math

import numpy as np
import pytest

import hipkit


SIZES = [0, 1, 7, 1000003, 2**20 + 1]  # empty, one, below a warp, a prime, just past a power of two
FLOATS = [np.float32, np.float64]
INTS = [np.int32, np.int64]
DTYPES = FLOATS + INTS


def random_array(rng, n, dtype):
    """Normal floats, or integers over the whole range (so arithmetic wraps)."""
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def poisoned(n, dtype):
    """A device array filled with NaN, or bytes 0x7F, through a copy (not through fill)."""
    if np.dtype(dtype).kind == "f":
        return hipkit.asarray(np.full(n, np.nan, dtype))
    return hipkit.asarray(np.full(n * np.dtype(dtype).itemsize, 0x7F, np.uint8).view(dtype))


def assert_same(got, expected):
    """Equal element for element, NaNs in the same places, and same dtype."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected, strict=True)


# ------------------------------------------------------------ round trips

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_is_bit_exact(rng, dtype, n):
    host = random_array(rng, n, dtype)
    if np.dtype(dtype).kind == "f" and n >= 7:
        info = np.finfo(dtype)
        host[:7] = [np.nan, np.inf, -np.inf, -0.0, info.tiny / 2, info.max, info.min]
    back = hipkit.asarray(host).get()
    assert back.dtype == host.dtype and back.shape == host.shape
    assert back.tobytes() == host.tobytes()
    out = np.full_like(host, 0x7F if np.dtype(dtype).kind == "i" else np.nan)
    assert hipkit.asarray(host).get(out=out) is out
    assert out.tobytes() == host.tobytes()


def test_round_trip_keeps_shape_and_order(rng):
    host = random_array(rng, 2 * 3 * 5, np.float32).reshape(2, 3, 5)
    device = hipkit.asarray(host.T)  # not C-contiguous on the host: copied into C order
    assert device.shape == (5, 3, 2) and device.strides == np.ascontiguousarray(host.T).strides
    assert_same(device.get(), np.ascontiguousarray(host.T))
    assert_same(hipkit.asarray(host[::2]).get(), host[::2].copy())


def test_get_into_a_strided_host_array_is_refused():
    x = hipkit.zeros(5, np.float32)
    with pytest.raises(ValueError, match="C-contiguous"):
        x.get(out=np.zeros(10, np.float32)[::2])


def test_list_input_follows_numpy_defaults():
    assert_same(hipkit.asarray([1, 2, 3]).get(), np.array([1, 2, 3]))
    assert_same(hipkit.asarray([[1.5], [2.5]]).get(), np.array([[1.5], [2.5]]))
    assert_same(hipkit.asarray(3.0).get(), np.array(3.0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_copy_is_independent(rng, dtype):
    host = random_array(rng, 1000, dtype)
    x = hipkit.asarray(host)
    y = x.copy()
    assert y.ptr != x.ptr
    x.fill(0)
    assert_same(y.get(), host)


# -------------------------------------------------------------- creation

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_writes_every_element(rng, dtype, n):
    value = random_array(rng, 1, dtype)[0]
    x = poisoned(n, dtype)
    x.fill(value)
    assert_same(x.get(), np.full(n, value, dtype))
    assert_same(hipkit.full(n, value, dtype).get(), np.full(n, value, dtype))
    assert_same(hipkit.zeros(n, dtype).get(), np.zeros(n, dtype))


def test_full_picks_the_dtype_numpy_picks():
    for value in (3, 2.5, np.float32(1.5), np.int32(7)):
        assert hipkit.full(4, value).dtype == np.full(4, value).dtype


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_arange_matches_numpy(rng, dtype, n):
    # Small integer start and step, so every value is exact in float32 too.
    start, step = int(rng.integers(-1000, 1000)), int(rng.integers(1, 5)) * int(rng.choice([-1, 1]))
    if np.dtype(dtype).kind == "f":
        start, step = start / 2, step / 2
    got = hipkit.arange(start, start + n * step, step, dtype=dtype).get()
    assert_same(got, (start + np.arange(n, dtype=np.float64) * step).astype(dtype))


def test_arange_forms_follow_numpy():
    for args in [(10,), (2, 11, 3), (5, 0, -2), (0, 1, 0.1), (1.0, 2.0, 0.3), (5, 1), (0, 0)]:
        expected = np.arange(*args)
        got = hipkit.arange(*args).get()
        assert got.dtype == expected.dtype and got.shape == expected.shape, args
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------- arithmetic

OPS = {  # name -> (hipkit function, NumPy function, dtypes)
    "add": (hipkit.add, np.add, DTYPES),
    "subtract": (hipkit.subtract, np.subtract, DTYPES),
    "multiply": (hipkit.multiply, np.multiply, DTYPES),
    "divide": (hipkit.divide, np.divide, FLOATS),
    "floor_divide": (hipkit.floor_divide, np.floor_divide, INTS),
}
OP_CASES = [(name, dtype) for name, (_, _, dtypes) in OPS.items() for dtype in dtypes]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name, dtype", OP_CASES)
def test_binary_op_matches_numpy(rng, name, dtype, n):
    ours, numpys, _ = OPS[name]
    a, b = random_array(rng, n, dtype), random_array(rng, n, dtype)
    with np.errstate(all="ignore"):  # wraparound and x // 0 are defined, and checked
        expected = numpys(a, b)
    da, db = hipkit.asarray(a), hipkit.asarray(b)
    out = poisoned(n, dtype)
    assert ours(da, db, out=out) is out
    assert_same(out.get(), expected)
    assert_same(ours(da, db).get(), expected)


@pytest.mark.parametrize("name, dtype", OP_CASES)
def test_out_may_be_an_operand(rng, name, dtype):
    ours, numpys, _ = OPS[name]
    a, b = random_array(rng, 1000, dtype), random_array(rng, 1000, dtype)
    with np.errstate(all="ignore"):
        expected = numpys(a, b)
    da, db = hipkit.asarray(a), hipkit.asarray(b)
    ours(da, db, out=da)
    assert_same(da.get(), expected)
    da = hipkit.asarray(a)
    ours(da, db, out=db)
    assert_same(db.get(), expected)


@pytest.mark.parametrize("dtype", FLOATS)
def test_operators_on_floats(rng, dtype):
    a, b = random_array(rng, 100, dtype), random_array(rng, 100, dtype)
    da, db = hipkit.asarray(a), hipkit.asarray(b)
    for got, expected in [(da + db, a + b), (da - db, a - b), (da * db, a * b), (da / db, a / b)]:
        assert_same(got.get(), expected)
    ptr = da.ptr
    da += db
    da *= db
    assert da.ptr == ptr
    assert_same(da.get(), (a + b) * b)


@pytest.mark.parametrize("dtype", INTS)
def test_operators_on_integers(rng, dtype):
    a, b = random_array(rng, 100, dtype), random_array(rng, 100, dtype)
    da, db = hipkit.asarray(a), hipkit.asarray(b)
    with np.errstate(all="ignore"):
        for got, expected in [(da + db, a + b), (da - db, a - b), (da * db, a * b), (da // db, a // b)]:
            assert_same(got.get(), expected)
        da //= db
        assert_same(da.get(), a // b)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_arithmetic_wraps_around(dtype):
    info = np.iinfo(dtype)
    a = hipkit.asarray(np.array([info.max, info.min, info.max, info.min], dtype))
    b = hipkit.asarray(np.array([1, 1, 2, -1], dtype))
    assert (a + b).get().tolist() == [info.min, info.min + 1, info.min + 1, info.max]
    assert (a - b).get().tolist() == [info.max - 1, info.max, info.max - 2, info.min + 1]
    assert (a * b).get().tolist() == [info.max, info.min, -2, info.min]


@pytest.mark.parametrize("dtype", INTS)
def test_floor_divide_rounds_down_and_defines_the_edge_cases(dtype):
    info = np.iinfo(dtype)
    a = np.array([7, -7, 7, -7, 0, 5, -5, info.min, info.min, info.max, info.min, -1, 6], dtype)
    b = np.array([2, 2, -2, -2, 3, 0, 0, -1, 1, -1, info.max, info.min, 3], dtype)
    got = (hipkit.asarray(a) // hipkit.asarray(b)).get()
    assert got.tolist() == [3, -4, -4, 3, 0, 0, 0, info.min, info.min, -info.max, -2, 0, 2]
    with np.errstate(all="ignore"):
        assert_same(got, a // b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_division_by_zero_follows_ieee(dtype):
    a = np.array([1, -1, 0, np.nan, np.inf], dtype)
    b = np.zeros(5, dtype)
    with np.errstate(all="ignore"):
        assert_same((hipkit.asarray(a) / hipkit.asarray(b)).get(), a / b)


# ------------------------------------------------------------------- axpy

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_axpy_matches_numpy(rng, dtype, n):
    x, y = random_array(rng, n, dtype), random_array(rng, n, dtype)
    alpha = random_array(rng, 1, dtype)[0]
    dx, dy = hipkit.asarray(x), hipkit.asarray(y)
    assert hipkit.axpy(alpha, dx, dy) is dy
    got = dy.get()
    if np.dtype(dtype).kind == "i":
        assert_same(got, alpha * x + y)  # wraps around, as NumPy's does
    else:
        # The GPU may fuse a*x + y into one rounding: allow the two roundings
        # of the unfused form, relative to the size of the terms.
        exact = np.float64(alpha) * x.astype(np.float64) + y.astype(np.float64)
        bound = 2 * np.finfo(dtype).eps * (np.abs(np.float64(alpha) * x) + np.abs(y))
        assert got.dtype == dtype
        assert np.all(np.abs(got - exact) <= bound)
        assert_same(hipkit.asarray(x).get(), x)  # x untouched


@pytest.mark.parametrize("dtype", DTYPES)
def test_axpy_with_x_equal_to_y(rng, dtype):
    x = random_array(rng, 1000, dtype) // 4 if np.dtype(dtype).kind == "i" else random_array(rng, 1000, dtype)
    dx = hipkit.asarray(x)
    hipkit.axpy(2, dx, dx)
    assert_same(dx.get(), (3 * x).astype(dtype))


# -------------------------------------------------------------------- sum

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_of_small_integers_is_exact(rng, dtype, n):
    # |partial sums| <= 8 * n < 2**24: exact in float32 in any order, so any
    # missing or doubled element shows.
    host = rng.integers(-8, 9, n).astype(dtype)
    assert float(hipkit.sum(hipkit.asarray(host))) == float(host.astype(np.float64).sum())


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_of_random_data_is_within_rounding(rng, dtype, n):
    host = random_array(rng, n, dtype)
    got = float(hipkit.asarray(host).sum())
    exact = math.fsum(host.astype(np.float64))
    # A tree reduction rounds about log2(n) times per element; allow a margin
    # for the sequential part each thread does first.
    bound = (math.log2(n + 1) + 32) * np.finfo(dtype).eps * float(np.abs(host).astype(np.float64).sum())
    assert type(got) is float
    assert abs(got - exact) <= bound


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_of_nothing_is_zero(dtype):
    assert float(hipkit.sum(hipkit.empty(0, dtype))) == 0.0


@pytest.mark.parametrize("n", [1, 7, 1000003])
@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_propagates_nan(rng, dtype, n):
    host = random_array(rng, n, dtype)
    host[rng.integers(n)] = np.nan
    assert math.isnan(float(hipkit.sum(hipkit.asarray(host))))


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_of_infinities(rng, dtype):
    host = random_array(rng, 1000, dtype)
    host[10] = np.inf
    assert float(hipkit.sum(hipkit.asarray(host))) == math.inf
    host[500] = -np.inf
    assert math.isnan(float(hipkit.sum(hipkit.asarray(host))))


def test_len_of_a_0d_array_is_refused():
    with pytest.raises(TypeError):
        len(hipkit.zeros(()))
