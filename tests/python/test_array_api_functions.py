"""The array API standard's functions hipkit composes of its existing ops (hipkit._array_api): eye, meshgrid,
tril, triu, roll, repeat, tile, tensordot, vecdot, the unique_* functions, searchsorted, take_along_axis and
diff, each checked against NumPy on fresh random data, at awkward sizes (0, 1, a prime), with views
(transposes, negative strides) as inputs, and with bad arguments; the inspection namespace
(__array_namespace_info__), finfo and iinfo, broadcast_arrays, var and std with a fractional correction, and
the boolean indexing the standard asks for. Everything runs on the current device (a GPU, or the CPU device),
and the results stay on the device of the inputs."""
import math
import warnings

import numpy as np
import pytest

import hipkit

INTS = ["int8", "uint8", "int32", "uint32", "int64", "uint64"]
FLOATS = ["float32", "float64"]


def _data(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -50), min(info.max, 50), size=shape, endpoint=True).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def _views(rng, shape, dtype):
    """(label, hipkit array, the same values in NumPy) for a contiguous array of `shape` and two views of
    that shape: a transpose and a negative-stride slice."""
    host = _data(rng, shape, dtype)
    yield "contiguous", hipkit.asarray(host), host
    base = _data(rng, shape[::-1], dtype)
    yield "transposed", hipkit.asarray(base).T, base.T
    if shape:
        wide = _data(rng, shape[:-1] + (2 * shape[-1],), dtype)
        yield "reversed, step -2", hipkit.asarray(wide)[..., ::-2], wide[..., ::-2]


def _same(got, want):
    """got (a hipkit array on the device the test runs on) equals want in shape, dtype and values (NaN
    equal to NaN)."""
    assert isinstance(got, hipkit.ndarray)
    assert got.device == hipkit.get_device()
    want = np.asarray(want)
    host = got.get()
    assert host.shape == want.shape, (host.shape, want.shape)
    assert host.dtype == want.dtype, (host.dtype, want.dtype)
    np.testing.assert_array_equal(host, want)


def _close(got, want):
    """_same for integers (exact), to a tolerance for floats (sums and products in another order)."""
    want = np.asarray(want)
    if want.dtype.kind != "f":
        return _same(got, want)
    assert got.shape == want.shape and got.dtype == want.dtype
    single = want.dtype == np.float32
    np.testing.assert_allclose(got.get(), want, rtol=1e-4 if single else 1e-12, atol=1e-3 if single else 1e-10)


# ---------------------------------------------------------------- eye, meshgrid, tril, triu

@pytest.mark.parametrize("n_rows, n_cols", [(0, None), (1, None), (5, None), (3, 7), (7, 3), (0, 4), (4, 0)])
@pytest.mark.parametrize("k", [0, 1, -1, 2, -3, 8, -8])
def test_eye(n_rows, n_cols, k):
    _same(hipkit.eye(n_rows, n_cols, k=k), np.eye(n_rows, n_cols, k=k))
    for dtype in ("bool", "int8", "uint64", "float32"):
        _same(hipkit.eye(n_rows, n_cols, k=k, dtype=dtype), np.eye(n_rows, n_cols, k=k, dtype=dtype))


def test_eye_device_and_bad_arguments():
    x = hipkit.eye(3, device="cpu")
    assert x.device.is_cpu and np.array_equal(x.get(), np.eye(3))
    assert hipkit.eye(2, device=hipkit.get_device()).device == hipkit.get_device()
    with pytest.raises(ValueError, match="n_rows must not be negative"):
        hipkit.eye(-1)
    with pytest.raises(TypeError, match="n_cols must be an integer"):
        hipkit.eye(2, 2.5)
    with pytest.raises(TypeError, match="k must be an integer"):
        hipkit.eye(2, k=1.0)
    with pytest.raises(TypeError):
        hipkit.eye(2, 2, 1)  # k is keyword-only


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(), (5,), (3, 4), (0, 3), (2, 1, 5), (1, 7, 2, 3)])
def test_meshgrid(rng, indexing, sizes):
    hosts = [_data(rng, (n,), "float32") for n in sizes]
    arrays = [hipkit.asarray(h) for h in hosts]
    got = hipkit.meshgrid(*arrays, indexing=indexing)
    want = np.meshgrid(*hosts, indexing=indexing)
    assert isinstance(got, list) and len(got) == len(want)
    for g, w in zip(got, want):
        _same(g, w)
    if got and got[0].size:
        before = arrays[0].get()
        got[0][...] = 0  # a new array, not a view of the input
        np.testing.assert_array_equal(arrays[0].get(), before)


