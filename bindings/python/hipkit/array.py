"""hipkit.ndarray: a C-contiguous array in device memory, and the built-in ops.

Supported now: float32, float64, int32, int64; operands of one shape and one
dtype (no broadcasting, no type promotion yet). Checks that Python can do
cheaply happen here; everything else is the C library's to report.
Work passed a `stream=` runs asynchronously there: keep its arrays alive until
that stream has finished with them (freed memory is reused in default-stream order).
"""
import math

import numpy as np

from ._ffi import ffi, lib
from .device import _Exit, _stream_handle, _size, device_count
from .errors import check

_HK_DTYPE = {
    np.dtype(np.float32): lib.HK_FLOAT32,
    np.dtype(np.float64): lib.HK_FLOAT64,
    np.dtype(np.int32): lib.HK_INT32,
    np.dtype(np.int64): lib.HK_INT64,
}
_FLOATS = (lib.HK_FLOAT32, lib.HK_FLOAT64)
_INTS = (lib.HK_INT32, lib.HK_INT64)
_ALL = _FLOATS + _INTS
_DTYPE_NAME = {code: str(dtype) for dtype, code in _HK_DTYPE.items()}
_CTYPE = {lib.HK_FLOAT32: "float *", lib.HK_FLOAT64: "double *",
          lib.HK_INT32: "int32_t *", lib.HK_INT64: "int64_t *"}
_MAX_BYTES = 2**63 - 1  # what size_t and NumPy's intp can both describe


def _dtype(dtype):
    dt = np.dtype(dtype)
    if dt not in _HK_DTYPE:
        raise TypeError(f"hipkit supports float32, float64, int32 and int64 for now, not {dt}")
    return dt


def _shape(shape):
    if hasattr(shape, "__index__") and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, got {type(shape).__name__}") from None
    return tuple(_size(d, "shape entry") for d in dims)


_several_gpus = None


def _current_device():
    """The calling thread's device. Every op asks, so with one GPU (or none)
    the answer, 0, skips the library call."""
    global _several_gpus
    if _several_gpus is None:
        _several_gpus = device_count() > 1
    if not _several_gpus:
        return 0
    device = ffi.new("int *")
    check(lib.hk_device_get(device))
    return device[0]


def _host_scalar(value, hk_dtype):
    """One host element holding `value`, as the `const void *` the kernels take.
    cffi converts the plain cases quickly; NumPy does the rest (1.5 -> int32 1)
    and raises OverflowError for values out of range, as np.full does."""
    try:
        return ffi.new(_CTYPE[hk_dtype], value)
    except (TypeError, OverflowError):
        dtype = next(dt for dt, code in _HK_DTYPE.items() if code == hk_dtype)
        return ffi.from_buffer(np.asarray(value, dtype=dtype))


