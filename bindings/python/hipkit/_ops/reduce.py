"""The reductions over axes (hk_reduce): sum, prod, min, max, argmin, argmax, any, all and mean, each behind
its C path (hipkit._native.reduction), var and std, and count_nonzero (a sum of not_equal). Full reductions
return 0-d arrays (no copy to the host). Installs ndarray's reduction methods."""
import builtins
import functools
import math
import operator

from .. import _dtypes
from .. import _layout
from .. import _native
from .._ffi import lib
from ..array import _HK_DTYPE, _check_device, _copy_into, _desc, _dtype, _on_data, _overlaps, ndarray
from ..device import _stream_handle
from ..errors import check
from ._base import _BOOL, _FLOAT64, _INT64, _array_arg
from .elementwise import multiply, not_equal, sqrt


def _axes(axis, ndim):
    """(tuple of reduced axes, bit mask) for NumPy's axis argument."""
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = _layout.normalize_axis(axis if isinstance(axis, (tuple, list)) else (axis,), ndim)
    mask = 0
    for a in axes:
        mask |= 1 << a
    return axes, mask


_REDUCE_OPS = {
    "sum": lib.HK_REDUCE_SUM, "prod": lib.HK_REDUCE_PROD, "min": lib.HK_REDUCE_MIN, "max": lib.HK_REDUCE_MAX,
    "argmin": lib.HK_REDUCE_ARGMIN, "argmax": lib.HK_REDUCE_ARGMAX, "any": lib.HK_REDUCE_ANY,
    "all": lib.HK_REDUCE_ALL, "mean": lib.HK_REDUCE_MEAN, "var": lib.HK_REDUCE_VAR, "std": lib.HK_REDUCE_STD,
}
_NUMPY_NAME = {"min": "minimum", "max": "maximum", "argmin": "argmin", "argmax": "argmax"}


def _reduce_dtype(name, dtype):
    if name in ("sum", "prod"):
        return _dtypes.sum_accumulator_type(dtype)
    if name in ("min", "max"):
        return dtype
    if name in ("argmin", "argmax"):
        return _INT64
    if name in ("any", "all"):
        return _BOOL
    if dtype.kind == "c":  # mean: complex; var, std: their real dtype (which the library refuses: no order)
        return dtype if name == "mean" else _dtypes.real_dtype(dtype)
    return dtype if dtype.kind == "f" else _FLOAT64  # mean, var, std


def _zero_d_axis(name, axis):
    """The axes a 0-d array reduces over for an int `axis`, as NumPy 2 takes it: its ufunc reductions (sum,
    prod, min, max, any, all) accept axis 0 and -1 and reduce over no axis (the element itself; a tuple
    such as (0,) is out of bounds), argmin and argmax see a 1-d array of one element (0 and -1 give index
    0; an AxisError names dimension 1, as NumPy's does), and mean, var and std take none (AxisError). The
    errors are numpy.exceptions.AxisError (a ValueError and an IndexError), as _layout raises for every
    axis out of bounds."""
    if name in ("argmin", "argmax"):
        _layout.normalize_axis(axis, 1)
        return ()
    if name in ("mean", "var", "std"):
        return axis  # _axes raises AxisError(axis, 0), as NumPy's
    return () if operator.index(axis) in (0, -1) else axis


@_on_data
def _reduce(name, x, axis=None, dtype=None, out=None, keepdims=False, ddof=0, stream=None):
    x = _array_arg(name, x)
    wanted = None  # sum's and prod's dtype=, which is also the result's (NumPy's rule)
    if dtype is not None:
        dt = _dtype(dtype)
        if dt != x.dtype:
            x = x.astype(dt, stream=stream)
        wanted = dt if name in ("sum", "prod") else None
    if name in ("argmin", "argmax") and isinstance(axis, (tuple, list)):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    if name in ("any", "all") and x.dtype.kind == "c":
        x = not_equal(x, 0, stream=stream)  # a complex number is true when either part is non-zero
    if x.ndim == 0 and axis is not None and not isinstance(axis, (tuple, list)):
        axis = _zero_d_axis(name, axis)
    axes, mask = _axes(axis, x.ndim)
    if keepdims:
        shape = tuple(1 if k in axes else n for k, n in enumerate(x.shape))
    else:
        shape = tuple(n for k, n in enumerate(x.shape) if k not in axes)
    if name in ("min", "max", "argmin", "argmax") and builtins.any(x.shape[k] == 0 for k in axes) or (
            name in ("min", "max", "argmin", "argmax") and x.size == 0):
        what = "an empty sequence" if name.startswith("arg") else \
            f"zero-size array to reduction operation {_NUMPY_NAME[name]} which has no identity"
        raise ValueError(f"attempt to get {name} of {what}" if name.startswith("arg") else what)
    result_dtype = _reduce_dtype(name, x.dtype)
    if out is not None:
        if not isinstance(out, ndarray) or out.shape != shape:
            raise ValueError(f"{name}: out must be a hipkit.ndarray of shape {shape}")
        _check_device(name, x, out)
    else:
        _check_device(name, x)
    target = out if out is not None and out.dtype == result_dtype and not _overlaps(out, x) else \
        ndarray._empty(shape, result_dtype)
    check(lib.hk_reduce(_REDUCE_OPS[name], _desc(x), mask, _desc(target), ddof, _stream_handle(stream)))
    if out is not None and target is not out:
        _copy_into(out, target, stream)
        return out
    if out is None and wanted is not None and wanted != result_dtype:
        # accumulated in int64/uint64 and converted: the same value modulo 2**bits as NumPy's sum in dtype
        return target.astype(wanted, stream=stream)
    return target


