"""Advanced assignment (x[idx] = v, x[mask] = v) and hipkit.put against NumPy on random data (issue 5),
plus the argument checks, on the current device."""
import numpy as np
import pytest

import hipkit

DTYPES = ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"]


def _random(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _check(got, expected, what):
    host = got.get()
    assert host.dtype == expected.dtype, f"{what}: dtype {host.dtype}, expected {expected.dtype}"
    assert host.shape == expected.shape, f"{what}: shape {host.shape}, expected {expected.shape}"
    bad = ~((host == expected) | (np.isnan(host) & np.isnan(expected)) if host.dtype.kind == "f"
            else host == expected)
    if bad.any():
        where = np.argwhere(bad)[:5]
        lines = [f"  at {tuple(int(i) for i in w)}: got {host[tuple(w)]!r}, expected {expected[tuple(w)]!r}"
                 for w in where]
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} elements differ\n" + "\n".join(lines))


def _assign_both(rng, shape, dtype, key, value, hkey=None, hvalue=None, view=None):
    """x[key] = value on a NumPy array and on a hipkit copy (key / value converted for hipkit unless
    given); compares the whole array afterwards. view: a function making the same view of both."""
    a = _random(rng, shape, dtype)
    x = hipkit.asarray(a)
    va, vx = (view(a), view(x)) if view else (a, x)
    va[key] = value
    vx[key if hkey is None else hkey] = value if hvalue is None else hvalue
    _check(x, a, f"{dtype} {shape}: x[{key!r}] = {type(value).__name__}")


def _dev(key):
    """The key with its NumPy arrays on the device."""
    if isinstance(key, tuple):
        return tuple(_dev(k) for k in key)
    return hipkit.asarray(key) if isinstance(key, np.ndarray) else key


# ---------------------------------------------------------------- against NumPy

@pytest.mark.parametrize("dtype", DTYPES)
def test_one_index_array_on_each_axis(rng, dtype):
    shape = (5, 7, 3)
    for axis in range(3):
        n = shape[axis]
        # three distinct positions, some spelled negative, then the first again (with an equal value:
        # NumPy keeps the last of duplicates, hipkit any one of them)
        idx = rng.permutation(n)[:3]
        idx = np.append(idx, idx[0])
        idx = np.where(rng.random(4) < 0.5, idx - n, idx)
        key = (slice(None),) * axis + (idx,)
        value_shape = shape[:axis] + (4,) + shape[axis + 1:]
        value = _random(rng, value_shape, dtype)
        value[(slice(None),) * axis + (3,)] = value[(slice(None),) * axis + (0,)]
        _assign_both(rng, shape, dtype, key, value, _dev(key), hipkit.asarray(value))
        _assign_both(rng, shape, dtype, key, value, key, value)  # host index and host values
        _assign_both(rng, shape, dtype, key + (Ellipsis,), value[(slice(None),) * axis + (slice(0, 1),)])  # broadcast
    _assign_both(rng, shape, dtype, [4, -2, 0], _random(rng, (1, 3, 7, 3), dtype))  # a list, a leading 1
    _assign_both(rng, shape, dtype, (Ellipsis, [2]), _random(rng, (5, 7, 1), dtype))


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "uint64"])
def test_views_and_slices_around_the_index(rng, dtype):
    shape = (6, 9, 8)
    idx = np.array([[0, -1], [1, 2]])  # distinct positions on axes of 4 or more
    views = [lambda a: a, lambda a: a[::-1], lambda a: a[:, 1::2, ::-3], lambda a: a.transpose(2, 0, 1)]
    for view in views:
        for key in [(slice(1, 5), idx), (idx, slice(None, None, -2)), (slice(None), slice(0, 3), idx[0])]:
            a = view(_random(rng, shape, dtype))
            target = a[key]
            value = _random(rng, target.shape, dtype)
            _assign_both(rng, shape, dtype, key, value, _dev(key), hipkit.asarray(value), view=view)


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64"])
def test_several_index_arrays(rng, dtype):
    shape = (4, 5, 6)
    i0 = rng.integers(-4, 4, size=(3, 1))
    i1 = rng.integers(-5, 5, size=(1, 2))
    i2 = rng.integers(-6, 6, size=(2,))
    cases = [
        (i0, i1),                              # adjacent, broadcast (3, 2), then axis 2
        (i0, i1, i2),                          # all three axes
        (i0, slice(None), i2),                 # separated by a slice: the index dims go first
        (slice(1, 3), i1, i2),                 # adjacent after a slice
        (2, slice(None), i2),                  # an int counts as an index array (NumPy's rule)
        (slice(None), None, i1, -1),           # None, and an int adjacent to the array
        (i0, None, slice(None), i2),           # separated, with a new axis
    ]
    for key in cases:
        a = _random(rng, shape, dtype)
        target_shape = a[key].shape
        value = _random(rng, target_shape, dtype)
        x = hipkit.asarray(a)
        x[_dev(key)] = hipkit.asarray(value)
        # Duplicates (random indices repeat) may land either value: accept any writer's value.
        _check_scatter(x, a, key, value, f"{dtype} {shape}: x[{key!r}] = values {target_shape}")
        x = hipkit.asarray(a)
        x[key] = value[(0,) * value.ndim].item() if value.size else 0  # one scalar everywhere
        a2 = a.copy()
        a2[key] = value[(0,) * value.ndim].item() if value.size else 0
        _check(x, a2, f"{dtype}: x[{key!r}] = scalar")


