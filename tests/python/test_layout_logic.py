"""hipkit._layout and hipkit._dtypes against NumPy itself. No GPU needed.

Views are checked on NumPy arrays whose every element's VALUE is its element
offset in one flat base buffer (`buf = np.arange(n)`), made odd by random
slicing (negative steps included) and transposes: a computed
(shape, strides, offset) is right when it has the NumPy view's shape and
strides, the NumPy view's data pointer, and its elements hold
offset + dot(index, strides). Each random test runs on fixed seeds plus one
fresh seed (printed; rerun with HIPKIT_TEST_SEED=<seed>).
"""
import os
import warnings

import numpy as np
import pytest
from numpy.exceptions import AxisError
from numpy.lib.array_utils import normalize_axis_index

from hipkit import _dtypes, _layout

FIXED_SEEDS = [0, 1, 2, 3]
RANDOM_SEED = int(os.environ.get("HIPKIT_TEST_SEED") or int.from_bytes(os.urandom(8), "little"))
SEEDS = pytest.mark.parametrize("seed", FIXED_SEEDS + [RANDOM_SEED])


@pytest.fixture
def rng_for(seed):
    print(f"seed: HIPKIT_TEST_SEED={seed}")
    return np.random.default_rng(seed)


def outcome(fn, *args):
    """fn's result, or the exception type it raised."""
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 -- the type is what is compared
        return type(error)


def same_error(ours, numpys):
    """Our exception type matches NumPy's (AxisError is both ValueError and IndexError)."""
    return isinstance(ours, type) and issubclass(ours, numpys)


# --------------------------------------------------------------- random views

def random_view(rng, max_ndim=4, max_len=5):
    """(buf, a): a a view of buf = arange(n), with random steps and axis order."""
    ndim = int(rng.integers(0, max_ndim + 1))
    full = tuple(int(rng.integers(0, max_len + 1)) if rng.random() < 0.1 else int(rng.integers(1, max_len + 1))
                 for _ in range(ndim))
    buf = np.arange(int(np.prod(full, dtype=np.int64)) or 1, dtype=np.int64)
    a = buf[:int(np.prod(full, dtype=np.int64))].reshape(full)
    if ndim and rng.random() < 0.7:  # (a[()] on a 0-d array would be a scalar)
        key = []
        for n in full:
            step = int(rng.choice([1, 1, 2, -1, -2, 3]))
            start = int(rng.integers(0, n)) if n and rng.random() < 0.4 else None
            key.append(slice(start, None, step))
        a = a[tuple(key)]
    if ndim and rng.random() < 0.5:
        a = a.transpose(rng.permutation(ndim))
    return buf, a


