"""The matrix products (hk_matmul): matmul, the @ operator (float32 and float64 of one dtype in C:
hipkit._native.matmul), and dot, vdot and inner made of it. Installs ndarray's @ operators and its dot
method. (hipkit.linalg is the public numpy.linalg-like namespace, above hipkit.ops.)"""
import functools

import numpy as np

from .. import _dtypes
from .. import _layout
from .. import _native
from .._ffi import lib
from ..array import _check_device, _copy_into, _desc, _on_data, _overlaps, ndarray
from ..device import _stream_handle
from ..errors import check
from ._base import _FLOAT16, _FLOAT32, _FLOAT64, _array_arg, _operand, _operator, _python_path
from .elementwise import add, multiply, subtract


def _matmul_compute_dtype(dtype):
    if dtype.kind == "c":
        return dtype
    return _FLOAT32 if dtype in (_FLOAT16, _FLOAT32) else _FLOAT64


def _complex_matmul(a, b, full, engine, stream):
    """a @ b for complex a and b of one dtype, from the real products of their parts (views of their
    memory): (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br), four real matmuls of the
    vendor BLAS or the own kernel, combined into the result's parts."""
    real = a.real.dtype
    handle = _stream_handle(stream)

    def product(x, y):
        t = ndarray._empty(full, real)
        check(lib.hk_matmul(_desc(x), _desc(y), _desc(t), engine, handle))
        return t

    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    target = ndarray._empty(full, a.dtype)
    subtract(product(ar, br), product(ai, bi), out=target.real, stream=stream)
    add(product(ar, bi), product(ai, br), out=target.imag, stream=stream)
    return target


_ENGINES = {"auto": lib.HK_MATMUL_AUTO, "own": lib.HK_MATMUL_OWN, "vendor": lib.HK_MATMUL_VENDOR}


@_on_data
def matmul(x1, x2, /, out=None, *, engine="auto", stream=None):
    """NumPy's matmul (the @ operator): batched over leading dimensions with
    broadcasting. float32 and float64 on the GPU (float32 in full float32
    precision, no TF32), complex64 and complex128 as four real products of
    their parts; float16 computes in float32; integer and bool
    inputs compute in float64 and are converted back (exact while every sum
    stays below 2**53). engine: "auto" (the vendor BLAS when present), "own"
    (hipkit's kernel) or "vendor"."""
    for i, x in enumerate((x1, x2)):
        if not isinstance(x, ndarray) or x.ndim == 0:
            if isinstance(x, ndarray) or type(x) in (bool, int, float, complex) or isinstance(x, np.generic):
                raise ValueError(f"matmul: Input operand {i} does not have enough dimensions (has 0, gufunc "
                                 f"core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
            _operand("matmul", x)
    if engine not in _ENGINES:
        raise ValueError(f"matmul: engine must be one of {sorted(_ENGINES)}, got {engine!r}")
    result_dtype = _dtypes.result_type(x1, x2)
    compute = _matmul_compute_dtype(result_dtype)
    a = x1 if x1.ndim > 1 else x1.reshape(1, x1.shape[0])
    b = x2 if x2.ndim > 1 else x2.reshape(x2.shape[0], 1)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                         f"signature (n?,k),(k,m?)->(n?,m?) (size {x2.shape[0 if x2.ndim == 1 else -2]} is "
                         f"different from {x1.shape[-1]})")
    batch = _layout.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    full = batch + (a.shape[-2], b.shape[-1])
    shape = batch + ((a.shape[-2],) if x1.ndim > 1 else ()) + ((b.shape[-1],) if x2.ndim > 1 else ())
    if out is not None and (not isinstance(out, ndarray) or out.shape != shape):
        raise ValueError(f"matmul: out must be a hipkit.ndarray of shape {shape}")
    _check_device("matmul", a, b, *([out] if out is not None else []))
    a = a if a.dtype == compute else a.astype(compute, stream=stream)
    b = b if b.dtype == compute else b.astype(compute, stream=stream)
    if compute.kind == "c":
        target = _complex_matmul(a, b, full, _ENGINES[engine], stream)
    else:
        direct = out is not None and out.dtype == compute and not _overlaps(out, a) and not _overlaps(out, b)
        target = out.reshape(full) if direct and out._contiguous else ndarray._empty(full, compute)
        check(lib.hk_matmul(_desc(a), _desc(b), _desc(target), _ENGINES[engine], _stream_handle(stream)))
    result = target.reshape(shape)
    if out is not None:
        if result._data != out._data:
            _copy_into(out, result, stream)
        return out
    return result if result.dtype == result_dtype else result.astype(result_dtype, stream=stream)


matmul = functools.update_wrapper(_native.matmul(0, matmul), matmul)  # the common calls in C (native/matmul.c)


def dot(a, b, out=None, *, stream=None):
    """NumPy's dot for scalars, vectors and matrices (ndim <= 2)."""
    if not isinstance(a, ndarray) or not isinstance(b, ndarray) or a.ndim == 0 or b.ndim == 0:
        return multiply(a, b, out=out, stream=stream)
    if a.ndim > 2 or b.ndim > 2:
        raise NotImplementedError("hipkit.dot takes arrays of up to 2 dimensions; use hipkit.matmul for "
                                  "stacks of matrices (its broadcasting differs from NumPy's dot)")
    return matmul(a, b, out=out, stream=stream)


def vdot(a, b, *, stream=None):
    a, b = _array_arg("vdot", a), _array_arg("vdot", b)
    if a.size != b.size:
        raise ValueError("cannot reshape arrays of different sizes in vdot")
    return dot(a.ravel(), b.ravel(), stream=stream)


def inner(a, b, *, stream=None):
    if isinstance(a, ndarray) and isinstance(b, ndarray) and a.ndim == 1 and b.ndim == 1:
        return dot(a, b, stream=stream)
    raise NotImplementedError("hipkit.inner takes two 1-d arrays")


# ---------------------------------------------------------------- operators and methods on ndarray

def _install_operators():
    """ndarray's @ operators over matmul (the common cases of x @ y in C, the rest in Python: _operator),
    and its dot method."""
    general = _python_path(matmul)
    forward, inplace = _operator(general), _operator(general, inplace=True)
    reflected = _operator(general, reflected=True)
    forward = functools.update_wrapper(_native.matmul(1, forward), forward)
    ndarray.__matmul__, ndarray.__rmatmul__, ndarray.__imatmul__ = forward, reflected, inplace
    ndarray.dot = dot


_install_operators()