def test_meshgrid_views_and_bad_arguments(rng):
    host = _data(rng, (11,), "int32")
    x = hipkit.asarray(host)[::-3]
    y = hipkit.asarray(host)[2:6]
    for g, w in zip(hipkit.meshgrid(x, y), np.meshgrid(host[::-3], host[2:6])):
        _same(g, w)
    with pytest.raises(ValueError, match="must have one dtype"):
        hipkit.meshgrid(hipkit.zeros(2, dtype="float32"), hipkit.zeros(2, dtype="float64"))
    with pytest.raises(ValueError, match="one-dimensional"):
        hipkit.meshgrid(hipkit.zeros((2, 2)))
    with pytest.raises(ValueError, match="indexing must be 'xy' or 'ij'"):
        hipkit.meshgrid(hipkit.zeros(2), indexing="ji")
    with pytest.raises(TypeError, match="must be a hipkit.ndarray"):
        hipkit.meshgrid(np.zeros(2))


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (5, 7), (7, 5), (3, 4, 5), (2, 0, 3)])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float32", "float64"])
def test_tril_triu(rng, name, shape, dtype):
    for k in (0, 1, -1, 3, -6, 100):
        for label, x, host in _views(rng, shape, dtype):
            _same(getattr(hipkit, name)(x, k=k), getattr(np, name)(host, k=k))


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_bad_arguments(name):
    fn = getattr(hipkit, name)
    with pytest.raises(ValueError, match="at least two dimensions"):
        fn(hipkit.zeros(3))
    with pytest.raises(TypeError, match="k must be an integer"):
        fn(hipkit.zeros((2, 2)), k=0.5)
    with pytest.raises(TypeError, match="must be a hipkit.ndarray"):
        fn(np.zeros((2, 2)))


# ---------------------------------------------------------------- roll, repeat, tile

@pytest.mark.parametrize("shape", [(), (0,), (1,), (13,), (4, 7), (3, 0, 2), (2, 3, 5)])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_roll(rng, shape, dtype):
    cases = [(3, None), (-5, None), (0, None), ((1, 2), None)]
    for axis in range(len(shape)):
        cases += [(2, axis), (-1, axis - len(shape)), (shape[axis] * 3 + 1, axis), (0, axis)]
    if len(shape) >= 2:
        cases += [((1, -2), (0, 1)), (4, (1, 0)), ((2, 3), (0, 0)), ((1, 1), (-1, 0))]
    for shift, axis in cases:
        for label, x, host in _views(rng, shape, dtype):
            got = hipkit.roll(x, shift, axis=axis)
            _same(got, np.roll(host, shift, axis=axis))
            if got.size:
                assert got.ptr != x.ptr  # a new array, also when nothing moves


def test_roll_bad_arguments():
    x = hipkit.zeros((2, 3))
    with pytest.raises(ValueError, match="same length"):
        hipkit.roll(x, (1, 2, 3), axis=(0, 1))
    with pytest.raises(np.exceptions.AxisError):
        hipkit.roll(x, 1, axis=2)
    with pytest.raises(TypeError, match="shift must be an integer"):
        hipkit.roll(x, 1.5)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 5), (2, 0, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float64"])
def test_repeat(rng, shape, dtype):
    for label, x, host in _views(rng, shape, dtype):
        for count in (0, 1, 3):
            _same(hipkit.repeat(x, count), np.repeat(host, count))
            for axis in range(-len(shape), len(shape)):
                _same(hipkit.repeat(x, count, axis=axis), np.repeat(host, count, axis=axis))
        for axis in [None] + list(range(len(shape))):
            n = host.size if axis is None else host.shape[axis]
            counts = rng.integers(0, 4, size=n)
            for repeats in (counts, counts[:1] + 1, np.zeros(n, np.int64)):
                for rdtype in ("int64", "uint8", "int32"):
                    got = hipkit.repeat(x, hipkit.asarray(repeats.astype(rdtype)), axis=axis)
                    _same(got, np.repeat(host, repeats, axis=axis))


def test_repeat_bad_arguments():
    x = hipkit.zeros((2, 3))
    with pytest.raises(ValueError, match="must not be negative"):
        hipkit.repeat(x, -1)
    with pytest.raises(ValueError, match="must not be negative"):
        hipkit.repeat(x, hipkit.asarray(np.array([1, -1, 2])), axis=1)
    with pytest.raises(ValueError, match="1-d array of 1 or 3 elements"):
        hipkit.repeat(x, hipkit.asarray(np.array([1, 2])), axis=1)
    with pytest.raises(TypeError, match="integer dtype"):
        hipkit.repeat(x, hipkit.asarray(np.array([1.0, 2.0, 3.0])), axis=1)
    with pytest.raises(TypeError, match="repeats .*must be an integer"):
        hipkit.repeat(x, 2.0)
    with pytest.raises(np.exceptions.AxisError):
        hipkit.repeat(x, 2, axis=2)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (5,), (2, 3), (3, 1, 2)])
@pytest.mark.parametrize("reps", [(), (0,), (1,), (3,), (2, 2), (1, 3), (2, 0, 1), (2, 1, 3, 1)])
def test_tile(rng, shape, reps):
    for label, x, host in _views(rng, shape, "int32"):
        got = hipkit.tile(x, reps)
        _same(got, np.tile(host, reps))
        if got.size and x.size:
            assert got.ptr != x.ptr


def test_tile_bad_arguments():
    with pytest.raises(TypeError, match="tuple of ints"):
        hipkit.tile(hipkit.zeros(2), 2)
    with pytest.raises(ValueError, match="must not be negative"):
        hipkit.tile(hipkit.zeros(2), (-1,))
    with pytest.raises(ValueError, match="at most 32 dimensions"):
        hipkit.tile(hipkit.zeros(2), (1,) * 33)