def layout(a, buf):
    """(shape, strides, offset) of NumPy view `a` of `buf`, in elements."""
    offset = (a.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // buf.itemsize
    return a.shape, tuple(s // a.itemsize for s in a.strides), offset


def check_view(got, view, buf, rng, what):
    shape, strides, offset = got
    want = layout(view, buf)
    assert (shape, strides, offset) == want, what
    if view.size:
        assert view.flat[0] == offset, what
        for _ in range(3):
            index = tuple(int(rng.integers(0, n)) for n in shape)
            assert view[index] == offset + sum(i * s for i, s in zip(index, strides)), what


# --------------------------------------------------------------- basic indexing

def random_key_item(rng, n):
    r = rng.random()
    if r < 0.3:
        i = int(rng.integers(-n - 2, n + 2)) if n else int(rng.integers(-2, 2))
        return [i, np.int64(i), np.intp(i)][int(rng.integers(0, 3))]
    if r < 0.75:
        def bound():
            return None if rng.random() < 0.3 else int(rng.integers(-n - 3, n + 4))
        step = [None, 1, 2, 3, -1, -2, -3, 0][int(rng.integers(0, 8 if rng.random() < 0.05 else 7))]
        return slice(bound(), bound(), step)
    if r < 0.87:
        return None
    if r < 0.97:
        return Ellipsis
    return [1.5, "x", slice(0.5, None)][int(rng.integers(0, 3))]  # invalid


@SEEDS
def test_basic_index_matches_numpy(seed, rng_for):
    rng = rng_for
    checked = errors = 0
    for case in range(3000):
        buf, a = random_view(rng)
        items = [random_key_item(rng, a.shape[min(k, a.ndim - 1)] if a.ndim else 1)
                 for k in range(int(rng.integers(0, a.ndim + 3)))]
        key = items[0] if len(items) == 1 and rng.random() < 0.5 else tuple(items)
        what = f"case {case}: shape {a.shape} strides {a.strides} key {key!r}"
        assert _layout.is_basic_index(key), what
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no deprecated forms
                view = a[key]
        except (IndexError, ValueError, TypeError) as error:
            errors += 1
            got = outcome(_layout.basic_index, *layout(a, buf), key)
            assert same_error(got, type(error)), f"{what}: NumPy raised {error!r}, we gave {got}"
            continue
        if np.ndim(view) > _layout.MAX_DIMS:
            with pytest.raises(ValueError, match="at most 32 dimensions"):
                _layout.basic_index(*layout(a, buf), key)
            continue
        got = _layout.basic_index(*layout(a, buf), key)
        if isinstance(view, np.ndarray):
            check_view(got, view, buf, rng, what)
        else:  # NumPy gives a scalar for a 0-d result; its value is the offset
            assert got[:2] == ((), ()) and got[2] == view, what
        checked += 1
    assert checked > 1000 and errors > 100  # both paths were exercised


def test_basic_index_edge_cases():
    buf = np.arange(24)
    a = buf.reshape(2, 3, 4)
    lay = layout(a, buf)
    for key in [(), Ellipsis, (Ellipsis, None), (None, Ellipsis, None), (slice(None, None, -1),),
                (1, Ellipsis, 2), (slice(5, 1),), (slice(None), slice(3, 1), 0), np.int8(-1),
                (np.uint64(1), slice(None, None, -2)), (0, 0, 0, Ellipsis)]:
        view = a[key]
        got = _layout.basic_index(*lay, key)
        if isinstance(view, np.ndarray):
            assert got == layout(view, buf), key
        else:
            assert got == ((), (), view)
    # 0-d arrays: () keeps it, None adds an axis of stride 0.
    assert _layout.basic_index((), (), 7, ()) == ((), (), 7)
    assert _layout.basic_index((), (), 7, None) == ((1,), (0,), 7)
    with pytest.raises(IndexError, match="too many indices for array: array is 3-dimensional, but 4 were indexed"):
        _layout.basic_index(*lay, (0, 0, 0, 0))
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        _layout.basic_index(*lay, 2)
    with pytest.raises(IndexError, match="single ellipsis"):
        _layout.basic_index(*lay, (Ellipsis, 0, Ellipsis))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        _layout.basic_index(*lay, slice(None, None, 0))
    with pytest.raises(ValueError, match="at most 32 dimensions"):
        _layout.basic_index(*lay, (None,) * 30)


def test_is_basic_index_routes_advanced_keys():
    advanced = [[0, 1], np.array([0, 1]), np.array(1), np.array([True, False]), True, np.True_,
                (0, [1]), (slice(None), np.arange(2)), (Ellipsis, False)]
    for key in advanced:
        assert not _layout.is_basic_index(key), key
        with pytest.raises(TypeError, match="is_basic_index"):
            _layout.basic_index((2, 2), (2, 1), 0, key)
    for key in [0, np.int32(1), slice(None), Ellipsis, None, (0, slice(1, None), None, Ellipsis), ()]:
        assert _layout.is_basic_index(key), key
    # NumPy copies for a 0-d integer array index: it is not basic.
    b = np.arange(6).reshape(2, 3)
    assert not np.shares_memory(b[np.array(1)], b)


# --------------------------------------------------------------- reshape

def random_new_shape(rng, size):
    """A shape of `size` elements (sometimes a wrong one), maybe with a -1."""
    factors, n, p = [], size, 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    dims = [1] * int(rng.integers(1, 5))
    for f in factors:
        dims[int(rng.integers(0, len(dims)))] *= f
    if size == 0:
        dims[int(rng.integers(0, len(dims)))] = 0
    r = rng.random()
    if r < 0.1:
        dims[int(rng.integers(0, len(dims)))] += 1  # wrong size
    elif r < 0.35:
        dims[int(rng.integers(0, len(dims)))] = -1
    elif r < 0.38:
        dims[:2] = [-1, -1]
    return tuple(dims)


@SEEDS
def test_reshape_view_matches_numpy(seed, rng_for):
    rng = rng_for
    views = copies = 0
    for case in range(2000):
        buf, a = random_view(rng)
        if rng.random() < 0.15 and a.ndim:  # length-1 axes with odd strides
            a = a[(slice(None),) * int(rng.integers(0, a.ndim)) + (None,)]
        new = a.shape if rng.random() < 0.05 else random_new_shape(rng, a.size)
        what = f"case {case}: shape {a.shape} strides {a.strides} -> {new}"
        lay = layout(a, buf)
        try:
            copied = a.reshape(new)
        except ValueError:
            assert outcome(_layout.resolve_reshape, a.size, new) is ValueError, what
            assert outcome(_layout.reshape_view, *lay, new) is ValueError, what
            continue
        assert _layout.resolve_reshape(a.size, new) == copied.shape, what
        got = _layout.reshape_view(*lay, new)
        try:
            view = np.reshape(a, new, copy=False)
        except ValueError:  # NumPy would have to copy
            assert got is None, what
            assert not np.shares_memory(copied, a), what
            copies += 1
            continue
        assert got is not None, what
        if a.size:
            assert np.shares_memory(view, a), what
        check_view((view.shape, got, lay[2]), view, buf, rng, what)
        views += 1
    assert views > 500 and copies > 100


def test_reshape_errors_and_sizes():
    with pytest.raises(ValueError, match=r"cannot reshape array of size 6 into shape \(4,\)"):
        _layout.resolve_reshape(6, (4,))
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        _layout.resolve_reshape(6, (-1, -1))
    with pytest.raises(ValueError, match="cannot reshape array of size 0"):
        _layout.resolve_reshape(0, (-1, 0))
    assert _layout.resolve_reshape(6, -1) == (6,)
    assert _layout.resolve_reshape(0, (2, -1)) == (2, 0)
    assert _layout.resolve_reshape(1, ()) == ()
    with pytest.raises(ValueError, match="at most 32 dimensions"):
        _layout.resolve_reshape(1, (1,) * 33)
    # Reshaping a transposed matrix to 1-d needs a copy; a column slice can merge.
    assert _layout.reshape_view((3, 2), (1, 3), 0, (6,)) is None
    assert _layout.reshape_view((3, 2), (4, 2), 0, (6,)) == (2,)


def test_contiguity_and_extent():
    rng = np.random.default_rng(5)
    for _ in range(400):
        buf, a = random_view(rng)
        shape, strides, offset = layout(a, buf)
        assert _layout.is_c_contiguous(shape, strides) == a.flags.c_contiguous, (shape, strides)
        first, last = _layout.extent(shape, strides, offset)
        if a.size:
            assert (first, last) == (a.min(), a.max() + 1)  # values are element offsets
        else:
            assert first == last == offset
        ref = np.arange(max(a.size, 1))[:a.size].reshape(shape)  # (np.arange(0) has stride 0)
        assert _layout.contiguous_strides(shape) == tuple(s // 8 for s in ref.strides)
    assert _layout.contiguous_strides((2, 0, 3)) == (3, 3, 1)
    assert _layout.extent((), (), 4) == (4, 5)


# --------------------------------------------------------------- axes

@SEEDS
def test_axis_permutations_match_numpy(seed, rng_for):
    rng = rng_for
    for case in range(800):
        buf, a = random_view(rng)
        if rng.random() < 0.3 and a.ndim < 6:
            a = a[(None,) + (Ellipsis,) + (None,) * int(rng.integers(0, 2))]  # length-1 axes
        shape, strides, offset = layout(a, buf)
        nd = a.ndim
        what = f"case {case}: shape {shape} strides {strides}"

        def rand_axis(ndim):
            return int(rng.integers(-ndim - 1, ndim + 1)) if rng.random() < 0.15 else \
                int(rng.integers(-ndim, ndim)) if ndim else 0

        axes = None if rng.random() < 0.2 else [rand_axis(nd) for _ in range(nd + (rng.random() < 0.1))]
        if axes is not None and rng.random() < 0.7 and nd:
            axes = [int(x) for x in rng.permutation(nd)]
        cases = [("transpose", lambda: a.transpose(axes), lambda: _layout.transpose(shape, strides, axes))]
        a1, a2 = rand_axis(nd), rand_axis(nd)
        cases.append(("swapaxes", lambda: a.swapaxes(a1, a2), lambda: _layout.swapaxes(shape, strides, a1, a2)))
        ones = [i for i, n in enumerate(shape) if n == 1]
        sq = None if rng.random() < 0.3 else tuple(
            ones[int(rng.integers(0, len(ones)))] if ones and rng.random() < 0.8 else rand_axis(nd)
            for _ in range(int(rng.integers(1, 3))))
        if sq is not None and len(sq) == 1 and rng.random() < 0.5:
            sq = sq[0]
        cases.append(("squeeze", lambda: a.squeeze(sq), lambda: _layout.squeeze(shape, strides, sq)))
        k = int(rng.integers(1, 3))
        ed = tuple(rand_axis(nd + k) for _ in range(k))
        if len(ed) == 1 and rng.random() < 0.5:
            ed = ed[0]
        cases.append(("expand_dims", lambda: np.expand_dims(a, ed), lambda: _layout.expand_dims(shape, strides, ed)))
        for name, numpy_fn, our_fn in cases:
            try:
                view = numpy_fn()
            except (ValueError, IndexError, TypeError) as error:
                got = outcome(our_fn)
                assert same_error(got, type(error)), f"{what} {name}: NumPy {error!r}, we {got}"
                if isinstance(error, AxisError):
                    assert got is AxisError, f"{what} {name}"
                continue
            if view.ndim > _layout.MAX_DIMS:
                assert outcome(our_fn) is ValueError
                continue
            new_shape, new_strides = our_fn()
            check_view((new_shape, new_strides, offset), view, buf, rng, f"{what} {name}")


def test_normalize_axis_matches_numpy():
    for ndim in range(0, 5):
        for axis in range(-ndim - 2, ndim + 2):
            want = outcome(normalize_axis_index, axis, ndim)
            assert outcome(_layout.normalize_axis, axis, ndim) == want
    assert _layout.normalize_axis((0, -1), 3) == (0, 2)
    assert _layout.normalize_axis([1], 3) == (1,)
    with pytest.raises(ValueError, match="repeated axis"):
        _layout.normalize_axis((0, -3), 3)
    assert _layout.normalize_axis((0, -3), 3, allow_duplicate=True) == (0, 0)
    with pytest.raises(AxisError, match="axis 3 is out of bounds for array of dimension 2"):
        _layout.normalize_axis(3, 2)
    with pytest.raises(TypeError):
        _layout.normalize_axis(1.0, 2)


# --------------------------------------------------------------- broadcasting

@SEEDS
def test_broadcasting_matches_numpy(seed, rng_for):
    rng = rng_for
    mismatches = 0
    for case in range(1500):
        shapes = []
        base = [int(rng.integers(0, 5)) for _ in range(int(rng.integers(0, 5)))]
        for _ in range(int(rng.integers(1, 4))):
            s = base[int(rng.integers(0, len(base) + 1)):]
            s = [1 if rng.random() < 0.3 else (int(rng.integers(0, 4)) if rng.random() < 0.2 else n) for n in s]
            shapes.append(tuple(s))
        what = f"case {case}: {shapes}"
        try:
            want = np.broadcast_shapes(*shapes)
        except ValueError:
            mismatches += 1
            assert outcome(_layout.broadcast_shapes, *shapes) is ValueError, what
            continue
        assert _layout.broadcast_shapes(*shapes) == want, what
        # Broadcast a random view to a random target and compare with np.broadcast_to.
        buf, a = random_view(rng)
        target = tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 2)))) + tuple(
            n if n != 1 or rng.random() < 0.5 else int(rng.integers(0, 4)) for n in a.shape)
        if rng.random() < 0.1 and target:
            target = target[1:] + (7,)
        shape, strides, offset = layout(a, buf)
        try:
            view = np.broadcast_to(a, target)
        except ValueError:
            assert outcome(_layout.broadcast_strides, shape, strides, target) is ValueError, what
            continue
        check_view((target, _layout.broadcast_strides(shape, strides, target), offset), view, buf, rng, what)
    assert mismatches > 20
    with pytest.raises(ValueError, match=r"Mismatch is between arg 0 with shape \(2,\) and arg 1 with shape \(3,\)"):
        _layout.broadcast_shapes((2,), (3,))
    assert _layout.broadcast_shapes() == ()
    with pytest.raises(ValueError, match="at most 32 dimensions"):
        _layout.broadcast_shapes((1,) * 33)