class ndarray:
    """A C-contiguous array in the memory of one GPU (the current device when
    it was made). Freed (back to the pool) when collected."""

    # NumPy then hands `numpy_array + hipkit_array` to our reflected operators,
    # which explain what is supported, instead of converting us silently.
    __array_ufunc__ = None
    _data = ffi.NULL  # until allocated, so __del__ of a half-made array does nothing

    def __init__(self, shape, dtype=np.float64):
        self._allocate(_shape(shape), _dtype(dtype))

    def _allocate(self, shape, dtype):
        size = math.prod(shape)
        if size * dtype.itemsize > _MAX_BYTES:
            raise ValueError(f"array is too big: {shape} of {dtype} is {size * dtype.itemsize} bytes")
        self.shape, self.dtype, self.size, self.nbytes = shape, dtype, size, size * dtype.itemsize
        self._hk_dtype = _HK_DTYPE[dtype]
        self.device = _current_device()
        data = ffi.new("void **")
        check(lib.hk_malloc(data, self.nbytes))  # 0 bytes: NULL, no GPU needed
        self._data = data[0]

    # __del__ rather than weakref.finalize: this is on every op's path and
    # costs a tenth as much. Default arguments survive module teardown.
    def __del__(self, _free=lib.hk_free, _exit=_Exit):
        if self._data and not _exit.started:
            _free(self._data)  # never raises; a failed free has nobody to report to

    @classmethod
    def _empty(cls, shape, dtype):
        """An uninitialised array, skipping the argument normalisation."""
        array = cls.__new__(cls)
        array._allocate(shape, dtype)
        return array

    ndim = property(lambda self: len(self.shape))
    ptr = property(lambda self: int(ffi.cast("uintptr_t", self._data)), doc="device address")

    @property
    def strides(self):
        strides, step = [], self.dtype.itemsize
        for dim in reversed(self.shape):
            strides.append(step)
            step *= dim
        return tuple(reversed(strides))

    def get(self, stream=None, out=None):
        """Copy into a new numpy.ndarray, or into `out` (writable, C-contiguous,
        same shape and dtype), which spares a fresh allocation's page faults.
        Given a stream, waits for it first."""
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif not (isinstance(out, np.ndarray) and out.shape == self.shape and out.dtype == self.dtype
                  and out.flags.c_contiguous and out.flags.writeable):
            raise ValueError(f"get: out must be a writable C-contiguous numpy.ndarray "
                             f"of shape {self.shape} and dtype {self.dtype}")
        if stream is not None:
            check(lib.hk_stream_synchronize(_stream_handle(stream)))
        if self.nbytes:
            check(lib.hk_memcpy_dtoh(ffi.from_buffer(out), self._data, self.nbytes))
        return out

    def copy(self):
        out = ndarray._empty(self.shape, self.dtype)
        if self.nbytes:
            check(lib.hk_memcpy_dtod(out._data, self._data, self.nbytes))
        return out

    def fill(self, value, stream=None):
        """Set every element to `value` (converted as NumPy converts it)."""
        _check_device("fill", self)
        check(lib.hk_fill(self._data, self._hk_dtype, self.size, _host_scalar(value, self._hk_dtype),
                          _stream_handle(stream)))

    def sum(self, stream=None):
        return sum(self, stream=stream)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("a hipkit.ndarray lives in GPU memory and is not converted implicitly; "
                        "call .get() (or hipkit.asnumpy(x)) to copy it into a numpy.ndarray")

    def __bool__(self):
        raise TypeError("the truth value of a hipkit.ndarray would need a copy from the GPU; "
                        "use .get() first")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d hipkit.ndarray")
        return self.shape[0]

    def __repr__(self):
        return f"hipkit.ndarray(shape={self.shape}, dtype={self.dtype}, device={self.device})"

    __add__ = lambda self, other: add(self, other)
    __sub__ = lambda self, other: subtract(self, other)
    __mul__ = lambda self, other: multiply(self, other)
    __truediv__ = lambda self, other: divide(self, other)
    __floordiv__ = lambda self, other: floor_divide(self, other)
    __radd__ = lambda self, other: add(other, self)
    __rsub__ = lambda self, other: subtract(other, self)
    __rmul__ = lambda self, other: multiply(other, self)
    __rtruediv__ = lambda self, other: divide(other, self)
    __rfloordiv__ = lambda self, other: floor_divide(other, self)
    __iadd__ = lambda self, other: add(self, other, out=self)
    __isub__ = lambda self, other: subtract(self, other, out=self)
    __imul__ = lambda self, other: multiply(self, other, out=self)
    __itruediv__ = lambda self, other: divide(self, other, out=self)
    __ifloordiv__ = lambda self, other: floor_divide(self, other, out=self)


# ---------------------------------------------------------------- creation

def empty(shape, dtype=np.float64):
    return ndarray(shape, dtype)


def full(shape, fill_value, dtype=None, stream=None):
    """dtype None: NumPy's choice for fill_value (int -> int64, float -> float64)."""
    array = ndarray(shape, np.asarray(fill_value).dtype if dtype is None else dtype)
    array.fill(fill_value, stream=stream)
    return array


def zeros(shape, dtype=np.float64, stream=None):
    return full(shape, 0, dtype, stream=stream)


