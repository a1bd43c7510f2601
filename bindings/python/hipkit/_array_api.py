"""The array API standard's names that hipkit provides by mapping them onto its NumPy-style functions
(views, metadata, or one existing kernel each), and the functions it composes of its existing ops (no new
kernels): creation (eye, meshgrid, tril, triu), manipulation (roll, repeat, tile), tensordot and vecdot,
the set functions (unique_all, unique_counts, unique_inverse, unique_values), searchsorted,
take_along_axis and diff; finfo, iinfo and __array_namespace_info__ (the inspection utilities).

The composed functions run on the device where their data is (hipkit.array._on_data), GPU or CPU device,
and never copy the data to the host: where the size of a result depends on the data (the unique_*
functions, repeat with an array of repeats) only that size is read back, which waits for the device;
take_along_axis reads back whether an index is out of range. tests/python/test_array_api.py checks the
signatures and values against array-api-strict, and lists hipkit's deliberate deviations;
tests/python/test_array_api_functions.py checks the composed functions against NumPy."""
import builtins
import collections
import math

import numpy as np

from . import _dtypes
from . import _layout
from ._ops.elementwise import (add, conjugate, floor_divide, greater_equal, isnan, less, less_equal, logical_and,
                               logical_not, logical_or, multiply, not_equal, subtract)
from ._ops.indexing import _select, put, take, where
from ._ops.linalg import matmul
from ._ops.reduce import any as _any, sum as _sum
from ._ops.scan_sort import argsort, cumprod, cumsum, sort
from .array import (_check_device, _dtype, _install_method, _on_data, arange, concatenate, empty, full, ndarray,
                    ones, zeros)
from .device import Device, _index, _size, device_count, get_device

_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)

__array_api_version__ = "2023.12"
# The versions __array_namespace__(api_version=...) accepts: hipkit implements the same subset for each.
API_VERSIONS = ("2021.12", "2022.12", "2023.12")


def check_api_version(api_version):
    """None or one of API_VERSIONS; anything else raises (the standard asks for an error)."""
    if api_version is None:
        return
    if not isinstance(api_version, str):
        raise TypeError(f"api_version must be a string such as '2023.12' or None, not "
                        f"{type(api_version).__name__}")
    if api_version not in API_VERSIONS:
        raise ValueError(f"hipkit does not implement array API version {api_version!r}; it implements a "
                         f"subset of {', '.join(API_VERSIONS)}")


def install_namespace(namespace):
    """ndarray.__array_namespace__, returning `namespace`: hipkit itself, which calls this (hipkit/__init__.py:
    the package is above every module of it, so none imports it)."""
    def __array_namespace__(self, /, *, api_version=None):
        """The module implementing the array API standard's functions for this array: hipkit (the
        subset it implements: see hipkit's docstring). api_version: None (the latest hipkit knows)
        or "2021.12", "2022.12" or "2023.12"; any other value raises (ValueError; TypeError for a
        non-string), as the standard asks."""
        check_api_version(api_version)
        return namespace

    _install_method(__array_namespace__)


def astype(x, dtype, /, *, copy=True, device=None):
    """x converted to `dtype` (a new array unless copy=False and the dtype is already right), on
    `device` when given (moved there first: a copy)."""
    if device is not None:
        moved = x.to_device(device)
        return moved.astype(dtype, copy=copy and moved is x)
    return x.astype(dtype, copy=copy)


def concat(arrays, /, *, axis=0):
    """Join arrays along an existing axis (axis=None: flattened); NumPy's concatenate."""
    return concatenate(arrays, axis=axis)


def permute_dims(x, /, axes):
    """A view with the axes permuted (transpose with explicit axes)."""
    return x.transpose(tuple(axes))


def matrix_transpose(x, /):
    """A view with the last two axes swapped."""
    return x.mT


def flip(x, /, *, axis=None):
    """A view with the order of elements reversed along `axis` (None: every axis)."""
    axes = range(x.ndim) if axis is None else _layout.normalize_axis(
        axis if isinstance(axis, (tuple, list)) else (axis,), x.ndim)
    key = [slice(None)] * x.ndim
    for a in axes:
        key[a] = slice(None, None, -1)
    return x[tuple(key)]