def test_bad_layouts_are_rejected():
    with pytest.raises(ValueError, match="one stride per dimension"):
        _layout.transpose((2, 3), (1,))
    with pytest.raises(ValueError, match="negative dimensions"):
        _layout.extent((-1,), (1,), 0)
    with pytest.raises(ValueError, match="at most 32 dimensions"):
        _layout.squeeze((1,) * 33, (1,) * 33)


# --------------------------------------------------------------- dtypes

SUPPORTED = _dtypes.SUPPORTED


def test_numpy_is_2():
    assert int(np.__version__.split(".")[0]) >= 2, "NEP 50 promotion needs NumPy 2"


def test_supported_set():
    # in the order of their hk_dtype codes
    assert [str(d) for d in SUPPORTED] == ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64",
                                           "float16", "float32", "float64", "int16", "uint16", "complex64",
                                           "complex128"]
    assert all(_dtypes.is_supported(d) for d in SUPPORTED)
    assert _dtypes.is_supported("float32") and _dtypes.is_supported(np.int64) and _dtypes.is_supported(bool)
    assert _dtypes.is_supported("int16") and _dtypes.is_supported(np.complex64)
    assert not any(_dtypes.is_supported(d) for d in ["U3", "O", "nope"])
    assert np.dtype(np.longdouble) in (np.float64,) or not _dtypes.is_supported(np.longdouble)
    assert _dtypes.to_supported(np.int16) == np.int16
    for d in ["clongdouble", "longdouble", "O", "U2"]:
        if np.dtype(d) in (np.float64, np.complex128):  # longdouble is double on some platforms
            continue
        with pytest.raises(TypeError, match="does not support"):
            _dtypes.to_supported(d)