# ---------------------------------------------------------------- tensordot, vecdot


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64", "float32", "float64"])
def test_tensordot(rng, dtype):
    cases = [((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 6), 1), ((2, 3), (4,), 0), ((5,), (5,), 1),
             ((0, 3), (3, 2), 1), ((3, 0), (0, 2), 1), ((2, 3, 4), (3, 2, 5), ((0, 1), (1, 0))),
             ((2, 3, 4), (4, 3), ((-1, 1), (0, -1))), ((3,), (2,), ((), ())), ((), (), 0), ((7, 1), (1, 13), 1)]
    for shape1, shape2, axes in cases:
        for (_, x1, h1), (_, x2, h2) in zip(_views(rng, shape1, dtype), _views(rng, shape2, dtype)):
            got = hipkit.tensordot(x1, x2, axes=axes)
            want = np.tensordot(h1, h2, axes=axes)
            _close(got, want)


def test_tensordot_integers_are_exact(rng):
    """int64 products beyond 2**53 (and wrapping past 2**63) as NumPy computes them: matmul's float64 would
    round them."""
    h1 = rng.integers(2**40, 2**50, size=(3, 4), dtype=np.int64)
    h2 = rng.integers(2**40, 2**50, size=(4, 2), dtype=np.int64)
    _same(hipkit.tensordot(hipkit.asarray(h1), hipkit.asarray(h2), axes=1), np.tensordot(h1, h2, axes=1))


def test_tensordot_mixed_dtypes_promote(rng):
    h1, h2 = _data(rng, (3, 4), "int8"), _data(rng, (4, 2), "int32")
    _same(hipkit.tensordot(hipkit.asarray(h1), hipkit.asarray(h2), axes=1), np.tensordot(h1, h2, axes=1))


def test_tensordot_bad_arguments():
    a, b = hipkit.zeros((2, 3)), hipkit.zeros((3, 4))
    with pytest.raises(ValueError, match="contracted axes must match"):
        hipkit.tensordot(a, b, axes=2)
    with pytest.raises(ValueError, match="between 0 and"):
        hipkit.tensordot(a, b, axes=-1)
    with pytest.raises(ValueError, match="between 0 and"):
        hipkit.tensordot(a, b, axes=3)
    with pytest.raises(ValueError, match="one length"):
        hipkit.tensordot(a, b, axes=((1,), (0, 1)))
    with pytest.raises(ValueError, match="repeated"):
        hipkit.tensordot(hipkit.zeros((3, 3)), hipkit.zeros((3, 3)), axes=((0, 0), (0, 1)))
    with pytest.raises(TypeError, match="only numeric dtypes"):
        hipkit.tensordot(a.astype(bool), b.astype(bool), axes=1)
    with pytest.raises(TypeError):
        hipkit.tensordot(a, b, 1)  # axes is keyword-only


@pytest.mark.parametrize("dtype", ["int8", "uint32", "int64", "float32", "float64"])
def test_vecdot(rng, dtype):
    cases = [((5,), (5,), -1), ((0,), (0,), -1), ((3, 7), (7,), -1), ((4, 1, 6), (3, 6), -1),
             ((6, 3), (6, 1), -2), ((2, 5, 3), (5, 3), -2), ((1, 13), (13,), -1), ((2, 1), (3, 1, 1), -1)]
    for shape1, shape2, axis in cases:
        for (_, x1, h1), (_, x2, h2) in zip(_views(rng, shape1, dtype), _views(rng, shape2, dtype)):
            got = hipkit.vecdot(x1, x2, axis=axis)
            want = np.vecdot(h1, h2, axis=axis)
            _close(got, want)


def test_vecdot_bad_arguments():
    a = hipkit.zeros((2, 3))
    with pytest.raises(ValueError, match="must match"):
        hipkit.vecdot(a, hipkit.zeros((2, 4)))
    with pytest.raises(ValueError, match="axis must be negative"):
        hipkit.vecdot(a, a, axis=1)
    with pytest.raises(ValueError, match="out of bounds"):
        hipkit.vecdot(a, a, axis=-3)
    with pytest.raises(ValueError):
        hipkit.vecdot(a, hipkit.zeros((4, 3)))  # the other axes do not broadcast
    with pytest.raises(TypeError, match="only numeric dtypes"):
        hipkit.vecdot(a.astype(bool), a.astype(bool))


@pytest.mark.parametrize("dtype", ["int8", "uint64", "float32"])
def test_conj_of_real_dtypes_is_a_copy(rng, dtype):
    for label, x, host in _views(rng, (3, 5), dtype):
        got = hipkit.conj(x)
        _same(got, np.conj(host))
        assert got.ptr != x.ptr
    np.testing.assert_array_equal(hipkit.conj(hipkit.asarray([True, False])).get(), [True, False])  # NumPy's


# ---------------------------------------------------------------- unique_*

def _unique_reference(host):
    values, indices, inverse, counts = np.unique(host, return_index=True, return_inverse=True,
                                                 return_counts=True, equal_nan=False)
    return values, indices, inverse.reshape(host.shape), counts