def moveaxis(x, source, destination, /):
    """A view with axes moved to new positions (the others keep their order)."""
    source = _layout.normalize_axis(source if isinstance(source, (tuple, list)) else (source,), x.ndim)
    destination = _layout.normalize_axis(
        destination if isinstance(destination, (tuple, list)) else (destination,), x.ndim)
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [a for a in range(x.ndim) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return x.transpose(tuple(order))


def unstack(x, /, *, axis=0):
    """The views x[..., i, ...] along `axis`, as a tuple."""
    axis = _layout.normalize_axis(axis, x.ndim)
    return tuple(x[(slice(None),) * axis + (i,)] for i in range(x.shape[axis]))


def broadcast_shapes(*shapes):
    return _layout.broadcast_shapes(*(tuple(s) for s in shapes))


def broadcast_arrays(*arrays):
    """Views of the arrays broadcast to one shape, as a list (the 2023.12 standard's return type)."""
    shape = _layout.broadcast_shapes(*(a.shape for a in arrays))
    return [a._broadcast_to(shape) for a in arrays]


def _cumulative(name, x, axis, dtype, include_initial):
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}: axis must be given for arrays of more than one dimension")
        axis = 0
    if x.ndim == 0:
        raise ValueError(f"{name}: x must have at least one dimension")
    axis = _layout.normalize_axis(axis, x.ndim)
    result = (cumsum if name == "cumulative_sum" else cumprod)(x, axis=axis, dtype=dtype)
    if not include_initial:
        return result
    shape = x.shape[:axis] + (1,) + x.shape[axis + 1:]
    first = (zeros if name == "cumulative_sum" else ones)(shape, result.dtype)
    return concatenate([first, result], axis=axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running sums along `axis` (needed when ndim > 1); include_initial puts a 0 first."""
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running products along `axis` (needed when ndim > 1); include_initial puts a 1 first."""
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial)


def _as_dtype(x):
    return x.dtype if isinstance(x, ndarray) else _dtype(x)


def result_type(*arrays_and_dtypes):
    """The dtype NumPy 2 (NEP 50) gives these arrays, dtypes and Python scalars, in hipkit's ten."""
    return _dtypes.result_type(*arrays_and_dtypes)


def can_cast(from_, to, /):
    """Whether the standard's promotion table casts `from_` (a dtype or an array) to `to`: within
    one kind (bool, integers, floats: real and complex) and without losing values. Unlike numpy.can_cast,
    never across kinds (int8 to float32 is False)."""
    src, dst = _as_dtype(from_), _dtype(to)
    kind = {"b": "b", "i": "i", "u": "i", "f": "f", "c": "f"}  # real floats promote to complex ones
    return kind[src.kind] == kind[dst.kind] and bool(np.can_cast(src, dst, "safe"))


def isdtype(dtype, kind):
    """The array API's dtype kinds ('bool', 'signed integer', 'unsigned integer', 'integral',
    'real floating', 'numeric', ...) or dtypes, or a tuple of these."""
    return bool(np.isdtype(_dtype(dtype), kind if not isinstance(kind, tuple) else tuple(
        k if isinstance(k, str) else _dtype(k) for k in kind)))


class finfo_object:
    """What finfo returns: the standard's attributes as Python numbers (bits an int; eps, max, min and
    smallest_normal floats) and dtype, the dtype described."""
    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, dtype):
        info = np.finfo(dtype)
        self.bits, self.dtype = int(info.bits), np.dtype(info.dtype)  # a complex dtype's: its parts' (float)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.smallest_normal = float(info.smallest_normal)

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"smallest_normal={self.smallest_normal}, dtype={self.dtype})")


class iinfo_object:
    """What iinfo returns: bits, max and min as Python ints, and dtype, the dtype described."""
    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, dtype):
        info = np.iinfo(dtype)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), np.dtype(dtype)

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