def numpy_mapped(*ops):
    want = np.result_type(*ops)
    mapped = _dtypes.to_supported(want)
    assert np.can_cast(want, mapped, "safe")
    return mapped


def test_result_type_pairs_and_triples():
    remapped = set()
    for a in SUPPORTED:
        for b in SUPPORTED:
            want = np.result_type(a, b)
            got = _dtypes.result_type(a, b)
            assert got == numpy_mapped(a, b), (a, b)
            if got != want:
                remapped.add((str(a), str(b), str(want), str(got)))
            # Arrays and NumPy scalars are strong, like dtypes.
            assert _dtypes.result_type(np.zeros(2, a), b.type(0)) == got
    # Every result of supported inputs is supported: NumPy's table, unchanged.
    assert remapped == set()
    rng = np.random.default_rng(11)
    for _ in range(300):
        ops = [SUPPORTED[i] for i in rng.integers(0, len(SUPPORTED), 3)]
        assert _dtypes.result_type(*ops) == numpy_mapped(*ops), ops


SCALARS = [True, False, 0, 1, -1, 127, 128, 255, 256, -129, 2**31, -2**31 - 1, 2**32, 2**63 - 1, 2**63,
           2**64, -2**63 - 1, 2**200, 2**2000, 0.5, -1.5, 1e300, float("inf")]


