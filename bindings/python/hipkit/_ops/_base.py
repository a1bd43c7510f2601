"""What every op family shares: the dtypes they name, operand checks (_operand, _array_arg), the
in-place test _same_view, and the makers of ndarray's operator methods (_python_path, _operator)."""
import builtins
import types

import numpy as np

from .. import _dtypes
from .. import _layout
from .._ffi import ffi
from ..array import asarray, ndarray

_BOOL = np.dtype(np.bool_)
_INT8 = np.dtype(np.int8)
_INT64 = np.dtype(np.int64)
_FLOAT16 = np.dtype(np.float16)
_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_NULL = ffi.NULL


def _owner(x):
    return x._base if x._base is not None else x


def _operand_ok(x):
    """What operators accept on the other side (else NotImplemented)."""
    return isinstance(x, ndarray) or type(x) in (bool, int, float, complex) or (
        isinstance(x, np.generic) and x.dtype.kind in "biufc")


def _operand(name, x):
    """An ndarray, a Python scalar (weak), or a NumPy scalar (strong): as is.
    Host arrays raise: the copy to the device is the caller's to ask for."""
    if isinstance(x, ndarray) or type(x) in (bool, int, float, complex):
        return x
    if isinstance(x, np.generic):
        if not _dtypes.is_supported(x.dtype):
            raise TypeError(f"{name}: hipkit has no {x.dtype} dtype")
        return x
    if isinstance(x, np.ndarray):
        raise TypeError(f"{name}: an operand is a numpy.ndarray (host memory); copy it to the device "
                        f"with hipkit.asarray(x) first")
    kind = f"{type(x).__module__}.{type(x).__qualname__}".removeprefix("builtins.")
    raise TypeError(f"{name}: unsupported operand type {kind}; use hipkit arrays or Python/NumPy scalars "
                    f"(hipkit.asarray converts host data)")


def _array_arg(name, x):
    """A hipkit array for functions that need one (reductions, sort, ...):
    Python and NumPy scalars become 0-d device arrays; host arrays raise."""
    if isinstance(x, ndarray):
        return x
    _operand(name, x)
    return asarray(np.asarray(x))


def _same_view(a, b):
    """True when b, broadcast to a's shape, is exactly the view a (in-place ops)."""
    if a._data != b._data or a._hk_dtype != b._hk_dtype:
        return False
    try:
        strides = _layout.broadcast_strides(b.shape, b._el_strides, a.shape)
    except ValueError:
        return False
    return builtins.all(s == t or n == 1 for s, t, n in zip(strides, a._el_strides, a.shape)) and b.shape == a.shape


# ---------------------------------------------------------------- operators on ndarray

def _python_path(fn):
    """The Python function behind a C fast path (its __wrapped__); a Python function itself (whose
    __wrapped__, from functools.wraps, would skip its decorator, e.g. _on_data)."""
    return fn if isinstance(fn, types.FunctionType) else getattr(fn, "__wrapped__", fn)


def _operator(fn, reflected=False, inplace=False):
    """ndarray's operator method over fn, the Python path of a function (the families bind them straight
    to their functions: no per-call lookups); other operand types give NotImplemented, so Python tries
    the other side, then raises TypeError."""
    scalar_types = (bool, int, float, complex)
    if inplace:
        def method(self, other):
            if other.__class__ is ndarray or type(other) in scalar_types or _operand_ok(other):
                return fn(self, other, out=self)
            return NotImplemented
    elif reflected:
        def method(self, other):
            if type(other) in scalar_types or _operand_ok(other):
                return fn(other, self)
            return NotImplemented
    else:
        def method(self, other):
            if other.__class__ is ndarray or type(other) in scalar_types or _operand_ok(other):
                return fn(self, other)
            return NotImplemented
    return method