def _unique_cases(rng):
    for shape in [(0,), (1,), (17,), (5, 7), (2, 0, 3), ()]:
        for dtype in ["bool", "int8", "uint64", "int32", "float32", "float64"]:
            for label, x, host in _views(rng, shape, dtype):
                if np.dtype(dtype).kind in "iu":  # duplicates, many
                    host = host % 5
                    x = hipkit.asarray(host)
                yield x, host
    special = np.array([np.nan, 0.0, -0.0, 1.0, np.nan, np.inf, -np.inf, 1.0, np.nan, -0.0])
    yield hipkit.asarray(special), special
    yield hipkit.asarray(special.reshape(2, 5)).T, special.reshape(2, 5).T
    yield hipkit.asarray(np.full(7, np.nan, np.float32)), np.full(7, np.nan, np.float32)


def test_unique_all(rng):
    for x, host in _unique_cases(rng):
        got = hipkit.unique_all(x)
        want = _unique_reference(host)
        assert got._fields == ("values", "indices", "inverse_indices", "counts")
        for name, g, w in zip(got._fields, got, want):
            _same(g, w)
            assert getattr(got, name) is g
        assert got.inverse_indices.shape == x.shape


def test_unique_counts_inverse_values(rng):
    for x, host in _unique_cases(rng):
        values, indices, inverse, counts = _unique_reference(host)
        c = hipkit.unique_counts(x)
        assert c._fields == ("values", "counts")
        _same(c.values, values)
        _same(c.counts, counts)
        i = hipkit.unique_inverse(x)
        assert i._fields == ("values", "inverse_indices")
        _same(i.values, values)
        _same(i.inverse_indices, inverse)
        _same(hipkit.unique_values(x), values)


def test_unique_nan_each_distinct_and_signed_zeros_merged():
    x = hipkit.asarray(np.array([np.nan, -0.0, 0.0, np.nan]))
    r = hipkit.unique_all(x)
    assert r.values.shape == (3,) and np.isnan(r.values.get()[1:]).all()
    np.testing.assert_array_equal(r.counts.get(), [2, 1, 1])
    np.testing.assert_array_equal(r.indices.get(), [1, 0, 3])
    np.testing.assert_array_equal(r.inverse_indices.get(), [1, 0, 0, 2])


def test_unique_bad_arguments():
    for fn in (hipkit.unique_all, hipkit.unique_counts, hipkit.unique_inverse, hipkit.unique_values):
        with pytest.raises(TypeError, match="must be a hipkit.ndarray"):
            fn(np.arange(3))


# ---------------------------------------------------------------- searchsorted

@pytest.mark.parametrize("n", [0, 1, 2, 7, 64, 101])
@pytest.mark.parametrize("dtype", ["int8", "uint32", "int64", "float32", "float64"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(rng, n, dtype, side):
    haystack = np.sort(_data(rng, (n,), dtype) % 9 if np.dtype(dtype).kind in "iu" else _data(rng, (n,), dtype))
    queries = [_data(rng, (23,), dtype) % 11, _data(rng, (0,), dtype), _data(rng, (3, 4), dtype),
               haystack[::-1].copy()]
    x1 = hipkit.asarray(haystack)
    for q in queries:
        _same(hipkit.searchsorted(x1, hipkit.asarray(q), side=side), np.searchsorted(haystack, q, side=side))
        if q.ndim == 2:  # a transposed view of queries
            _same(hipkit.searchsorted(x1, hipkit.asarray(q).T, side=side),
                  np.searchsorted(haystack, q.T, side=side))
    if n:  # x1 given unsorted, with the permutation that sorts it
        shuffled = rng.permutation(haystack)
        sorter = np.argsort(shuffled, kind="stable")
        q = queries[0]
        _same(hipkit.searchsorted(hipkit.asarray(shuffled), hipkit.asarray(q), side=side,
                                  sorter=hipkit.asarray(sorter)),
              np.searchsorted(shuffled, q, side=side, sorter=sorter))
        reversed_view = hipkit.asarray(haystack[::-1].copy())[::-1]  # x1 as a negative-stride view
        _same(hipkit.searchsorted(reversed_view, hipkit.asarray(q), side=side), np.searchsorted(haystack, q, side=side))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nan_sorts_last(rng, side):
    haystack = np.sort(np.concatenate([rng.standard_normal(10), [np.nan, np.nan, np.inf, -np.inf, 0.0, -0.0]]))
    q = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 5.0, -100.0, np.nan])
    _same(hipkit.searchsorted(hipkit.asarray(haystack), hipkit.asarray(q), side=side),
          np.searchsorted(haystack, q, side=side))


def test_searchsorted_scalar_and_mixed_dtypes():
    x1 = hipkit.asarray(np.array([1, 3, 3, 7], np.int32))
    got = hipkit.searchsorted(x1, 3, side="right")
    assert got.shape == () and got.dtype == np.int64 and got.item() == 3
    assert hipkit.searchsorted(x1, 2.5).item() == 1
    _same(hipkit.searchsorted(x1, hipkit.asarray(np.array([2.5, 7.0]))), [1, 3])


def test_searchsorted_bad_arguments():
    x1 = hipkit.asarray(np.arange(4.0))
    with pytest.raises(ValueError, match="one-dimensional"):
        hipkit.searchsorted(hipkit.zeros((2, 2)), x1)
    with pytest.raises(ValueError, match="side must be 'left' or 'right'"):
        hipkit.searchsorted(x1, x1, side="middle")
    with pytest.raises(ValueError, match="sorter must be an integer array"):
        hipkit.searchsorted(x1, x1, sorter=hipkit.zeros(3, dtype="int64"))
    with pytest.raises(TypeError, match="only numeric dtypes"):
        hipkit.searchsorted(x1.astype(bool), x1)
    with pytest.raises(TypeError, match="x2"):
        hipkit.searchsorted(x1, [1.0])


