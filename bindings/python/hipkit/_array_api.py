"""The array API standard's names that hipkit provides by mapping them onto its NumPy-style functions
(views, metadata, or one existing kernel each): no new kernels. tests/python/test_array_api.py checks
their signatures and values against array-api-strict, and lists hipkit's deliberate deviations."""
import numpy as np

from . import _dtypes
from . import _layout
from ._ops.scan_sort import cumprod, cumsum
from .array import _dtype, _install_method, concatenate, ndarray, ones, zeros

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
    """Views of the arrays broadcast to one shape."""
    shape = _layout.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(a._broadcast_to(shape) for a in arrays)


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
    one kind (bool, integers, floats) and without losing values. Unlike numpy.can_cast, never across
    kinds (int8 to float32 is False)."""
    src, dst = _as_dtype(from_), _dtype(to)
    kind = {"b": "b", "i": "i", "u": "i", "f": "f"}
    return kind[src.kind] == kind[dst.kind] and bool(np.can_cast(src, dst, "safe"))


def isdtype(dtype, kind):
    """The array API's dtype kinds ('bool', 'signed integer', 'unsigned integer', 'integral',
    'real floating', 'numeric', ...) or dtypes, or a tuple of these."""
    return bool(np.isdtype(_dtype(dtype), kind if not isinstance(kind, tuple) else tuple(
        k if isinstance(k, str) else _dtype(k) for k in kind)))


def finfo(type, /):  # noqa: A002 (the standard's name)
    return np.finfo(_as_dtype(type))


def iinfo(type, /):  # noqa: A002
    return np.iinfo(_as_dtype(type))
