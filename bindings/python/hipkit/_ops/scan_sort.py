"""The scans (hk_scan: cumsum, cumprod, each common call in C: hipkit._native.scan) and sorting (hk_sort:
sort, argsort; always stable, NaN last). Installs ndarray's cumsum, cumprod and argsort methods and its
in-place sort."""
import builtins
import functools

from numpy.exceptions import AxisError

from .. import _dtypes
from .. import _layout
from .. import _native
from .._ffi import lib
from ..array import (_HK_DTYPE, _check_device, _copy_into, _desc, _dtype, _install_method, _on_data, _overlaps,
                     ndarray)
from ..device import _stream_handle
from ..errors import check
from ._base import _INT64, _NULL, _array_arg, _same_view
from .elementwise import multiply, subtract


# ---------------------------------------------------------------- scans

@_on_data
def _scan(name, op, a, axis, dtype, out, stream):
    a = _array_arg(name, a)
    wanted = None if dtype is None else _dtype(dtype)  # also the result's dtype (NumPy's rule)
    if wanted is not None and wanted != a.dtype:
        a = a.astype(wanted, stream=stream)
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = _layout.normalize_axis(axis, builtins.max(a.ndim, 1))
        if a.ndim == 0:
            a = a.reshape(1)
    result_dtype = _dtypes.sum_accumulator_type(a.dtype)
    if out is not None:
        if not isinstance(out, ndarray) or out.shape != a.shape:
            raise ValueError(f"{name}: out must be a hipkit.ndarray of shape {a.shape}")
        _check_device(name, a, out)
    else:
        _check_device(name, a)
    target = out if out is not None and out.dtype == result_dtype and (
        not _overlaps(out, a) or _same_view(out, a)) else ndarray._empty(a.shape, result_dtype)
    if a.dtype.kind == "c" and op == lib.HK_SCAN_CUMSUM:
        # Complex addition adds the parts: the cumsums of the real and imaginary parts, in place in
        # target's parts (views of its memory, every other float).
        for imag in (False, True):
            check(lib.hk_scan(op, _desc(a._part(imag)), axis, _desc(target._part(imag)), _stream_handle(stream)))
    elif a.dtype.kind == "c":
        _complex_cumprod(a, axis, target, stream)
    else:
        check(lib.hk_scan(op, _desc(a), axis, _desc(target), _stream_handle(stream)))
    if out is not None and target is not out:
        _copy_into(out, target, stream)
        return out
    if out is None and wanted is not None and wanted != result_dtype:
        # accumulated in int64/uint64 and converted: the same values modulo 2**bits as NumPy's scan in dtype
        return target.astype(wanted, stream=stream)
    return target


def _complex_cumprod(a, axis, target, stream):
    """target = cumprod(a) along axis for complex a (the library's scans do not multiply complex numbers):
    Hillis and Steele's scan, ceil(log2(n)) rounds of complex multiplies over shifted views of target (a
    tree of products, as a parallel scan rounds them), n log n multiplies in all."""
    _copy_into(target, a, stream)
    rows = target.swapaxes(axis, -1)
    n, step = rows.shape[-1], 1
    while step < n:
        earlier = rows[..., :n - step].copy(stream=stream)
        multiply(rows[..., step:], earlier, out=rows[..., step:], stream=stream)
        step *= 2


def cumsum(a, axis=None, dtype=None, out=None, *, stream=None):
    """Inclusive running sum along `axis` (None: over the flattened array)."""
    return _scan("cumsum", lib.HK_SCAN_CUMSUM, a, axis, dtype, out, stream)


def cumprod(a, axis=None, dtype=None, out=None, *, stream=None):
    return _scan("cumprod", lib.HK_SCAN_CUMPROD, a, axis, dtype, out, stream)


# The result dtype per input dtype for the C path (255: complex, which the Python path scans by parts).
_SCAN_RESULT = bytes(255 if d.kind == "c" else _HK_DTYPE[_dtypes.sum_accumulator_type(d)] for d in _dtypes.SUPPORTED)
cumsum = functools.update_wrapper(_native.scan(lib.HK_SCAN_CUMSUM, _SCAN_RESULT, cumsum), cumsum)  # native/scan.c
cumprod = functools.update_wrapper(_native.scan(lib.HK_SCAN_CUMPROD, _SCAN_RESULT, cumprod), cumprod)


# ---------------------------------------------------------------- sorting

def _sort_into(a, axis, keys, indices, stream):
    if a.ndim == 0:
        raise AxisError(axis, 0) if axis is not None else AssertionError
    axis = _layout.normalize_axis(axis, a.ndim)
    last = a.ndim - 1
    _check_device("sort", a, *[x for x in (keys, indices) if x is not None])
    check(lib.hk_sort(_desc(a.swapaxes(axis, last)),
                      _desc(keys.swapaxes(axis, last)) if keys is not None else _NULL,
                      _desc(indices.swapaxes(axis, last)) if indices is not None else _NULL,
                      _stream_handle(stream)))


def _flip(a, axis):
    return a[(slice(None),) * axis + (slice(None, None, -1),)]


@_on_data
def sort(a, axis=-1, *, descending=False, stable=True, stream=None):
    """A sorted copy (always stable; NaN last, or first when descending); axis None sorts the
    flattened array."""
    a = _array_arg("sort", a)
    if axis is None:
        a, axis = a.ravel(), 0
    out = ndarray._empty(a.shape, a.dtype)
    _sort_into(a, axis, out, None, stream)
    if descending:
        return _flip(out, _layout.normalize_axis(axis, a.ndim)).copy(stream=stream)
    return out


@_on_data
def argsort(a, axis=-1, *, descending=False, stable=True, stream=None):
    """The int64 indices that sort `a` along `axis` (always stable; NaN last, or first when
    descending: equal elements keep their order either way, as the array API asks)."""
    a = _array_arg("argsort", a)
    if axis is None:
        a, axis = a.ravel(), 0
    out = ndarray._empty(a.shape, _INT64)
    if not descending:
        _sort_into(a, axis, None, out, stream)
        return out
    # Stable descending: sort the reversed array ascending, reverse, and map back the positions.
    axis = _layout.normalize_axis(axis, a.ndim)
    _sort_into(_flip(a, axis), axis, None, out, stream)
    return subtract(a.shape[axis] - 1, _flip(out, axis), stream=stream)


sort = functools.update_wrapper(_native.sorting(False, sort), sort)  # along any axis in C (native/scan.c)
argsort = functools.update_wrapper(_native.sorting(True, argsort), argsort)


# ---------------------------------------------------------------- methods on ndarray

def _install_methods():
    """ndarray's cumsum, cumprod and argsort, bound straight to the functions above (the C callables bind
    self as their first argument), and its in-place sort."""
    g = globals()
    for name in ("cumsum", "cumprod", "argsort"):
        setattr(ndarray, name, g[name])

    @_on_data
    def sort(self, axis=-1, stream=None):
        """Sort in place along `axis` (stable; NaN last)."""
        _sort_into(self, axis, self, None, stream)

    _install_method(sort)


_install_methods()