# ---------------------------------------------------------------- take_along_axis

@pytest.mark.parametrize("shape", [(1,), (13,), (4, 7), (3, 0, 2), (2, 3, 5)])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float64"])
def test_take_along_axis(rng, shape, dtype):
    for label, x, host in _views(rng, shape, dtype):
        for axis in range(-len(shape), len(shape)):
            order = np.argsort(host, axis=axis, kind="stable")
            _same(hipkit.take_along_axis(x, hipkit.asarray(order), axis=axis),
                  np.take_along_axis(host, order, axis=axis))
            n = host.shape[axis]
            if n:  # other index shapes along axis, negative indices, broadcasting the other axes
                ishape = tuple(1 if d == axis % len(shape) else m for d, m in enumerate(shape))
                ishape = ishape[:axis % len(shape)] + (5,) + ishape[axis % len(shape) + 1:]
                index = rng.integers(-n, n, size=ishape)
                _same(hipkit.take_along_axis(x, hipkit.asarray(index.astype(np.int32)), axis=axis),
                      np.take_along_axis(host, index, axis=axis))
                ones = tuple(1 if d != axis % len(shape) else 3 for d in range(len(shape)))
                index = rng.integers(0, n, size=ones)
                _same(hipkit.take_along_axis(x, hipkit.asarray(index), axis=axis),
                      np.take_along_axis(host, index, axis=axis))


def test_take_along_axis_broadcasts_x(rng):
    host = _data(rng, (1, 6), "float32")
    index = rng.integers(0, 6, size=(4, 3))
    _same(hipkit.take_along_axis(hipkit.asarray(host), hipkit.asarray(index), axis=1),
          np.take_along_axis(host, index, axis=1))


def test_take_along_axis_bad_arguments():
    x = hipkit.zeros((2, 3))
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 3"):
        hipkit.take_along_axis(x, hipkit.asarray(np.array([[0, 3]])), axis=1)
    with pytest.raises(IndexError, match="out of bounds"):
        hipkit.take_along_axis(x, hipkit.asarray(np.array([[-4]])), axis=1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        hipkit.take_along_axis(x, hipkit.asarray(np.array([0, 1])), axis=1)
    with pytest.raises(TypeError, match="integer dtype"):
        hipkit.take_along_axis(x, hipkit.zeros((2, 1)), axis=1)
    with pytest.raises(ValueError, match="do not broadcast"):
        hipkit.take_along_axis(x, hipkit.zeros((3, 1), dtype="int64"), axis=1)
    with pytest.raises(np.exceptions.AxisError):
        hipkit.take_along_axis(x, hipkit.zeros((2, 1), dtype="int64"), axis=2)


# ---------------------------------------------------------------- diff

@pytest.mark.parametrize("shape", [(0,), (1,), (2,), (13,), (4, 7), (3, 0, 5)])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32"])
def test_diff(rng, shape, dtype):
    for label, x, host in _views(rng, shape, dtype):
        for axis in range(-len(shape), len(shape)):
            for n in (0, 1, 2, 3):
                _same(hipkit.diff(x, axis=axis, n=n), np.diff(host, axis=axis, n=n))
            before = _data(rng, shape[:axis % len(shape)] + (2,) + shape[axis % len(shape) + 1:], dtype)
            after = _data(rng, shape[:axis % len(shape)] + (1,) + shape[axis % len(shape) + 1:], dtype)
            _same(hipkit.diff(x, axis=axis, prepend=hipkit.asarray(before), append=hipkit.asarray(after)),
                  np.diff(host, axis=axis, prepend=before, append=after))
            _same(hipkit.diff(x, axis=axis, n=2, append=hipkit.asarray(after)),
                  np.diff(host, axis=axis, n=2, append=after))


def test_diff_scalar_edges_and_bad_arguments():
    host = np.array([3, 1, 4, 1, 5], np.int32)
    x = hipkit.asarray(host)
    # Python scalars take x's dtype (NumPy's diff would make them int64 arrays first)
    _same(hipkit.diff(x, prepend=0, append=9), np.diff(host, prepend=np.int32(0), append=np.int32(9)))
    with pytest.raises(ValueError, match="at least one dimension"):
        hipkit.diff(hipkit.asarray(np.float64(1)))
    with pytest.raises(ValueError, match="n must not be negative"):
        hipkit.diff(x, n=-1)
    with pytest.raises(ValueError, match="prepend has shape"):
        hipkit.diff(hipkit.zeros((2, 3)), axis=1, prepend=hipkit.zeros((3, 1)))
    with pytest.raises(np.exceptions.AxisError):
        hipkit.diff(x, axis=1)


# ---------------------------------------------------------------- inspection, finfo, iinfo

def test_array_namespace_info():
    info = hipkit.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert caps["max dimensions"] == 32
    devices = info.devices()
    assert isinstance(devices, list) and len(devices) == hipkit.device_count()
    assert all(isinstance(d, hipkit.Device) for d in devices)
    assert info.default_device() == hipkit.get_device() and info.default_device() in devices
    with hipkit.Device("cpu"):
        assert info.default_device().is_cpu
    for device in [None] + devices:
        defaults = info.default_dtypes(device=device)
        assert defaults == {"real floating": np.float64, "complex floating": np.complex128, "integral": np.int64,
                            "indexing": np.int64}
        assert hipkit.asarray(1.0, device=device).dtype == defaults["real floating"]
        assert hipkit.asarray(1, device=device).dtype == defaults["integral"]
        assert hipkit.argsort(hipkit.zeros(2, device=device)).dtype == defaults["indexing"]
    everything = info.dtypes()
    assert list(everything) == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                "float32", "float64", "complex64", "complex128"]
    assert all(np.dtype(getattr(hipkit, n)) == dt for n, dt in everything.items())
    assert list(info.dtypes(kind="signed integer")) == ["int8", "int16", "int32", "int64"]
    assert list(info.dtypes(kind="unsigned integer")) == ["uint8", "uint16", "uint32", "uint64"]
    assert list(info.dtypes(kind="integral")) == ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                                  "uint64"]
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind="complex floating")) == ["complex64", "complex128"]
    assert list(info.dtypes(kind="bool", device=devices[-1])) == ["bool"]
    assert list(info.dtypes(kind=("bool", "real floating"))) == ["bool", "float32", "float64"]
    assert list(info.dtypes(kind="numeric")) == list(everything)[1:]
    with pytest.raises(ValueError, match="kind must be"):
        info.dtypes(kind="floating")
    with pytest.raises(hipkit.InvalidDeviceError):
        info.dtypes(device=hipkit.device_count())
    with pytest.raises(TypeError):
        info.dtypes("bool")  # keyword-only


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_finfo_gives_python_numbers(dtype):
    for arg in (getattr(hipkit, dtype), np.dtype(dtype), hipkit.zeros(2, dtype=dtype)):
        info = hipkit.finfo(arg)
        ref = np.finfo(dtype)
        assert type(info.bits) is int and info.bits == ref.bits
        for name in ("eps", "max", "min", "smallest_normal"):
            value = getattr(info, name)
            assert type(value) is float and value == float(getattr(ref, name)), name
        assert info.dtype == np.dtype(dtype)
    with pytest.raises(ValueError, match="not a floating-point dtype"):
        hipkit.finfo(hipkit.int32)