def arange(start, stop=None, step=1, dtype=None, stream=None):
    """NumPy's arange: values start + i*step for i in [0, ceil((stop-start)/step))."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        n = len(range(int(start), int(stop), int(step)))  # exact for big integers
    else:
        n = max(0, math.ceil((stop - start) / step))
    array = ndarray((n,), np.result_type(start, stop, step) if dtype is None else dtype)
    check(lib.hk_iota(array._data, array._hk_dtype, n, _host_scalar(start, array._hk_dtype),
                      _host_scalar(step, array._hk_dtype), _stream_handle(stream)))
    return array


def asarray(obj, dtype=None):
    """A hipkit.ndarray holding `obj` (a hipkit.ndarray is returned as it is)."""
    if isinstance(obj, ndarray):
        if dtype is not None and np.dtype(dtype) != obj.dtype:
            raise TypeError(f"asarray: converting a hipkit.ndarray from {obj.dtype} to "
                            f"{np.dtype(dtype)} on the device is not supported yet")
        return obj
    host = np.asarray(obj, dtype=dtype)
    if not host.flags.c_contiguous:
        host = host.copy(order="C")
    array = ndarray(host.shape, host.dtype)
    if array.nbytes:
        check(lib.hk_memcpy_htod(array._data, ffi.from_buffer(host), array.nbytes))
    return array


def asnumpy(array, stream=None):
    """A numpy.ndarray from a hipkit.ndarray (copied) or anything NumPy accepts."""
    return array.get(stream) if isinstance(array, ndarray) else np.asarray(array)


# --------------------------------------------------------------------- ops

def _check_device(name, *arrays):
    current = _current_device()  # first, as it finds out whether there are several GPUs
    if not _several_gpus:
        return  # every array is on device 0
    for array in arrays:
        if array.device != current:
            raise ValueError(f"{name}: an operand is on device {array.device} but the current device "
                             f"is {current}; run it inside `with hipkit.Device({array.device}):`")


def _check_operands(name, a, b, dtypes):
    for x in (a, b):
        if not isinstance(x, ndarray):
            kind = f"{type(x).__module__}.{type(x).__qualname__}".removeprefix("builtins.")
            raise TypeError(f"{name}: operands must be hipkit.ndarray, got {kind}; "
                            "scalars and host arrays are not supported yet "
                            "(use hipkit.full or hipkit.asarray)")
    if a.shape != b.shape:
        raise ValueError(f"{name}: shapes {a.shape} and {b.shape} differ; "
                         "only operands of the same shape are supported (no broadcasting yet)")
    # Compared as hk_dtype ints: much cheaper than numpy.dtype equality.
    if a._hk_dtype != b._hk_dtype:
        raise TypeError(f"{name}: dtypes {a.dtype} and {b.dtype} differ; "
                        "only operands of the same dtype are supported (no type promotion yet)")
    if a._hk_dtype not in dtypes:
        supported = " and ".join(_DTYPE_NAME[code] for code in dtypes)
        raise TypeError(f"{name}: supports {supported}, not {a.dtype}" + _ADVICE.get(name, ""))


_ADVICE = {
    "divide": " (NumPy's true division of integers gives floats, and type promotion "
              "is not supported yet: use floor_divide, //, for integer division)",
    "floor_divide": " (use divide, /, for floating-point division)",
    "sum": " for now (convert integer data to floating point first)",
}


def _binary(name, op, a, b, out, stream, dtypes=_ALL):
    _check_operands(name, a, b, dtypes)
    if out is None:
        out = ndarray._empty(a.shape, a.dtype)
    elif not isinstance(out, ndarray) or out.shape != a.shape or out._hk_dtype != a._hk_dtype:
        raise ValueError(f"{name}: out must be a hipkit.ndarray of shape {a.shape} and dtype {a.dtype}")
    _check_device(name, a, b, out)
    check(lib.hk_binary(op, a._hk_dtype, a.size, a._data, b._data, out._data, _stream_handle(stream)))
    return out


def add(a, b, out=None, stream=None):
    return _binary("add", lib.HK_ADD, a, b, out, stream)


def subtract(a, b, out=None, stream=None):
    return _binary("subtract", lib.HK_SUBTRACT, a, b, out, stream)


def multiply(a, b, out=None, stream=None):
    return _binary("multiply", lib.HK_MULTIPLY, a, b, out, stream)


def divide(a, b, out=None, stream=None):
    """a / b for float32 and float64 (IEEE division)."""
    return _binary("divide", lib.HK_DIVIDE, a, b, out, stream, _FLOATS)


def floor_divide(a, b, out=None, stream=None):
    """a // b for int32 and int64, as NumPy: rounds toward minus infinity,
    x // 0 == 0, INT_MIN // -1 == INT_MIN."""
    return _binary("floor_divide", lib.HK_DIVIDE, a, b, out, stream, _INTS)


def axpy(a, x, y, stream=None):
    """y = a*x + y, in place on y; returns y."""
    _check_operands("axpy", x, y, _ALL)
    _check_device("axpy", x, y)
    check(lib.hk_axpy(y._hk_dtype, y.size, _host_scalar(a, y._hk_dtype), x._data, y._data,
                      _stream_handle(stream)))
    return y


def sum(x, stream=None):
    """The sum of all elements of a float32 or float64 array, as a Python float
    (NaN if any element is NaN; 0.0 for an empty array)."""
    _check_operands("sum", x, x, _FLOATS)
    _check_device("sum", x)
    result = ndarray._empty((), x.dtype)
    check(lib.hk_sum(x._hk_dtype, x.size, x._data, result._data, _stream_handle(stream)))
    return float(result.get(stream))