def finfo(type, /):  # noqa: A002 (the standard's name)
    """The limits of a floating-point dtype (or of an array's dtype; a complex dtype's are its parts'):
    bits, eps, max, min, smallest_normal (Python numbers) and dtype. ValueError for other dtypes."""
    dtype = _as_dtype(type)
    if dtype.kind not in "fc":
        raise ValueError(f"finfo: {dtype} is not a floating-point dtype (iinfo describes integer dtypes)")
    return finfo_object(dtype)


def iinfo(type, /):  # noqa: A002
    """The limits of an integer dtype (or of an array's dtype): bits, max, min (Python ints) and dtype.
    ValueError for other dtypes."""
    dtype = _as_dtype(type)
    if dtype.kind not in "iu":
        raise ValueError(f"iinfo: {dtype} is not an integer dtype (finfo describes floating-point dtypes)")
    return iinfo_object(dtype)


# ---------------------------------------------------------------- inspection (2023.12)

# The standard's dtypes hipkit has, by kind (float16 is hipkit's too, but outside the standard: not listed).
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class _Info:
    """The array API's inspection namespace (hipkit.__array_namespace_info__()): capabilities(),
    default_device(), default_dtypes(device=), devices(), dtypes(device=, kind=)."""

    __module__ = "hipkit"

    def capabilities(self):
        """boolean indexing and data-dependent shapes (unique_*, nonzero, repeat with an array) are supported;
        arrays have at most 32 dimensions (2024.12's "max dimensions", _layout.MAX_DIMS)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": _layout.MAX_DIMS}

    def default_device(self):
        """The device arrays are made on when device= is None: the calling thread's current device (the first
        GPU, else the CPU device, unless HIPKIT_DEVICE or `with hipkit.Device(...)` chose another)."""
        return get_device()

    def devices(self):
        """Every device, as hipkit.Device objects: the GPUs, then the CPU device."""
        return [Device(i) for i in range(device_count())]

    def default_dtypes(self, *, device=None):
        """The default dtypes, the same on every device: float64, complex128, int64, int64 for indexing."""
        _check_info_device(device)
        return {"real floating": np.dtype(np.float64), "complex floating": np.dtype(np.complex128),
                "integral": np.dtype(np.int64), "indexing": np.dtype(np.int64)}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes hipkit supports (the same on every device), all of them or those of `kind`
        ('bool', 'signed integer', 'unsigned integer', 'integral', 'real floating', 'complex floating',
        'numeric', or a tuple of these), by name."""
        _check_info_device(device)
        kinds = ("bool", "numeric") if kind is None else kind if isinstance(kind, tuple) else (kind,)
        names = []
        for k in kinds:
            if not isinstance(k, str) or k not in _KINDS:
                raise ValueError(f"dtypes: kind must be None, one of {', '.join(map(repr, _KINDS))} or a tuple of "
                                 f"these, not {k!r}")
            names.extend(n for n in _KINDS[k] if n not in names)
        return {n: np.dtype(n) for n in _KINDS["bool"] + _KINDS["numeric"] if n in names}

    def __repr__(self):
        return "<hipkit.__array_namespace_info__()>"


def _check_info_device(device):
    if device is not None and not isinstance(device, Device):
        Device(device)  # a device number, "cpu" or "gpu" is accepted; anything else raises, naming it


_INFO = _Info()


def __array_namespace_info__():
    """The array API's inspection utilities: capabilities(), default_device(), default_dtypes(device=),
    devices() and dtypes(device=, kind=)."""
    return _INFO


# ---------------------------------------------------------------- composed of the ops

def _array(name, x, what="x"):
    """x itself when it is a hipkit array; TypeError naming the argument otherwise."""
    if not isinstance(x, ndarray):
        raise TypeError(f"{name}: {what} must be a hipkit.ndarray, not {type(x).__name__} (hipkit.asarray "
                        f"makes one)")
    return x


def _numeric(name, *arrays):
    """TypeError for a bool array: these functions take numeric dtypes only, as the standard says."""
    for x in arrays:
        if x.dtype == _BOOL:
            raise TypeError(f"{name}: only numeric dtypes are allowed, not bool")


def _indices(n):
    return arange(n, dtype=_INT64)


