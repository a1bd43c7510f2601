"""hipkit.linalg: vector norms (more of numpy.linalg later), and the part of the array API's linalg
extension made of what hipkit has: matmul, matrix_transpose, tensordot and vecdot (the namespace's own
functions), diagonal (a view), trace, outer and vector_norm."""
import math

import numpy as np

from . import ops
from ._array_api import _array, _numeric, matrix_transpose, tensordot, vecdot  # noqa: F401 (the extension's names)
from .array import _on_data
from .device import _index
from .ops import matmul  # noqa: F401


def diagonal(x, /, *, offset=0):
    """The diagonal `offset` (> 0 above the main one, < 0 below) of each matrix of x (..., M, N), as a view
    of x of shape (..., K): K the diagonal's length."""
    _array("diagonal", x)
    if x.ndim < 2:
        raise ValueError(f"diagonal: x must have at least two dimensions, not {x.ndim}")
    offset = _index(offset, "diagonal: offset")
    rows, cols = x.shape[-2:]
    row_step, col_step = x._el_strides[-2:]
    if offset >= 0:
        length, start = max(0, min(rows, cols - offset)), offset * col_step
    else:
        length, start = max(0, min(rows + offset, cols)), -offset * row_step
    return x._view(x.shape[:-2] + (length,), x._el_strides[:-2] + (row_step + col_step,),
                   x._offset + (start if length else 0))


def trace(x, /, *, offset=0, dtype=None):
    """The sums of the diagonals `offset` of the matrices of x (..., M, N): shape (...). dtype None: x's,
    integers widened to int64 (uint64 for unsigned ones), as the standard and sum say."""
    _numeric("trace", _array("trace", x))
    return ops.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def outer(x1, x2, /):
    """The outer product of two 1-d arrays: x1[i] * x2[j], of shape (len(x1), len(x2)) and their
    promoted dtype."""
    for what, x in (("x1", x1), ("x2", x2)):
        _array("outer", x, what)
        if x.ndim != 1:
            raise ValueError(f"outer: {what} must be one-dimensional, not of shape {x.shape}")
    _numeric("outer", x1, x2)
    return ops.multiply(x1[:, None], x2[None, :])


def norm(x, ord=None, axis=None, keepdims=False, *, stream=None):
    """numpy.linalg.norm for vectors (1-d, or along one `axis`) and the
    Frobenius norm of matrices (ord None or 'fro'): ord None/2, 1, inf, -inf,
    0 (count of non-zeros) and any other p (sum(|x|**p)**(1/p)). Integer
    input computes in float64, as NumPy."""
    x = ops._array_arg("norm", x)
    if x.dtype.kind != "f":
        x = x.astype(np.float64, stream=stream)
    if axis is None and x.ndim == 2 and ord not in (None, "fro"):
        raise NotImplementedError("hipkit.linalg.norm: matrix norms other than Frobenius are not supported")
    if axis is None and x.ndim > 2 and ord is not None:
        raise ValueError("Improper number of dimensions to norm.")
    if isinstance(axis, (tuple, list)) and len(axis) == 2 and ord not in (None, "fro"):
        raise NotImplementedError("hipkit.linalg.norm: matrix norms other than Frobenius are not supported")
    if ord == "fro":
        ord = None
    return _vector_norm(x, 2 if ord is None else ord, axis, keepdims, stream)


def _vector_norm(x, ord, axis, keepdims, stream):
    """The `ord` norm of x's vectors along `axis` (None: all of x; an int or a tuple), x of a float dtype."""
    kw = dict(axis=axis, keepdims=keepdims, stream=stream)
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == 2:
        return ops.sqrt(ops.sum(ops.multiply(x, x, stream=stream), **kw), stream=stream)
    if ord == math.inf:
        return ops.max(ops.absolute(x, stream=stream), **kw)
    if ord == -math.inf:
        return ops.min(ops.absolute(x, stream=stream), **kw)
    if ord == 0:
        return ops.sum(ops.not_equal(x, 0, stream=stream), **kw).astype(x.dtype)
    if ord == 1:
        return ops.sum(ops.absolute(x, stream=stream), **kw)
    p = float(ord)
    powered = ops.power(ops.absolute(x, stream=stream), p, stream=stream)
    return ops.power(ops.sum(powered, **kw), 1.0 / p, stream=stream)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The array API's vector norm: over all of x (axis None), one axis or a tuple of axes, with ord 2
    (the default), 1, inf, -inf, 0 (the count of non-zeros) or any other real p (sum(|x|**p)**(1/p)), on x's
    device; integer input computes in float64, as numpy.linalg.norm."""
    _array("vector_norm", x)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    return _on_data(_vector_norm)(x, ord, axis, keepdims, None)