def _check_scatter(x, before, key, value, what):
    """x must equal `before` except where key aims, which holds one of the values aimed there."""
    positions = np.arange(before.size).reshape(before.shape)
    aimed = np.broadcast_to(positions[key], np.broadcast_shapes(positions[key].shape, value.shape))
    value = np.broadcast_to(value, aimed.shape)
    got = x.get().reshape(-1)
    expected = before.reshape(-1).copy()
    allowed = {}
    for p, v in zip(aimed.reshape(-1), value.reshape(-1)):
        allowed.setdefault(int(p), []).append(v)
    for p, vs in allowed.items():
        if any(got[p] == v or (got.dtype.kind == "f" and np.isnan(got[p]) and np.isnan(v)) for v in vs):
            expected[p] = got[p]
        else:
            expected[p] = vs[0]
    _check(hipkit.asarray(got.reshape(before.shape)), expected.reshape(before.shape), what)


@pytest.mark.parametrize("dtype", DTYPES)
def test_boolean_masks(rng, dtype):
    mask = rng.random((7, 11)) < 0.4
    count = int(mask.sum())
    values = _random(rng, (count,), dtype)
    for key, hkey in [(mask, hipkit.asarray(mask)), (mask, mask)]:
        _assign_both(rng, (7, 11), dtype, key, values, hkey, hipkit.asarray(values))
        _assign_both(rng, (7, 11), dtype, key, values[:1], hkey, hipkit.asarray(values[:1]))  # one element
        _assign_both(rng, (7, 11), dtype, key, values[0].item(), hkey)  # a Python scalar
    rows = rng.random(7) < 0.5
    row_values = _random(rng, (int(rows.sum()), 11), dtype)
    _assign_both(rng, (7, 11), dtype, rows, row_values, hipkit.asarray(rows), hipkit.asarray(row_values))
    _assign_both(rng, (7, 11), dtype, rows, row_values[:1], list(rows), row_values[:1])  # broadcast, a list
    cols = rng.random(11) < 0.5
    _assign_both(rng, (7, 11), dtype, (slice(None), cols), _random(rng, (int(cols.sum()),), dtype),
                 (slice(None), hipkit.asarray(cols)))
    none = np.zeros((7, 11), bool)
    _assign_both(rng, (7, 11), dtype, none, _random(rng, (0,), dtype), hipkit.asarray(none))