def _along(vector, axis, ndim):
    """A 1-d array as a view along `axis` of `ndim` dimensions (extent 1 elsewhere)."""
    return vector.reshape(tuple(vector.shape[0] if d == axis else 1 for d in range(ndim)))


def _slice_along(x, axis, part):
    return x[(slice(None),) * axis + (part,)]


# ---------------------------------------------------------------- creation

def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """A 2-d array of n_rows x n_cols (n_cols None: n_rows) with ones on diagonal k (> 0 above the main
    diagonal, < 0 below) and zeros elsewhere; dtype None is float64."""
    n_rows = _size(n_rows, "eye: n_rows")
    n_cols = n_rows if n_cols is None else _size(n_cols, "eye: n_cols")
    k = _index(k, "eye: k")
    out = zeros((n_rows, n_cols), dtype=np.float64 if dtype is None else dtype, device=device)
    # The diagonal is a strided view of the flat array: every (n_cols + 1)-th element from its first one.
    start, count = (k, min(n_rows, n_cols - k)) if k >= 0 else (-k * n_cols, min(n_rows + k, n_cols))
    if count > 0:
        out.reshape(-1)[start::n_cols + 1][:count].fill(1)
    return out


@_on_data
def meshgrid(*arrays, indexing="xy"):
    """Coordinate arrays from 1-d coordinate vectors of one dtype, as a list of new arrays on their device:
    indexing 'ij' gives each the shape (N1, N2, ..., Nn), 'xy' (N2, N1, N3, ..., Nn)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    for i, a in enumerate(arrays):
        _array("meshgrid", a, f"argument {i}")
        if a.ndim != 1:
            raise ValueError(f"meshgrid: the arrays must be one-dimensional; argument {i} has shape {a.shape}")
    if len({a.dtype for a in arrays}) > 1:
        raise ValueError(f"meshgrid: the arrays must have one dtype, not {', '.join(str(a.dtype) for a in arrays)}")
    if not arrays:
        return []
    _check_device("meshgrid", *arrays)
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(arrays)
    for a, axis in zip(arrays, axes):
        shape[axis] = a.shape[0]
    return [_along(a, axis, len(arrays))._broadcast_to(tuple(shape)).copy() for a, axis in zip(arrays, axes)]


def _triangle(name, x, k):
    _array(name, x)
    if x.ndim < 2:
        raise ValueError(f"{name}: x must have at least two dimensions, not {x.ndim}")
    k = _index(k, f"{name}: k")
    rows, cols = x.shape[-2:]
    offset = subtract(_indices(cols).reshape(1, cols), _indices(rows).reshape(rows, 1))  # column - row
    keep = less_equal(offset, k) if name == "tril" else greater_equal(offset, k)
    return where(keep, x, x.dtype.type(0))


@_on_data
def tril(x, /, *, k=0):
    """A copy of x (a stack of matrices) with the elements above diagonal k zeroed."""
    return _triangle("tril", x, k)


@_on_data
def triu(x, /, *, k=0):
    """A copy of x (a stack of matrices) with the elements below diagonal k zeroed."""
    return _triangle("triu", x, k)


# ---------------------------------------------------------------- manipulation

def _axis_tuple(axis):
    return tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)


@_on_data
def roll(x, /, shift, *, axis=None):
    """x with its elements shifted by `shift` places along `axis` (None: the flattened array, then x's
    shape again), those rolling off one end coming back at the other. shift and axis may be tuples of one
    length (an int shift applies to every axis given; shifts along a repeated axis add up)."""
    _array("roll", x)
    shifts = _axis_tuple(shift)
    shifts = tuple(_index(s, "roll: shift") for s in shifts)
    if axis is None:
        return _roll({0: builtins.sum(shifts)}, x.reshape(-1)).reshape(x.shape)
    axes = _layout.normalize_axis(_axis_tuple(axis), x.ndim, allow_duplicate=True)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift and axis must have the same length, not {len(shifts)} and {len(axes)}")
    amounts = {}
    for a, s in zip(axes, shifts):
        amounts[a] = amounts.get(a, 0) + s
    return _roll(amounts, x)


def _roll(amounts, x):
    result = x
    for axis, shift in amounts.items():
        n = result.shape[axis]
        if n == 0 or shift % n == 0:
            continue
        s = shift % n
        result = concatenate([_slice_along(result, axis, slice(n - s, None)),
                              _slice_along(result, axis, slice(None, n - s))], axis=axis)
    return result.copy() if result is x else result


@_on_data
def repeat(x, repeats, /, *, axis=None):
    """Each element of x repeated `repeats` times along `axis` (None: the flattened array). repeats: an int,
    or an integer array of 1 or x.shape[axis] elements (its sum, the result's size, is read back)."""
    _array("repeat", x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    else:
        axis = _layout.normalize_axis(_index(axis, "repeat: axis"), x.ndim)
    n = x.shape[axis]
    if isinstance(repeats, ndarray):
        if repeats.dtype.kind not in "iu":
            raise TypeError(f"repeat: repeats must be an int or an array of an integer dtype, not {repeats.dtype}")
        if repeats.ndim > 1 or repeats.size not in (1, n):
            raise ValueError(f"repeat: repeats has shape {repeats.shape}; it must be an int or a 1-d array of 1 "
                             f"or {n} elements (x's axis {axis} has {n})")
        _check_device("repeat", x, repeats)
        counts = repeats.reshape(-1).astype(_INT64, copy=False)
        if counts.size and _any(less(counts, 0)).item():
            raise ValueError("repeat: repeats must not be negative")
        if counts.size == 1 and n != 1:
            return _repeat_each(x, axis, n, int(counts.item()))
        ends = cumsum(counts)
        total = int(ends[-1].item()) if n else 0
        index = searchsorted(ends, _indices(total), side="right")
        return take(x, index, axis=axis, mode="clip")
    count = _index(repeats, "repeat: repeats (an int or an integer array)")
    if count < 0:
        raise ValueError(f"repeat: repeats must not be negative, not {count}")
    return _repeat_each(x, axis, n, count)


def _repeat_each(x, axis, n, count):
    index = floor_divide(_indices(n * count), count) if count else _indices(0)
    return take(x, index, axis=axis, mode="clip")


@_on_data
def tile(x, repetitions, /):
    """x repeated repetitions[i] times along axis i (the shorter of x.shape and repetitions padded with
    ones in front)."""
    _array("tile", x)
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(f"tile: repetitions must be a tuple of ints, not {type(repetitions).__name__}")
    reps = tuple(_size(r, "tile: repetitions entry") for r in repetitions)
    ndim = builtins.max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    x = x.reshape((1,) * (ndim - x.ndim) + x.shape)
    shape = tuple(n * r for n, r in zip(x.shape, reps))
    if 0 in shape:
        return empty(shape, x.dtype)
    result = x
    for axis, r in enumerate(reps):
        if r != 1:
            result = take(result, _indices(result.shape[axis] * r), axis=axis, mode="wrap")
    return result.copy() if result is x else result


# ---------------------------------------------------------------- tensordot and vecdot

def _exact_matmul(a, b, dtype):
    """a @ b for 2-d integer arrays, exact in dtype's modular arithmetic (matmul computes integers in
    float64, exact only below 2**53): broadcast products summed, over chunks of the shared dimension."""
    m, k = a.shape
    n = b.shape[1]
    if k == 0:
        return zeros((m, n), dtype)
    chunk = builtins.max(1, (1 << 24) // builtins.max(1, m * n))
    total = None
    for start in range(0, k, chunk):
        part = slice(start, builtins.min(k, start + chunk))
        products = multiply(a[:, part, None], b[None, part, :])
        partial = _sum(products, axis=1)
        total = partial if total is None else add(total, partial)
    return total.astype(dtype, copy=False)


@_on_data
def tensordot(x1, x2, /, *, axes=2):
    """The tensor contraction of x1 and x2 over `axes`: an int N (the last N axes of x1 with the first N of
    x2) or two sequences of axes of one length; the result has the uncontracted axes of x1, then of x2."""
    _array("tensordot", x1, "x1")
    _array("tensordot", x2, "x2")
    _numeric("tensordot", x1, x2)
    _check_device("tensordot", x1, x2)
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an int or a pair of sequences of axes, not {axes!r}")
        first, second = (tuple(_index(a, "tensordot: an axis") for a in _axis_tuple(seq)) for seq in axes)
        if len(first) != len(second):
            raise ValueError(f"tensordot: the two sequences of axes must have one length, not {len(first)} and "
                             f"{len(second)}")
        first = _layout.normalize_axis(first, x1.ndim) if first else ()
        second = _layout.normalize_axis(second, x2.ndim) if second else ()
        if len(set(first)) != len(first) or len(set(second)) != len(second):
            raise ValueError(f"tensordot: an axis is repeated in {axes!r}")
    else:
        count = _index(axes, "tensordot: axes (an int or a pair of sequences)")
        if count < 0 or count > builtins.min(x1.ndim, x2.ndim):
            raise ValueError(f"tensordot: axes={count} must be between 0 and the dimensions of x1 and x2 "
                             f"({x1.ndim} and {x2.ndim})")
        first, second = tuple(range(x1.ndim - count, x1.ndim)), tuple(range(count))
    for a, b in zip(first, second):
        if x1.shape[a] != x2.shape[b]:
            raise ValueError(f"tensordot: axis {a} of x1 has {x1.shape[a]} elements and axis {b} of x2 "
                             f"{x2.shape[b]}; contracted axes must match (they are not broadcast)")
    free1 = [a for a in range(x1.ndim) if a not in first]
    free2 = [b for b in range(x2.ndim) if b not in second]
    shape = tuple(x1.shape[a] for a in free1) + tuple(x2.shape[b] for b in free2)
    _layout._check_ndim(len(shape))
    k = math.prod(x1.shape[a] for a in first)
    a = x1.transpose(tuple(free1) + first).reshape(math.prod(x1.shape[a] for a in free1), k)
    b = x2.transpose(second + tuple(free2)).reshape(k, math.prod(x2.shape[b] for b in free2))
    dtype = _dtypes.result_type(x1, x2)
    product = _exact_matmul(a, b, dtype) if dtype.kind in "iu" else matmul(a, b)
    return product.reshape(shape)


@_on_data
def vecdot(x1, x2, /, *, axis=-1):
    """The dot products of the vectors of x1 and x2 along `axis` (negative: counted from the end, the other
    axes broadcast), conjugating x1 for complex dtypes."""
    _array("vecdot", x1, "x1")
    _array("vecdot", x2, "x2")
    _numeric("vecdot", x1, x2)
    _check_device("vecdot", x1, x2)
    axis = _index(axis, "vecdot: axis")
    ndim = builtins.max(x1.ndim, x2.ndim)
    if axis >= 0:
        raise ValueError(f"vecdot: axis must be negative (counted from the last axis), not {axis}")
    if axis < -ndim or axis < -1 and ndim == 0:
        raise ValueError(f"vecdot: axis {axis} is out of bounds for arrays of {x1.ndim} and {x2.ndim} dimensions")
    shape1 = (1,) * (ndim - x1.ndim) + x1.shape
    shape2 = (1,) * (ndim - x2.ndim) + x2.shape
    if shape1[axis] != shape2[axis]:
        raise ValueError(f"vecdot: x1 has {shape1[axis]} elements along axis {axis} and x2 {shape2[axis]}; "
                         f"they must match (the contracted axis is not broadcast)")
    dtype = _dtypes.result_type(x1, x2)
    if dtype.kind == "c":  # the standard conjugates x1
        x1 = conjugate(x1)
    result = _sum(multiply(x1, x2), axis=axis)
    return result.astype(dtype, copy=False)


# ---------------------------------------------------------------- set functions

# The standard's named tuples of results (array-api-strict's names).
UniqueAllResult = collections.namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"],
                                         module="hipkit")
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"], module="hipkit")
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", ["values", "inverse_indices"], module="hipkit")


def _unique(name, x, want_order):
    """(values, indices, inverse_indices, counts) of x's distinct elements, sorted (NaN last, each NaN
    distinct, as the standard asks; complex numbers by real part, then imaginary part), computed on the device: a stable sort of the flattened array, the
    positions where a new value starts (their count read back), and from them the rest; indices and
    inverse_indices (only when want_order) need the sorting permutation."""
    _array(name, x)
    flat = x.reshape(-1)
    n = flat.size
    if n == 0:
        none = empty((0,), _INT64)
        return flat.copy(), none, empty(x.shape, _INT64), none
    if x.dtype.kind == "c":
        # complex numbers: in the lexicographic order of (real, imaginary), from two stable sorts (the
        # imaginary parts, then the real parts of that order); equal values still end up side by side
        by_imag = argsort(flat.imag)
        order = take(by_imag, argsort(take(flat.real, by_imag, mode="clip")), mode="clip")
        ordered = take(flat, order, mode="clip")
    elif want_order:
        order = argsort(flat)
        ordered = take(flat, order, mode="clip")
    else:
        order, ordered = None, sort(flat)
    starts_here = empty((n,), _BOOL)
    starts_here[:1] = True
    not_equal(ordered[1:], ordered[:-1], out=starts_here[1:])  # NaN != NaN: each NaN is its own value
    values = _select(ordered, starts_here)
    starts = _select(_indices(n), starts_here)
    counts = subtract(concatenate([starts[1:], full((1,), n, _INT64)]), starts)
    if not want_order:
        return values, None, None, counts
    indices = take(order, starts, mode="clip")  # the stable sort puts each value's first occurrence first
    inverse = empty((n,), _INT64)
    put(inverse, order, subtract(cumsum(starts_here), 1), mode="wrap")
    return values, indices, inverse.reshape(x.shape), counts


@_on_data
def unique_all(x, /):
    """The distinct elements of x (sorted, NaN last, each NaN distinct), the index of each one's first
    occurrence in the flattened x, the index into values of every element of x (x's shape), and the counts."""
    return UniqueAllResult(*_unique("unique_all", x, True))


@_on_data
def unique_counts(x, /):
    """The distinct elements of x (sorted, NaN last, each NaN distinct) and how often each occurs."""
    values, _, _, counts = _unique("unique_counts", x, False)
    return UniqueCountsResult(values, counts)


@_on_data
def unique_inverse(x, /):
    """The distinct elements of x (sorted, NaN last, each NaN distinct) and, for every element of x (in x's
    shape), the index of its value among them."""
    values, _, inverse, _ = _unique("unique_inverse", x, True)
    return UniqueInverseResult(values, inverse)


@_on_data
def unique_values(x, /):
    """The distinct elements of x, sorted (NaN last, each NaN distinct)."""
    return _unique("unique_values", x, False)[0]


# ---------------------------------------------------------------- searching and indexing

def _before(a, b, floats):
    """a < b elementwise in the order sort uses (NaN after every number)."""
    lt = less(a, b)
    return logical_or(lt, logical_and(isnan(b), logical_not(isnan(a)))) if floats else lt


@_on_data
def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """For each value of x2, the index at which inserting it before keeps x1 (1-d, ascending, or
    ascending in the order `sorter` gives) sorted: the first such index (side 'left') or the last ('right').
    NaN sorts after every number, as in sort. A binary search on the device: log2(len(x1)) rounds over all
    of x2 at once. x2 may be a Python scalar (a 0-d result)."""
    _array("searchsorted", x1, "x1")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be one-dimensional, not of shape {x1.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
    if type(x2) in (bool, int, float):
        x2 = full((), x2, _dtypes.result_type(x1, x2))
    _array("searchsorted", x2, "x2 (an array or a Python scalar)")
    _numeric("searchsorted", x1, x2)
    _check_device("searchsorted", x1, x2)
    if sorter is not None:
        _array("searchsorted", sorter, "sorter")
        if sorter.dtype.kind not in "iu" or sorter.shape != x1.shape:
            raise ValueError(f"searchsorted: sorter must be an integer array of x1's shape {x1.shape}, not "
                             f"{sorter.dtype} of shape {sorter.shape}")
        _check_device("searchsorted", x1, sorter)
        x1 = take(x1, sorter)
    n = x1.shape[0]
    low = zeros(x2.shape, _INT64)
    if n == 0 or x2.size == 0:
        return low
    high = full(x2.shape, n, _INT64)
    floats = x1.dtype.kind == "f" or x2.dtype.kind == "f"
    for _ in range(n.bit_length()):  # each round at least halves every interval [low, high)
        mid = floor_divide(add(low, high), 2)
        value = take(x1, mid, mode="clip")  # mid == n only where the interval is empty already
        right = _before(value, x2, floats) if side == "left" else logical_not(_before(x2, value, floats))
        active = less(low, high)
        low = where(logical_and(active, right), add(mid, 1), low)
        high = where(logical_and(active, logical_not(right)), mid, high)
    return low


@_on_data
def take_along_axis(x, indices, /, *, axis=-1):
    """The elements of x at `indices` (an integer array of x's number of dimensions; negative indices count
    from the end) along `axis`; the other axes broadcast."""
    _array("take_along_axis", x)
    _array("take_along_axis", indices, "indices")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"take_along_axis: indices must have an integer dtype, not {indices.dtype}")
    if x.ndim != indices.ndim:
        raise ValueError(f"take_along_axis: x and indices must have the same number of dimensions, not {x.ndim} "
                         f"and {indices.ndim}")
    _check_device("take_along_axis", x, indices)
    axis = _layout.normalize_axis(_index(axis, "take_along_axis: axis"), x.ndim)
    shape = []
    for d, (a, b) in enumerate(zip(x.shape, indices.shape)):
        if d == axis:
            shape.append(b)
        elif a == b or 1 in (a, b):
            shape.append(b if a == 1 else a)
        else:
            raise ValueError(f"take_along_axis: x of shape {x.shape} and indices of shape {indices.shape} do not "
                             f"broadcast along axis {d}")
    shape = tuple(shape)
    n = x.shape[axis]
    index = indices.astype(_INT64, copy=False)
    if index.size and _any(logical_or(less(index, -n), greater_equal(index, n))).item():
        raise IndexError(f"take_along_axis: an index is out of bounds for axis {axis} with size {n}")
    if 0 in shape:
        return empty(shape, x.dtype)
    index = where(less(index, 0), add(index, n), index)
    steps = _layout.contiguous_strides(x.shape)
    flat = multiply(index, steps[axis])._broadcast_to(shape)
    for d in range(x.ndim):
        if d != axis and x.shape[d] != 1:
            flat = add(flat, _along(multiply(_indices(shape[d]), steps[d]), d, x.ndim))
    source = x if x._contiguous else x.copy()
    return take(source.reshape(-1), flat, mode="clip")


@_on_data
def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The n-th forward difference of x along `axis` (x[i+1] - x[i], n times; for bool, x[i+1] != x[i]),
    with `prepend` and `append` (arrays of x's shape but along axis) joined to x first."""
    _array("diff", x)
    if x.ndim == 0:
        raise ValueError("diff: x must have at least one dimension")
    axis = _layout.normalize_axis(_index(axis, "diff: axis"), x.ndim)
    n = _size(n, "diff: n")
    parts = []
    for what, part in (("prepend", prepend), ("x", x), ("append", append)):
        if part is None:
            continue
        if type(part) in (bool, int, float) or isinstance(part, ndarray) and part.ndim == 0:
            part = full(x.shape[:axis] + (1,) + x.shape[axis + 1:], part, x.dtype if type(part) in (
                bool, int, float) else part.dtype)
        _array("diff", part, what)
        if part.ndim != x.ndim or part.shape[:axis] + part.shape[axis + 1:] != x.shape[:axis] + x.shape[axis + 1:]:
            raise ValueError(f"diff: {what} has shape {part.shape}; it must have x's shape {x.shape} except along "
                             f"axis {axis}")
        parts.append(part)
    result = concatenate(parts, axis=axis) if len(parts) > 1 else x
    for _ in range(n):
        later = _slice_along(result, axis, slice(1, None))
        earlier = _slice_along(result, axis, slice(None, -1))
        result = not_equal(later, earlier) if result.dtype == _BOOL else subtract(later, earlier)
    return result