def sum(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    """Sum over `axis` (None: all; int or tuple); int arrays accumulate in int64/uint64, as NumPy."""
    return _reduce("sum", a, axis, dtype, out, keepdims, stream=stream)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    return _reduce("prod", a, axis, dtype, out, keepdims, stream=stream)


def min(a, axis=None, out=None, keepdims=False, *, stream=None):
    """The smallest element (NaN if any is NaN); empty raises ValueError."""
    return _reduce("min", a, axis, None, out, keepdims, stream=stream)


def max(a, axis=None, out=None, keepdims=False, *, stream=None):
    return _reduce("max", a, axis, None, out, keepdims, stream=stream)


amin, amax = min, max


def argmin(a, axis=None, out=None, *, keepdims=False, stream=None):
    """Index of the smallest element (the first one; the first NaN if any); axis None: into the flattened array."""
    return _reduce("argmin", a, axis, None, out, keepdims, stream=stream)


def argmax(a, axis=None, out=None, *, keepdims=False, stream=None):
    return _reduce("argmax", a, axis, None, out, keepdims, stream=stream)


def any(a, axis=None, out=None, keepdims=False, *, stream=None):
    return _reduce("any", a, axis, None, out, keepdims, stream=stream)


def all(a, axis=None, out=None, keepdims=False, *, stream=None):
    return _reduce("all", a, axis, None, out, keepdims, stream=stream)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    """Mean (integers in float64, as NumPy; an empty mean is NaN)."""
    return _reduce("mean", a, axis, dtype, out, keepdims, stream=stream)


def _fast_reduction(fn, signature):
    """fn behind its C path (hipkit._native.reduction, bindings/python/native/reduce.c), which does the
    common calls completely (an array of any layout, axis None / int / tuple, keepdims, a new output) and
    hands everything else to fn. signature: 0 (a, axis, dtype, out, keepdims), 1 (a, axis, out, keepdims),
    2 (argmin/argmax: one axis), 3 (var/std: ddof= or correction=)."""
    name = fn.__name__
    result = bytes(_HK_DTYPE[_reduce_dtype(name, d)] for d in _dtypes.SUPPORTED)
    return functools.update_wrapper(_native.reduction(_REDUCE_OPS[name], signature, result, fn), fn)


sum, prod, mean = (_fast_reduction(f, 0) for f in (sum, prod, mean))
min, max, any, all = (_fast_reduction(f, 1) for f in (min, max, any, all))
argmin, argmax = (_fast_reduction(f, 2) for f in (argmin, argmax))
amin, amax = min, max


def _ddof(ddof, correction):
    """NumPy's ddof or the array API's correction (the same number; give one): an int, or a float when
    correction is not a whole number (which the kernel, taking an int, cannot subtract: _scaled_variance)."""
    if correction == 0:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction have the same meaning; give only one")
    try:
        value = float(correction)
    except (TypeError, ValueError):
        raise TypeError(f"correction must be a real number, not {type(correction).__name__}") from None
    return int(value) if value.is_integer() else value


@_on_data
def _scaled_variance(name, a, axis, dtype, out, keepdims, correction, stream):
    """var or std with a correction that is not a whole number: the kernel's variance with ddof 0, times
    N / (N - correction) (N the number of elements reduced; infinite when N - correction <= 0, as NumPy's
    division by max(N - ddof, 0)), then its square root for std; on the device."""
    a = _array_arg(name, a)
    variance = _reduce("var", a, axis, dtype, None, keepdims, 0, stream=stream)
    if a.ndim == 0 and axis is not None and not isinstance(axis, (tuple, list)):
        axis = _zero_d_axis("var", axis)
    axes, _ = _axes(axis, a.ndim)
    count = math.prod(a.shape[k] for k in axes)
    factor = count / (count - correction) if count - correction > 0 else math.inf
    result = multiply(variance, factor, out=variance, stream=stream)
    if name == "std":
        result = sqrt(result, out=result, stream=stream)
    if out is None:
        return result
    if not isinstance(out, ndarray) or out.shape != result.shape:
        raise ValueError(f"{name}: out must be a hipkit.ndarray of shape {result.shape}")
    _check_device(name, out)
    _copy_into(out, result, stream)
    return out


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=0.0, stream=None):
    """Variance; ddof (NumPy) or correction (the array API's name; any real number) is subtracted from the
    count."""
    ddof = _ddof(ddof, correction)
    if isinstance(ddof, float):
        return _scaled_variance("var", a, axis, dtype, out, keepdims, ddof, stream)
    return _reduce("var", a, axis, dtype, out, keepdims, ddof, stream=stream)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=0.0, stream=None):
    """Standard deviation; ddof (NumPy) or correction (the array API's name; any real number) is subtracted
    from the count."""
    ddof = _ddof(ddof, correction)
    if isinstance(ddof, float):
        return _scaled_variance("std", a, axis, dtype, out, keepdims, ddof, stream)
    return _reduce("std", a, axis, dtype, out, keepdims, ddof, stream=stream)


var, std = (_fast_reduction(f, 3) for f in (var, std))


def count_nonzero(a, axis=None, *, keepdims=False, stream=None):
    a = _array_arg("count_nonzero", a)
    return sum(not_equal(a, 0, stream=stream), axis=axis, keepdims=keepdims, stream=stream)


def _install_methods():
    """ndarray's reduction methods, bound straight to these functions (the C callables bind self as their
    first argument)."""
    g = globals()
    for name in ("sum", "prod", "min", "max", "argmin", "argmax", "mean", "var", "std", "any", "all"):
        setattr(ndarray, name, g[name])


_install_methods()