@pytest.mark.parametrize("dtype", INTS)
def test_iinfo_gives_python_ints(dtype):
    for arg in (getattr(hipkit, dtype), hipkit.zeros(2, dtype=dtype)):
        info = hipkit.iinfo(arg)
        ref = np.iinfo(dtype)
        for name in ("bits", "max", "min"):
            value = getattr(info, name)
            assert type(value) is int and value == int(getattr(ref, name)), name
        assert info.dtype == np.dtype(dtype)
    with pytest.raises(ValueError, match="not an integer dtype"):
        hipkit.iinfo(hipkit.float32)


def test_broadcast_arrays_gives_a_list():
    a, b = hipkit.zeros((3, 1)), hipkit.zeros((4,))
    out = hipkit.broadcast_arrays(a, b)
    assert isinstance(out, list) and [o.shape for o in out] == [(3, 4), (3, 4)]
    assert hipkit.broadcast_arrays() == []


# ---------------------------------------------------------------- var and std with a fractional correction

@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("correction", [0.5, 1.5, 2.25, -0.5, 6.5])
def test_var_std_fractional_correction(rng, name, correction):
    for shape, axis in [((7,), None), ((4, 5), 0), ((4, 5), 1), ((2, 3, 4), (0, 2)), ((), None)]:
        for dtype in ("float32", "float64", "int32"):
            for label, x, host in _views(rng, shape, dtype):
                for keepdims in (False, True):
                    with warnings.catch_warnings():  # "Degrees of freedom <= 0": NumPy's inf, hipkit's too
                        warnings.simplefilter("ignore", RuntimeWarning)
                        want = getattr(np, name)(host, axis=axis, ddof=correction, keepdims=keepdims)
                    got = getattr(hipkit, name)(x, axis=axis, correction=correction, keepdims=keepdims)
                    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
                    np.testing.assert_allclose(got.get(), want, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_var_fractional_correction_into_out_and_errors(rng):
    host = rng.standard_normal((3, 4))
    out = hipkit.empty(4)
    assert hipkit.var(hipkit.asarray(host), axis=0, correction=0.5, out=out) is out
    np.testing.assert_allclose(out.get(), np.var(host, axis=0, ddof=0.5), rtol=1e-12)
    with pytest.raises(ValueError, match="give only one"):
        hipkit.var(hipkit.asarray(host), ddof=1, correction=0.5)
    with pytest.raises(TypeError, match="correction must be a real number"):
        hipkit.std(hipkit.asarray(host), correction=[1])
    assert math.isinf(hipkit.var(hipkit.asarray(host), correction=12.5).item())


@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint64", "float32"])
@pytest.mark.parametrize("to", ["int8", "uint8", "int32", "uint32", "int64", "float32", "float64"])
def test_sum_prod_dtype_is_the_result_dtype(rng, name, dtype, to):
    """sum(x, dtype=d) and prod(x, dtype=d) give d, as NumPy's (and the standard's): integers wrap as they
    do in d."""
    host = _data(rng, (4, 9), dtype)
    if dtype == "uint8" and np.dtype(to).kind != "f":
        host = host * np.uint8(7)  # past 255 (not for floats: a product past the range is inf, or NaN by order)
    if name == "prod" and np.dtype(to).kind == "f":  # no overflow to inf, whose NaN or not depends on the order
        host = host / 8 if host.dtype.kind == "f" else host if host.dtype == bool else host % 4
    if host.dtype.kind == "f" and np.dtype(to).kind == "u":
        host = np.abs(host)  # a negative float's conversion to an unsigned integer is undefined (C, NumPy)
    views = [(hipkit.asarray(host), host), (hipkit.asarray(host.T.copy()).T, host),
             (hipkit.asarray(host[::-1].copy())[::-1], host)]
    for x, view in views:
        for axis in (None, 0, 1):
            _close(getattr(hipkit, name)(x, axis=axis, dtype=to), getattr(np, name)(view, axis=axis, dtype=to))


# ---------------------------------------------------------------- boolean indexing (the standard's)

def test_zero_d_boolean_index(rng):
    host = _data(rng, (2, 3), "float32")
    x = hipkit.asarray(host)
    for key in (True, False, np.True_, np.False_):
        _same(x[key], host[key])
        _same(x[(key,)], host[(key,)])
    for flag in (True, False):
        _same(x[hipkit.asarray(np.array(flag))], host[np.array(flag)])
    scalar = hipkit.asarray(np.float64(2.5))
    _same(scalar[True], np.float64(2.5)[True])
    _same(scalar[hipkit.asarray(np.array(False))], np.float64(2.5)[np.array(False)])
    copy = x[True]
    copy[...] = 0
    np.testing.assert_array_equal(x.get(), host)  # a copy, as NumPy's
    x[True] = 7
    assert (x.get() == 7).all()
    x[False] = hipkit.zeros((2, 3))
    assert (x.get() == 7).all()
    with pytest.raises(ValueError, match="could not be broadcast"):
        x[False] = hipkit.zeros((4,))


@pytest.mark.parametrize("shape, k", [((2, 3, 4), 2), ((2, 3, 4), 1), ((5, 1, 3, 2), 3), ((0, 3, 2), 2),
                                      ((4, 5), 1)])
def test_boolean_index_of_the_leading_axes(rng, shape, k):
    for label, x, host in _views(rng, shape, "int32"):
        mask = rng.random(shape[:k]) < 0.5
        _same(x[hipkit.asarray(mask)], host[mask])
        _same(x[mask], host[mask])
        target = host.copy()
        y = hipkit.asarray(target)
        y[hipkit.asarray(mask)] = -1
        target[mask] = -1
        np.testing.assert_array_equal(y.get(), target)
    with pytest.raises(IndexError, match="did not match"):
        hipkit.zeros(shape)[hipkit.asarray(np.ones(tuple(n + 1 for n in shape[:k]), bool))]


# ---------------------------------------------------------------- __dlpack__'s keywords (2023.12)

def _capsule_flags(capsule):
    from hipkit import interop
    address = interop._api.PyCapsule_GetPointer(id(capsule), interop._VERSIONED)
    return interop._ManagedVersioned.from_address(address).flags


def test_dlpack_sets_is_copied_when_it_copies(rng):
    x = hipkit.asarray(rng.standard_normal(5))
    assert _capsule_flags(x.__dlpack__(max_version=(1, 0))) & 2 == 0
    assert _capsule_flags(x.__dlpack__(max_version=(1, 0), copy=False)) & 2 == 0
    assert _capsule_flags(x.__dlpack__(max_version=(1, 0), copy=True)) & 2 == 2
    host = x.__dlpack__(max_version=(1, 0), dl_device=(1, 0))  # kDLCPU: a copy unless x is there already
    assert _capsule_flags(host) & 2 == (0 if x.device.is_cpu else 2)
    if x.device.is_cpu:  # NumPy passes copy= on to __dlpack__
        copied = np.from_dlpack(x, copy=True)
        np.testing.assert_array_equal(copied, x.get())
        assert copied.ctypes.data != x.ptr


def test_dlpack_stream_and_device_arguments():
    import enum

    class DL(enum.Enum):
        CPU = 1
        VULKAN = 7

    x = hipkit.zeros(3)
    x.__dlpack__(dl_device=(DL.CPU, 0))  # the standard's enum members, or ints
    if x.device.is_cpu:  # host memory: shared, no copy
        x.__dlpack__(copy=False, dl_device=(1, 0))
    else:  # a GPU array's host copy is a copy: refused with copy=False, as the standard says
        with pytest.raises(BufferError, match="copy=False"):
            x.__dlpack__(copy=False, dl_device=(1, 0))
    with pytest.raises(BufferError, match="not \\(7, 0\\)"):
        x.__dlpack__(dl_device=(DL.VULKAN, 0))
    if x.device.is_cpu:  # host memory takes no stream
        for stream in (1, -1, 0):
            with pytest.raises(ValueError, match="stream must be None for an array in host memory"):
                x.__dlpack__(stream=stream)
    else:
        cuda = hipkit.platform() == "nvidia"
        for stream in (None, -1, 1, 2) if cuda else (None, -1, 0):
            x.__dlpack__(stream=stream)
        with pytest.raises(ValueError, match="not allowed"):
            x.__dlpack__(stream=0 if cuda else 1)
        with pytest.raises(ValueError, match="stream must be None for an array in host memory"):
            x.__dlpack__(stream=1 if cuda else 0, dl_device=(1, 0))
        with pytest.raises(ValueError, match="at least -1"):
            x.__dlpack__(stream=-2)


# ---------------------------------------------------------------- the linalg extension's composed part

def test_linalg_names_are_the_namespaces():
    for name in ("matmul", "matrix_transpose", "tensordot", "vecdot"):
        assert getattr(hipkit.linalg, name) is getattr(hipkit, name)


@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (4, 7), (7, 4), (3, 5, 5), (2, 0, 3)])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "float32"])
def test_linalg_diagonal_and_trace(rng, shape, dtype):
    for label, x, host in _views(rng, shape, dtype):
        for offset in (0, 1, -1, 3, -5, 9):
            got = hipkit.linalg.diagonal(x, offset=offset)
            _same(got, np.linalg.diagonal(host, offset=offset))
            if dtype != "bool":
                got, want = hipkit.linalg.trace(x, offset=offset), np.linalg.trace(host, offset=offset)
                if np.dtype(dtype).kind == "f":  # a sum: the GPU adds in another order than NumPy
                    assert got.dtype == want.dtype
                    _close(got, want)
                else:
                    _same(got, want)
                _close(hipkit.linalg.trace(x, offset=offset, dtype="float64"),
                       np.linalg.trace(host, offset=offset, dtype="float64"))
        if x.size:  # a view of x, as NumPy's: writing through it writes x's diagonal
            hipkit.linalg.diagonal(x, offset=1)[...] = 0
            written = x.get()
            assert not np.linalg.diagonal(written, offset=1).any()
            off = np.triu(np.ones(shape[-2:], bool), 1) & ~np.triu(np.ones(shape[-2:], bool), 2)
            np.testing.assert_array_equal(written[..., ~off], host[..., ~off])
    with pytest.raises(ValueError, match="at least two dimensions"):
        hipkit.linalg.diagonal(hipkit.zeros(3))
    with pytest.raises(TypeError, match="only numeric dtypes"):
        hipkit.linalg.trace(hipkit.zeros((2, 2), dtype=bool))