def numpy_op_type(dtype, scalar):
    """The dtype NumPy 2 gives for array(dtype) + scalar, or the error type."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.add(np.zeros(1, dtype), scalar).dtype
        except (OverflowError, TypeError) as error:
            return type(error)


def test_result_type_with_python_scalars_is_nep50():
    overflows = 0
    for d in SUPPORTED:
        for s in SCALARS:
            want = numpy_op_type(d, s)
            got = outcome(_dtypes.result_type, d, s)
            assert got == want, (d, s)
            assert outcome(_dtypes.result_type, s, np.zeros(3, d)) == want, (s, d)
            if want is OverflowError:
                overflows += 1
            else:
                assert np.result_type(d, s) == want  # np.result_type agrees when nothing overflows
    assert overflows > 30
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        _dtypes.result_type(np.uint8, 300)
    with pytest.raises(OverflowError, match="Python integer -1 out of bounds for uint32"):
        _dtypes.result_type(np.uint32, -1)
    # Weak scalars against int8 + uint8 (int16): checked against int16.
    with pytest.raises(OverflowError, match="Python integer 40000 out of bounds for int16"):
        _dtypes.result_type(np.int8, np.uint8, 40000)
    # Python complex scalars are weak too: they make a float array's dtype complex of its precision.
    assert _dtypes.result_type(np.float32, 1j) == np.complex64
    assert _dtypes.result_type(np.int8, 1j) == np.complex128 == _dtypes.result_type(1j, 2)


def test_result_type_scalars_only_and_errors():
    for ops in [(1,), (1.0,), (True,), (1, 2.0), (True, 1), (True, False), (1, True, 0.5), (int,), (float,),
                (bool,), ("float16", 1.0), (np.float16(1), 1), (np.int8(1), np.uint8(1)), (np.int32, np.uint64)]:
        assert _dtypes.result_type(*ops) == numpy_mapped(*ops), ops
    with pytest.raises(OverflowError, match="out of bounds for int64"):
        _dtypes.result_type(2**63)
    assert _dtypes.result_type(np.complex64, np.float64) == np.complex128
    with pytest.raises(TypeError):
        _dtypes.result_type(object())
    with pytest.raises(ValueError, match="at least one"):
        _dtypes.result_type()
    assert _dtypes.result_type(np.int16, np.uint16) == np.int32
    assert _dtypes.result_type(np.int16) == np.int16


def test_divide_and_sum_types_match_numpy():
    for d in SUPPORTED:
        x = np.ones(2, d)
        assert _dtypes.true_divide_type(d) == np.true_divide(x, x).dtype, d
        assert _dtypes.sum_accumulator_type(d) == np.sum(x).dtype == np.cumsum(x).dtype == np.prod(x).dtype, d
