"""hipkit's math under NumPy's names: elementwise functions (ufuncs) with
broadcasting, type promotion and out=, reductions over axes, scans, sorting,
matrix products and take. Each maps to one op family of the C library
(hk_elementwise, hk_reduce, hk_scan, hk_sort, hk_matmul, hk_take), which does
the work on the GPU; hipkit works out shapes and dtypes as NumPy 2 does
(NEP 50: Python scalars are "weak") and casts operands where the kernels need
one dtype.

All functions are asynchronous (stream=None: the default stream) except
where noted (nonzero, boolean indexing and take(mode='raise') wait for the
GPU, because the size or validity of their result is data-dependent).
Full reductions return 0-d arrays (no copy to the host): float(x.sum()),
x.sum().item() or .get() fetch the value.

The functions live in hipkit._ops, one module per op family (elementwise, reduce, scan_sort, linalg,
indexing), each of which installs its methods and operators on hipkit.ndarray; this module gathers
them under one name, the very callables (their C paths included).
"""
from numpy.exceptions import AxisError  # noqa: F401 (hipkit.ops has always had these names too)

from ._ffi import ffi, lib  # noqa: F401
from .array import asarray, ndarray  # noqa: F401
from .errors import InvalidArgumentError, check  # noqa: F401
from ._ops import elementwise as _elementwise
from ._ops._base import _array_arg  # noqa: F401 (hipkit.linalg uses it)
from ._ops.elementwise import (_OPS, _UFUNC_NAMES, _OpRow, _math_float, around, axpy, bitwise_not,  # noqa: F401
                               clip, invert, mod, positive, round, true_divide)
from ._ops.reduce import (all, amax, amin, any, argmax, argmin, count_nonzero, max, mean, min, prod, std,  # noqa: F401
                          sum, var)
from ._ops.scan_sort import _sort_into, argsort, cumprod, cumsum, sort  # noqa: F401
from ._ops.linalg import dot, inner, matmul, vdot  # noqa: F401
from ._ops.indexing import _advanced_get, _advanced_set, flatnonzero, nonzero, put, take, where  # noqa: F401

# Every elementwise function of the library's op table, under NumPy's and the array API's names.
globals().update({_name: getattr(_elementwise, _name) for _name in _UFUNC_NAMES})