def test_value_casting_like_numpy(rng):
    a = np.zeros(5, np.int8)
    x = hipkit.asarray(a)
    for value in ([1.7, -2.2], np.array([300, 1]), np.float64(2.9), True, [True, 2]):
        a[[0, 3]] = value
        x[[0, 3]] = value
        _check(x, a, f"int8 x[[0, 3]] = {value!r}")
    for value in (300, [300, 1]):  # NEP 50: a Python int out of range raises, as NumPy
        with pytest.raises(OverflowError, match="300 out of bounds for int8"):
            x[[0, 1]] = value
    f = hipkit.asarray(np.zeros(4, np.float32))
    f[hipkit.asarray(np.array([1, 2]))] = hipkit.asarray(np.array([2**40, 3], np.int64))
    _check(f, np.array([0, 2**40, 3, 0], np.float32), "float32 from int64 values")


def test_errors_like_numpy(rng):
    a = np.zeros((3, 5))
    x = hipkit.asarray(a)
    for key, kind, text in [
        ([0, 3], IndexError, "index 3 is out of bounds for axis 0 with size 3"),
        ((slice(None), [7, 0]), IndexError, "index 7 is out of bounds for axis 1 with size 5"),
        (([1, 2], [-6, 0]), IndexError, "index -6 is out of bounds for axis 1 with size 5"),
        (([0, 1], [0, 1, 2]), IndexError, "shape mismatch: indexing arrays could not be broadcast together"),
        ((np.ones(4, bool),), IndexError, "boolean index did not match indexed array along axis 0"),
        (([0], [0], [0]), IndexError, "too many indices for array"),
    ]:
        with pytest.raises(kind) as numpy_error:
            a[key] = 1.0
        with pytest.raises(kind, match=text) as ours:
            x[_dev(key)] = 1.0
        assert text in str(numpy_error.value)
        assert str(ours.value).startswith(text), (str(ours.value), str(numpy_error.value))
    with pytest.raises(ValueError, match=r"shape mismatch: value array of shape \(3,\) could not be broadcast "
                                         r"to indexing result of shape \(2,5\)"):
        x[[0, 1]] = hipkit.asarray(np.ones(3))
    with pytest.raises(IndexError, match="index 7 is out of bounds"):  # checked even when nothing is written
        hipkit.asarray(np.zeros((0, 5)))[:, [7]] = 1.0
    before = x.get()
    with pytest.raises(IndexError):
        x[[0, 2, 9]] = hipkit.asarray(np.arange(15.0).reshape(3, 5))
    _check(x, before, "nothing written after an out-of-range index")