@pytest.mark.parametrize("n, m", [(0, 3), (1, 1), (5, 7)])
def test_linalg_outer(rng, n, m):
    for (_, x1, h1), (_, x2, h2) in zip(_views(rng, (n,), "int32"), _views(rng, (m,), "float32")):
        _close(hipkit.linalg.outer(x1, x2), np.linalg.outer(h1, h2))
    with pytest.raises(ValueError, match="one-dimensional"):
        hipkit.linalg.outer(hipkit.zeros((2, 2)), hipkit.zeros(2))
    with pytest.raises(TypeError, match="only numeric dtypes"):
        hipkit.linalg.outer(hipkit.zeros(2, dtype=bool), hipkit.zeros(2, dtype=bool))


@pytest.mark.parametrize("ord", [2, 1, 0, math.inf, -math.inf, 3, 0.5, -1])
def test_linalg_vector_norm(rng, ord):
    cases = [((7,), None), ((4, 5), None), ((4, 5), 1), ((4, 5), -2), ((2, 3, 4), (0, 2)), ((), None)]
    if abs(ord) != math.inf:  # hipkit's max and min refuse every empty array (NumPy's only an empty reduction)
        cases.append(((0, 3), 1))
    for shape, axis in cases:
        for dtype in ("float32", "float64", "int32"):
            for label, x, host in _views(rng, shape, dtype):
                for keepdims in (False, True):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)  # 0 ** -1
                        want = np.linalg.vector_norm(host, axis=axis, keepdims=keepdims, ord=ord)
                    got = hipkit.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
                    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
                    np.testing.assert_allclose(got.get(), want, rtol=1e-5 if dtype == "float32" else 1e-12)
    with pytest.raises(ValueError, match="Invalid norm order"):
        hipkit.linalg.vector_norm(hipkit.zeros(3), ord="fro")


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float32"])
@pytest.mark.parametrize("to", ["int8", "uint8", "uint32", "int64", "float64"])
def test_cumulative_dtype_is_the_result_dtype(rng, name, dtype, to):
    """cumulative_sum/prod(x, dtype=d) (and cumsum, cumprod) give d, as NumPy's: integers wrap as in d."""
    host = _data(rng, (3, 11), dtype)
    if host.dtype.kind == "f" and np.dtype(to).kind == "u":
        host = np.abs(host)  # a negative float's conversion to an unsigned integer is undefined (C, NumPy)
    reference = np.cumulative_sum if name == "cumulative_sum" else np.cumulative_prod
    for x, view in [(hipkit.asarray(host), host), (hipkit.asarray(host.T.copy()).T, host)]:
        for axis in (0, 1):
            for include_initial in (False, True):
                _close(getattr(hipkit, name)(x, axis=axis, dtype=to, include_initial=include_initial),
                       reference(view, axis=axis, dtype=to, include_initial=include_initial))
        _close(getattr(hipkit, "cumsum" if name == "cumulative_sum" else "cumprod")(x, axis=1, dtype=to),
               reference(view, axis=1, dtype=to))
