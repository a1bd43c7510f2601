"""hipkit.linalg: vector norms (more of numpy.linalg later)."""
import math

import numpy as np

from . import ops


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
    kw = dict(axis=axis, keepdims=keepdims, stream=stream)
    if ord is None or ord == 2:
        return ops.sqrt(ops.sum(ops.multiply(x, x, stream=stream), **kw), stream=stream)
    if ord == math.inf:
        return ops.max(ops.absolute(x, stream=stream), **kw)
    if ord == -math.inf:
        return ops.min(ops.absolute(x, stream=stream), **kw)
    if ord == 0:
        return ops.sum(ops.not_equal(x, 0, stream=stream), **kw).astype(x.dtype)
    if ord == 1:
        return ops.sum(ops.absolute(x, stream=stream), **kw)
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    p = float(ord)
    powered = ops.power(ops.absolute(x, stream=stream), p, stream=stream)
    return ops.power(ops.sum(powered, **kw), 1.0 / p, stream=stream)