@pytest.mark.parametrize("n", [0, 1, 31, 1000003])
def test_sizes(rng, n):
    idx = rng.permutation(n)[: n // 2]
    values = _random(rng, idx.shape, "float32")
    _assign_both(rng, (n,), "float32", idx, values, hipkit.asarray(idx), hipkit.asarray(values))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_put_like_numpy(rng, mode):
    for shape, view in [((4, 6), lambda t: t), ((4, 6), lambda t: t.T), ((10,), lambda t: t[::-2])]:
        base = _random(rng, shape, "float64")
        x, a = view(hipkit.asarray(base)), view(base.copy())
        n = a.size
        # indices distinct after the mode's normalisation (NumPy keeps the last duplicate, hipkit any)
        if mode == "raise":
            idx = rng.permutation(n)[:5] - n * (rng.random(5) < 0.5)
        elif mode == "wrap":
            idx = rng.permutation(n)[:5] + n * rng.integers(-3, 3, size=5)
        else:
            idx = np.append(1 + rng.permutation(n - 2)[:3], [n + 5, -7])
        for values in (rng.standard_normal(idx.size), np.array([1.5, -2.5]), 7.0):
            np.put(a, idx, values, mode=mode)
            hipkit.put(x, hipkit.asarray(idx), values if np.isscalar(values) else hipkit.asarray(values), mode=mode)
            _check(x.copy(), np.ascontiguousarray(a), f"put into {shape} view, mode={mode}, {values!r}")
    with pytest.raises(IndexError, match="index 24 is out of bounds for axis 0 with size 24"):
        hipkit.put(hipkit.asarray(np.zeros((4, 6))), [0, 24], 1.0)


def test_method_and_large_duplicates(rng):
    x = hipkit.asarray(np.zeros(3))
    idx = rng.integers(0, 3, size=200000)
    values = rng.standard_normal(200000)
    x[hipkit.asarray(idx)] = hipkit.asarray(values)
    got = x.get()
    for p in range(3):
        assert got[p] in set(values[idx == p]), f"x[{p}] = {got[p]} is none of the values aimed at it"
    y = hipkit.asarray(np.zeros(6))
    y.put([1, -1], hipkit.asarray(np.array([2.0, 3.0])))
    _check(y, np.array([0, 2.0, 0, 0, 0, 3.0]), "ndarray.put")


# ---------------------------------------------------------------- argument checks

def test_unsupported_forms_say_what_is_supported():
    x = hipkit.empty((0, 3))
    with pytest.raises(NotImplementedError, match="integer arrays, boolean masks"):
        x[True, 0] = 1.0  # a 0-d boolean index alone (x[True] = v) is supported: test_array_api_functions.py
    with pytest.raises(IndexError, match="only integers, slices"):
        x["a", [0]] = 1.0
    with pytest.raises(IndexError, match="too many indices"):
        x[[0], [0], [0]] = 1.0
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        x[..., [0], ...] = 1.0
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        x[:, np.array([0.5])] = 1.0
    with pytest.raises(ValueError, match="clipmode must be one of"):
        hipkit.put(x, [0], 1.0, mode="nope")
    with pytest.raises(TypeError, match="put\\(\\) argument 1 must be a hipkit.ndarray"):
        hipkit.put(np.zeros(3), [0], 1.0)


# ---------------------------------------------------------------- reading with several index arrays

_GATHER_KEYS = [
    lambda i, j: (i, j), lambda i, j: (i[:2], slice(None), j[:, 0]), lambda i, j: (slice(1, 3), i[:2], j),
    lambda i, j: (None, i, 1, j), lambda i, j: (1, i, j), lambda i, j: (i, Ellipsis, None, [4, 3, 2]),
    lambda i, j: ([True, False, True], [1, 2]), lambda i, j: (i[:0], j[:0, 0]), lambda i, j: (-1, [-1, 0], j),
]


@pytest.mark.parametrize("key", _GATHER_KEYS)
@pytest.mark.parametrize("layout", ["contiguous", "reversed", "transposed"])
def test_several_index_arrays_read_as_numpy(rng, key, layout):
    """x[key] with several integer (or boolean) array indices, mixed with ints, slices, ... and None: NumPy's
    placement of the broadcast index dimensions, on views too (the array API 2024.12's integer indexing)."""
    host = rng.standard_normal((3, 4, 5)).astype(np.float32)
    x = hipkit.asarray(host)
    if layout == "reversed":
        host, x = host[::-1, :, ::-1], x[::-1, :, ::-1]
    elif layout == "transposed":
        base = rng.standard_normal((5, 4, 3)).astype(np.float32)
        host, x = base.transpose(2, 1, 0), hipkit.asarray(base).transpose(2, 1, 0)
    i, j = np.array([0, 2, 1]), np.array([[1], [3]])
    k = key(i, j)
    want = host[k]
    got = x[tuple(hipkit.asarray(v) if isinstance(v, np.ndarray) else v for v in k)].get()
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_several_index_arrays_out_of_range_raise():
    x = hipkit.asarray(np.zeros((3, 4)))
    with pytest.raises(IndexError, match="out of bounds"):
        x[hipkit.asarray(np.array([0, 3])), hipkit.asarray(np.array([1, 1]))]
    with pytest.raises(IndexError, match="could not be broadcast"):
        x[hipkit.asarray(np.array([0, 1])), hipkit.asarray(np.array([1, 1, 2]))]
