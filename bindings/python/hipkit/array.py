"""hipkit.ndarray: an N-d strided array in the memory of one device, a GPU or the CPU device (views
share memory with their base), its conversions, and the creation functions (each takes device=: a
hipkit.Device, a device number, "cpu" or "gpu"; None is the calling thread's current device).

Ten dtypes: bool, int8, uint8, int32, uint32, int64, uint64, float16, float32,
float64. The math (hipkit.add, hipkit.sum, ...) lives in hipkit._ops (hipkit.ops
gathers it) and maps to the C library's op families. This module is below it and
imports nothing above it: the methods and operators over the math (x.sum(), x + y,
advanced indexing, x.sort()), DLPack's (hipkit.interop) and __array_namespace__
(hipkit itself) are installed on ndarray by the modules that implement them, when
they load (_install_method).
Work passed a `stream=` runs asynchronously there: keep its arrays alive until
that stream has finished with them (freed memory is reused in default-stream order).
"""
import atexit
import builtins
import functools
import math
import operator
import types

import numpy as np

from . import _dtypes
from . import _layout
from ._ffi import ffi, lib
from . import _native  # the binding's C core (bindings/python/native): the array's data, the common calls
from .device import Device, _size, _stream_handle, device_count, platform
from .errors import check

_NAMES = tuple(d.name for d in _dtypes.SUPPORTED)
_HK_DTYPE = {np.dtype(name): getattr(lib, "HK_" + name.upper()) for name in _NAMES}
_NP_DTYPE = {code: dtype for dtype, code in _HK_DTYPE.items()}
_DTYPE_NAME = {code: str(dtype) for dtype, code in _HK_DTYPE.items()}
_FLOATS = (lib.HK_FLOAT16, lib.HK_FLOAT32, lib.HK_FLOAT64)
_CTYPE = {lib.HK_BOOL: "_Bool *", lib.HK_INT8: "int8_t *", lib.HK_UINT8: "uint8_t *", lib.HK_INT32: "int32_t *",
          lib.HK_UINT32: "uint32_t *", lib.HK_INT64: "int64_t *", lib.HK_UINT64: "uint64_t *",
          lib.HK_FLOAT32: "float *", lib.HK_FLOAT64: "double *", lib.HK_INT16: "int16_t *",
          lib.HK_UINT16: "uint16_t *"}
_IOTA_DTYPES = (lib.HK_FLOAT32, lib.HK_FLOAT64, lib.HK_INT32, lib.HK_INT64)  # what hk_iota takes
_MAX_BYTES = 2**63 - 1  # what size_t and NumPy's intp can both describe


def _dtype(dtype):
    """One of the fourteen dtypes, from anything np.dtype accepts (None: float64)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"data type {dtype!r} not understood") from None
    if dt not in _HK_DTYPE:
        raise TypeError(f"hipkit supports {', '.join(_NAMES)}; not {dt}")
    return dt


def _shape(shape):
    dims = _dims(shape)
    _layout._check_ndim(len(dims))
    return dims


def _dims(shape):
    """A shape (an int or a sequence of ints) as a tuple of non-negative ints, of any length (hipkit
    arrays take up to 8: _shape checks; pinned host arrays are NumPy's, which take more)."""
    if hasattr(shape, "__index__") and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a sequence of ints, got {type(shape).__name__}") from None
    return tuple(_size(d, "shape entry") for d in dims)


def _check_size(shape, dtype):
    """ValueError when NumPy could not describe an array of `shape` and `dtype` either: every dimension must
    fit intp (at most 2**63 - 1), and so must the product of the non-zero ones times the itemsize, even
    when a zero dimension makes the array empty, by NumPy's rule (np.empty((0, 2**70)) raises, as does
    np.empty((0, 2**62), np.float64)). Every new array (empty, zeros, full, the *_like functions, an op's
    result) and every view is checked here: the C descriptor's int64 shape could not hold more."""
    for n in shape:
        if n > _MAX_BYTES:
            raise ValueError(f"array is too big: dimension {n} of shape {shape} exceeds the largest a "
                             f"dimension can be, 2**63 - 1 (NumPy's limit too, even for an empty array)")
    nbytes = math.prod(n for n in shape if n) * dtype.itemsize
    if nbytes > _MAX_BYTES:
        counted = " counting its non-zero dimensions only (NumPy's rule for an empty array)" if 0 in shape else ""
        raise ValueError(f"array is too big: {shape} of {dtype} is {nbytes} bytes{counted}, more than "
                         f"2**63 - 1; use smaller dimensions or a smaller dtype")


_several_devices = None
_STRIDES: dict = {}  # shape -> C-contiguous strides in elements (new arrays are made on every op's path)


def _current_device():
    """The calling thread's device number. Every op asks, so with one device
    (the CPU device alone) the answer, 0, skips the library call."""
    global _several_devices
    if _several_devices is None:
        _several_devices = device_count() > 1
    if not _several_devices:
        return 0
    return _native.current_device()


class _Here:
    """The context of work on the device that is current already: nothing to do."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_HERE = _Here()


def _on(ordinal):
    """A context in which device number `ordinal` is current (nothing to do when it is already)."""
    return _HERE if ordinal == _current_device() else Device._of(ordinal)


def _on_data(fn):
    """fn, run on the device of its first hipkit array argument (in a tuple or list of operands too;
    else `out=`), made current for the call when it is not: an op follows its data, as the array
    API says, and what it makes (its result, index arrays, temporaries) is made there. Its other
    arrays must be on that device too (_check_device)."""
    @functools.wraps(fn)
    def on_data(*args, **kwargs):
        current = _current_device()  # also finds out whether there are several devices
        if _several_devices:
            device = _first_device(args)
            if device is None and kwargs.get("out") is not None:
                device = _first_device((kwargs["out"],))
            if device is not None and device != current:
                with Device._of(device):
                    return fn(*args, **kwargs)
        return fn(*args, **kwargs)
    return on_data


def _first_device(args):
    for arg in args:
        if isinstance(arg, ndarray):
            return arg._device
        if isinstance(arg, (tuple, list)):
            for item in arg:
                if isinstance(item, ndarray):
                    return item._device
    return None


def _target(device):
    """The device number that `device=` names (a Device, a number, "cpu", "gpu"); None: the current one."""
    if device is None:
        return _current_device()
    return device.id if isinstance(device, Device) else Device(device).id


def _host_scalar(value, hk_dtype):
    """One host element holding `value` converted to hk_dtype, as the
    `const void *` the kernels take. cffi converts the plain cases quickly;
    NumPy does the rest (1.5 -> int32 1, float16) and raises OverflowError for
    integers out of range, as np.full does."""
    ctype = _CTYPE.get(hk_dtype)
    if ctype is not None and type(value) in (int, float, bool) and (
            type(value) is not float or hk_dtype in _FLOATS):
        try:
            return ffi.new(ctype, value)
        except (TypeError, OverflowError):
            pass
    dtype = _NP_DTYPE[hk_dtype]
    if dtype.kind in "iu" and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise OverflowError(f"Python integer {int(value)} out of bounds for {dtype}")
    with np.errstate(all="ignore"):
        host = np.asarray(value).astype(dtype)
    return ffi.from_buffer(np.ascontiguousarray(host).reshape(1))


class ndarray(_native.ArrayBase):
    """An N-d array in the memory of one device (a GPU or the CPU device: `device`, the current
    device when it was made, or the device= it was made with): shape, dtype, strides (bytes, as
    NumPy's), views that share memory (slicing, reshape, transpose, ...). Freed (back to the pool)
    when the last array using the memory is collected.

    Its data (address, dtype, shape, strides, device, owner) are C fields of the base type
    hipkit._native.ArrayBase (bindings/python/native/array.c), which also makes the common views
    (basic indexing, .T) and which the C paths of the ops read directly; the methods are here."""

    # NumPy then hands `numpy_array + hipkit_array` to our reflected operators,
    # which explain what is supported, instead of converting us silently.
    __array_ufunc__ = None
    __array_function__ = None

    def __init__(self, shape, dtype=np.float64, *, device=None):
        shape, dtype = _shape(shape), _dtype(dtype)
        if device is None:
            self._allocate(shape, dtype)
        else:
            with _on(_target(device)):
                self._allocate(shape, dtype)

    def _allocate(self, shape, dtype):
        size = math.prod(shape)
        if size * dtype.itemsize > _MAX_BYTES or not size:
            _check_size(shape, dtype)
        strides = _STRIDES.get(shape)
        if strides is None:
            if len(_STRIDES) > 4096:
                _STRIDES.clear()
            strides = _STRIDES[shape] = _layout.contiguous_strides(shape)
        data = ffi.new("void **")
        check(lib.hk_malloc(data, size * dtype.itemsize))  # 0 bytes: NULL, no GPU needed
        # From here the array owns the memory (ArrayBase frees it when collected).
        self._setup(int(ffi.cast("uintptr_t", data[0])), 0, shape, strides, _HK_DTYPE[dtype], _current_device(),
                    None, True)

    @classmethod
    def _empty(cls, shape, dtype):
        """An uninitialised C-contiguous array, skipping the argument normalisation."""
        array = cls.__new__(cls)
        array._allocate(shape, dtype)
        return array

    # _view(shape, el_strides, offset): ArrayBase's, a view of this array's memory, `offset` elements
    # from its owner's first element (self._offset is this view's own).

    def _resized_view(self, shape, el_strides, offset):
        """_view for a shape the caller asked for (reshape, broadcast_to), which can ask for too much."""
        if math.prod(shape) * self.itemsize > _MAX_BYTES or 0 in shape:
            _check_size(shape, self.dtype)
        return self._view(shape, el_strides, offset)

    # ------------------------------------------------------------- attributes
    # shape, dtype, size, nbytes, ndim, itemsize, strides, base, ptr, T: ArrayBase's (array.c).
    device = property(lambda self: Device._of(self._device),
                      doc="the hipkit.Device holding the data (.kind: 'gpu' or 'cpu'); equal to its number")

    @property
    def flags(self):
        return {"C_CONTIGUOUS": self._contiguous, "OWNDATA": self._base is None,
                "F_CONTIGUOUS": _layout.is_c_contiguous(self.shape[::-1], self._el_strides[::-1])}

    @property
    def mT(self):
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return self.swapaxes(-1, -2)

    def _part(self, imag):
        """The real (imag=False) or imaginary part of a complex array as a view of its memory: an array
        of the parts' float dtype whose strides step over the other part."""
        dtype = _dtypes.real_dtype(self.dtype)
        owner = self._base if self._base is not None else self
        view = ndarray.__new__(ndarray)
        address = int(ffi.cast("uintptr_t", self._data)) + (dtype.itemsize if imag else 0)
        view._setup(address, 2 * self._offset + int(imag), self.shape, tuple(2 * s for s in self._el_strides),
                    _HK_DTYPE[dtype], self._device, owner, False)
        return view

    @property
    def real(self):
        """NumPy's x.real: the real part of a complex array as a view (writing it writes x); x itself
        for a real dtype."""
        return self._part(False) if self.dtype.kind == "c" else self

    @property
    def imag(self):
        """NumPy's x.imag: the imaginary part of a complex array as a view; for a real dtype a new
        array of zeros (NumPy's is read-only)."""
        if self.dtype.kind == "c":
            return self._part(True)
        return zeros(self.shape, self.dtype, device=self._device)

    def _extent(self):
        """(first, last) byte addresses this view touches: for overlap checks."""
        lo, hi = _layout.extent(self.shape, self._el_strides, self._offset)
        start = int(ffi.cast("uintptr_t", (self._base if self._base is not None else self)._data))
        return start + lo * self.itemsize, start + hi * self.itemsize

    # ------------------------------------------------------------- views
    # reshape, ravel, transpose, copy, astype and x[key] = value are ArrayBase's (native/array.c), which
    # does the common calls and hands the rest to the _*_slow methods here.
    def _reshape_slow(self, *shape, order="C"):
        if order != "C":
            raise NotImplementedError("reshape: only order='C' is supported")
        if len(shape) == 1 and not hasattr(shape[0], "__index__"):
            shape = shape[0]
        new_shape = _layout.resolve_reshape(self.size, shape)
        strides = _layout.reshape_view(self.shape, self._el_strides, self._offset, new_shape)
        if strides is None:
            return self.copy().reshape(new_shape)
        return self._resized_view(new_shape, strides, self._offset)

    def _ravel_slow(self):
        return self.reshape(-1)

    def flatten(self):
        return self.copy().reshape(-1)

    def _transpose_slow(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        shape, strides = _layout.transpose(self.shape, self._el_strides, axes or None)
        return self._view(shape, strides, self._offset)

    def swapaxes(self, axis1, axis2):
        shape, strides = _layout.swapaxes(self.shape, self._el_strides, axis1, axis2)
        return self._view(shape, strides, self._offset)

    def squeeze(self, axis=None):
        shape, strides = _layout.squeeze(self.shape, self._el_strides, axis)
        return self._view(shape, strides, self._offset)

    def _broadcast_to(self, shape):
        return self._resized_view(tuple(shape), _layout.broadcast_strides(self.shape, self._el_strides, shape),
                                  self._offset)

    def _getitem_slow(self, key):
        """self[key] for what ArrayBase's C indexing leaves to Python: advanced indices (arrays,
        lists, bools, NumPy integers) and every error, raised as NumPy raises it."""
        if _layout.is_basic_index(key):
            shape, strides, offset = _layout.basic_index(self.shape, self._el_strides, self._offset, key)
            return self._view(shape, strides, offset)
        return self._advanced_get(key)  # installed by hipkit._ops.indexing, which implements it

    def _setitem_slow(self, key, value):
        if _layout.is_basic_index(key):
            target = self[key]
        else:
            return self._advanced_set(key, value)  # installed by hipkit._ops.indexing
        _assign(target, value)

    # ------------------------------------------------------------- conversion
    # get(): ArrayBase's for a C-contiguous array without arguments (array.c), else this.
    def _get_slow(self, stream=None, out=None, blocking=True):
        """Copy into a new numpy.ndarray, or into `out` (writable, C-contiguous,
        same shape and dtype), which spares a fresh allocation's page faults.
        Given a stream, waits for it first; with blocking=False and `out` in
        pinned memory (hipkit.pinned_empty), the copy is queued on the stream
        instead and `out` is ready once the stream is synchronized."""
        with _on(self._device):
            return self._get(stream, out, blocking)

    def _get(self, stream, out, blocking):
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif not (isinstance(out, np.ndarray) and out.shape == self.shape and out.dtype == self.dtype
                  and out.flags.c_contiguous and out.flags.writeable):
            raise ValueError(f"get: out must be a writable C-contiguous numpy.ndarray "
                             f"of shape {self.shape} and dtype {self.dtype}")
        source = self if self._contiguous else self.copy(stream=stream)
        if not blocking:
            if stream is None:
                raise ValueError("get: blocking=False needs a stream")
            if source.nbytes:
                check(lib.hk_memcpy_dtoh_async(ffi.from_buffer(out), source._data, source.nbytes,
                                               _stream_handle(stream)))
            if source is not self:  # a gathered temporary: it must outlive the copy
                check(lib.hk_stream_synchronize(_stream_handle(stream)))
            return out
        if stream is not None:
            check(lib.hk_stream_synchronize(_stream_handle(stream)))
        if source.nbytes:
            check(lib.hk_memcpy_dtoh(ffi.from_buffer(out), source._data, source.nbytes))
        return out

    def set(self, host, stream=None):
        """Copy host data (same shape; converted to this dtype) into this array.
        From a C-contiguous array of pinned memory (hipkit.pinned_empty) and
        with a stream, the copy is asynchronous: keep `host` unchanged until
        the stream has finished with it."""
        with _on(self._device):
            return self._set(host, stream)

    def _set(self, host, stream):
        host = np.asarray(host)
        if host.shape != self.shape:
            raise ValueError(f"set: host data has shape {host.shape}, the array {self.shape}")
        if host.dtype != self.dtype or not host.flags.c_contiguous:
            host = np.ascontiguousarray(host, dtype=self.dtype)
        if not self._contiguous:
            staging = ndarray._empty(self.shape, self.dtype)
            staging._set(host, stream)
            _copy_into(self, staging, stream)
            return self
        if self.nbytes:
            if stream is not None:
                check(lib.hk_memcpy_htod_async(self._data, ffi.from_buffer(host), self.nbytes,
                                               _stream_handle(stream)))
            else:
                check(lib.hk_memcpy_htod(self._data, ffi.from_buffer(host), self.nbytes))
        return self

    def to_device(self, device, /, *, stream=None):
        """A copy on `device` (a hipkit.Device, a device number, "cpu" or "gpu"); this array itself
        when it is there already. Any two devices: GPU to GPU, GPU to the CPU device and back
        (the copy waits for the work queued on both devices, and is done when it returns)."""
        if device is None:
            raise TypeError("to_device: device must be a hipkit.Device, a device number, 'cpu' or 'gpu', not None")
        target = _target(device)
        if target == self._device:
            return self
        with _on(self._device):
            source = self if self._contiguous else self.copy(stream=stream)
            if stream is not None:
                check(lib.hk_stream_synchronize(_stream_handle(stream)))
        with _on(target):
            out = ndarray._empty(self.shape, self.dtype)
        if self.nbytes:
            _move(out, source)
        return out

    # __array_namespace__ (hipkit itself: installed by hipkit/__init__.py), __dlpack__, __dlpack_device__ and
    # __cuda_array_interface__ (installed by hipkit.interop, which implements them) are not written here.

    def _copy_slow(self, stream=None):
        """A C-contiguous copy on the same device (a strided view is gathered there)."""
        with _on(self._device):
            out = ndarray._empty(self.shape, self.dtype)
            if self.size:
                if self._contiguous:
                    check(lib.hk_memcpy_dtod_async(out._data, self._data, self.nbytes, _stream_handle(stream))
                          if stream is not None else lib.hk_memcpy_dtod(out._data, self._data, self.nbytes))
                else:
                    _copy_into(out, self, stream)
        return out

    def _astype_slow(self, dtype, copy=True, stream=None):
        """This array converted to `dtype` (NumPy's unsafe casting; floats out
        of an integer type's range saturate, NaN gives 0), on the same device."""
        dt = _dtype(dtype)
        if dt == self.dtype and not copy:
            return self
        with _on(self._device):
            out = ndarray._empty(self.shape, dt)
            _copy_into(out, self, stream)
        return out

    @_on_data
    def fill(self, value, stream=None):
        """Set every element to `value` (converted as NumPy converts it)."""
        _check_device("fill", self)
        _assign(self, value, stream)

    # item(): ArrayBase's for a size-1 array without arguments (array.c), else this.
    def _item_slow(self, *args):
        if len(args) == 1 and not isinstance(args[0], tuple):  # a flat (C-order) index, as NumPy's item(i)
            i = operator.index(args[0])
            if not -self.size <= i < self.size:
                raise IndexError(f"index {i} is out of bounds for size {self.size}")
            return self[np.unravel_index(i % self.size, self.shape)].item()
        if args:
            return self[args if len(args) > 1 else args[0]].item()
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.get().reshape(()).item()

    def tolist(self):
        return self.get().tolist()

    @property
    def __array_interface__(self):
        """NumPy's array interface (version 3), for arrays on the CPU device only, whose memory is
        host memory: np.asarray(x) is then a NumPy view of the same memory, no copy (it keeps x
        alive). The CPU device's queued work is waited for first; work queued afterwards is not, as
        with DLPack. An array on a GPU has none (AttributeError), so NumPy asks __array__, which
        raises and names x.get()."""
        if not self._host_memory():
            raise AttributeError(f"__array_interface__: this array is on device {self._device} (a GPU), not in "
                                 f"host memory; x.get() copies it into a numpy.ndarray")
        with _on(self._device):
            check(lib.hk_device_synchronize())
        return {"shape": self.shape, "typestr": self.dtype.str, "version": 3,
                "data": (self.ptr or _EMPTY_HOST.ctypes.data, False),
                "strides": None if self._contiguous else self.strides}

    def __array__(self, dtype=None, copy=None):
        """For an array on the CPU device: a NumPy view of its memory (a copy with copy=True or
        another dtype). On a GPU: TypeError, as implicit device-to-host copies are a performance trap."""
        if not self._host_memory():
            raise TypeError("a hipkit.ndarray on a GPU is not converted implicitly; call .get() (or "
                            "hipkit.asnumpy(x)) to copy it into a numpy.ndarray")
        host = np.asarray(_HostView(self))
        if dtype is not None and np.dtype(dtype) != host.dtype:
            if copy is False:
                raise ValueError(f"__array__: copy=False, but converting {host.dtype} to {np.dtype(dtype)} copies")
            return host.astype(dtype)
        return host.copy() if copy else host

    def _host_memory(self):
        """Whether this array's memory is host memory (the CPU device's)."""
        return Device._of(self._device).kind == "cpu"

    def __bool__(self):
        if self.size != 1:
            raise ValueError("the truth value of an array with more than one element is ambiguous. "
                             "Use a.any() or a.all()")
        return bool(self.item())

    def __float__(self):
        if self.dtype.kind == "c":
            raise TypeError("cannot convert a complex array to float (take .real or abs() first)")
        return float(self.item())

    def __complex__(self):
        return complex(self.item())

    def __int__(self):
        if self.dtype.kind == "c":
            raise TypeError("cannot convert a complex array to int (take .real or abs() first)")
        return int(self.item())

    def __index__(self):
        if self.dtype.kind not in "iu" or self.ndim:
            raise TypeError("only 0-d integer arrays can be converted to an index")
        return int(self.item())

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self):
        body = np.array2string(self.get(), separator=", ", prefix="hipkit.ndarray(")
        dtype = "" if self.dtype in (np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_)) \
            else f", dtype={self.dtype}"
        return f"hipkit.ndarray({body}{dtype})"

    def __str__(self):
        return str(self.get())

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self.item(), spec)
        return format(str(self), spec)

    def __hash__(self):
        raise TypeError("unhashable type: 'hipkit.ndarray'")

    # copy.copy / copy.deepcopy: a copy on the same device (the data lives in ArrayBase's C fields, which
    # the default protocol would not copy). pickle: the elements travel as a NumPy array and come back on
    # the current device of the process that unpickles them.
    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        return (_unpickle, (self.get(),))

    # The methods over the math (sum, max, cumsum, take, ..., and sort, in place) and the operators
    # (__add__, __neg__, __eq__, __matmul__, ...) are installed by the modules of hipkit._ops that implement
    # them: the same callables as the functions, so x.sum() takes the C path hipkit.sum(x) takes.


def _install_method(method):
    """ndarray.<its name> = method (a function, or a property over one), named as if the class body had
    it: for the methods implemented in the modules above this one, which install them when they load."""
    fn = method.fget if isinstance(method, property) else method
    fn.__qualname__ = f"ndarray.{fn.__name__}"
    setattr(ndarray, fn.__name__, method)


# ---------------------------------------------------------------- the C descriptor

def _desc(array, box=None):
    """The hk_array describing `array` (written into `box` when given)."""
    if box is None:
        box = ffi.new("hk_array *")
    box.data = array._data
    box.dtype = array._hk_dtype
    ndim = box.ndim = len(array.shape)
    if ndim:
        box.shape[0:ndim] = array.shape
        box.strides[0:ndim] = array._el_strides
    return box


def _copy_into(dst, src, stream=None):
    """dst[...] = src (broadcast, converted): hk_copy_array."""
    check(lib.hk_copy_array(_desc(src), _desc(dst), _stream_handle(stream)))


def _move(dst, src):
    """dst[...] = src: C-contiguous arrays of one dtype and size on two different devices."""
    if src._host_memory() or dst._host_memory():
        # The CPU device's memory is host memory, which the GPU copies as such, once the work
        # queued on the CPU device (which may still use either block) is done.
        with _on(src._device if src._host_memory() else dst._device):
            check(lib.hk_device_synchronize())
        if src._host_memory():
            with _on(dst._device):
                check(lib.hk_memcpy_htod(dst._data, src._data, src.nbytes))
        else:
            with _on(src._device):
                check(lib.hk_memcpy_dtoh(dst._data, src._data, src.nbytes))
        return
    with _on(dst._device):  # the new block may have been in use on its device until now
        check(lib.hk_device_synchronize())
    with _on(src._device):  # after the work queued on the source's device
        check(lib.hk_memcpy_dtod(dst._data, src._data, src.nbytes))  # unified addressing: any two GPUs


_EMPTY_HOST = np.empty(1, np.uint8)  # an address for NumPy views of empty arrays (NumPy refuses NULL)


class _HostView:
    """Holds a CPU-device array for the NumPy view made of it (NumPy keeps this as its base)."""

    def __init__(self, array):
        self.array = array
        self.__array_interface__ = array.__array_interface__


def _overlaps(a, b):
    if not a.size or not b.size:
        return False
    a0, a1 = a._extent()
    b0, b1 = b._extent()
    return a0 < b1 and b0 < a1


@_on_data
def _assign(target, value, stream=None):
    """target[...] = value: a hipkit array (broadcast, converted), or host data."""
    if isinstance(value, ndarray):
        _check_device("assignment", target, value)
        if _overlaps(target, value) and not (target._data == value._data and
                                             target._el_strides == value._el_strides):
            value = value.copy(stream=stream)
        _copy_into(target, value, stream)
        return
    if type(value) in (int, float, bool, complex) or isinstance(value, np.generic) and value.dtype in _HK_DTYPE:
        if type(value) is complex and target.dtype.kind != "c":
            raise TypeError(f"cannot assign a complex value to an array of {target.dtype} (NumPy would drop the "
                            f"imaginary part; take .real or abs() first)")
        if type(value) is float and target.dtype.kind in "biu":
            # NumPy's assignment conversion: a NaN or inf into an integer raises, as x[...] = v does in NumPy
            host = np.asarray(value, dtype=target.dtype).reshape(1)
            scalar = ffi.from_buffer(host)
        else:
            scalar = _host_scalar(value, target._hk_dtype)
        check(lib.hk_fill(_desc(target), scalar, _stream_handle(stream)))
        return
    host = np.asarray(value)
    if host.dtype == object:
        raise TypeError(f"cannot assign a {type(value).__name__} to a hipkit.ndarray")
    _copy_into(target, asarray(host), stream)


# ---------------------------------------------------------------- creation
# Each takes device= (a hipkit.Device, a device number, "cpu" or "gpu"; None: the current device,
# and for the *_like functions the device of the array given).

def _scope(device):
    """The context for making arrays on `device` (None: where they would be made anyway)."""
    return _HERE if device is None else _on(_target(device))


def empty(shape, dtype=None, *, device=None):
    return ndarray(shape, dtype, device=device)


def full(shape, fill_value, dtype=None, stream=None, *, device=None):
    """dtype None: NumPy's choice for fill_value (int -> int64, float -> float64)."""
    with _scope(device):
        if isinstance(fill_value, ndarray):
            array = ndarray(shape, fill_value.dtype if dtype is None else dtype)
            _assign(array, fill_value, stream)
            return array
        array = ndarray(shape, np.asarray(fill_value).dtype if dtype is None else dtype)
        array.fill(fill_value, stream=stream)
        return array


def zeros(shape, dtype=None, stream=None, *, device=None):
    return full(shape, 0, np.float64 if dtype is None else dtype, stream=stream, device=device)


def ones(shape, dtype=None, stream=None, *, device=None):
    return full(shape, 1, np.float64 if dtype is None else dtype, stream=stream, device=device)


# The common calls in C (bindings/python/native/creation.c), the rest in the functions above.
empty, zeros, ones, full = (functools.update_wrapper(_native.creation(kind, f), f)  # type: ignore[arg-type]
                            for kind, f in enumerate((empty, zeros, ones, full)))


def _like_dtype(a, dtype):
    return a.dtype if dtype is None else dtype


def _like_device(a, device):
    """a's device for device=None (None when it is the current one, so the creation's C path takes it)."""
    if device is None and isinstance(a, ndarray) and a._device != _current_device():
        return a.device
    return device


def empty_like(a, dtype=None, shape=None, *, device=None):
    return empty(a.shape if shape is None else shape, _like_dtype(a, dtype), device=_like_device(a, device))


def zeros_like(a, dtype=None, shape=None, *, device=None):
    return zeros(a.shape if shape is None else shape, _like_dtype(a, dtype), device=_like_device(a, device))


def ones_like(a, dtype=None, shape=None, *, device=None):
    return ones(a.shape if shape is None else shape, _like_dtype(a, dtype), device=_like_device(a, device))


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    return full(a.shape if shape is None else shape, fill_value, _like_dtype(a, dtype),
                device=_like_device(a, device))


def arange(start, stop=None, step=1, dtype=None, stream=None, *, device=None):
    """NumPy's arange: values start + i*step for i in [0, ceil((stop-start)/step))."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange: step must not be zero")
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        n = len(range(int(start), int(stop), int(step)))  # exact for big integers
    else:
        n = max(0, math.ceil((stop - start) / step))
    dt = _dtype(np.result_type(start, stop, step) if dtype is None else dtype)
    with _scope(device):
        array = ndarray((n,), dt)
        code = array._hk_dtype
        if code not in _IOTA_DTYPES:
            # hk_iota covers the four arithmetic dtypes; others go through float64/int64 and a cast.
            wide = arange(start, stop, step, np.float64 if dt.kind in "fb" else np.int64, stream)
            _copy_into(array, wide, stream)
            return array
        check(lib.hk_iota(_desc(array), _host_scalar(start, code), _host_scalar(step, code),
                          _stream_handle(stream)))
    return array


# How asarray reads other libraries' arrays (DLPack producers, __cuda_array_interface__): with hipkit.interop's
# from_dlpack and from_cuda_array_interface, DLPack first for data outside the DLPack device types of host
# memory (HOST_DEVICE_TYPES). interop is above this module (it makes ndarrays) and fills these in when it loads.
_readers = types.SimpleNamespace(HOST_DEVICE_TYPES=(), from_dlpack=None, from_cuda_array_interface=None)


def _holds_device_arrays(seq):
    return builtins.any(isinstance(e, ndarray) or isinstance(e, (list, tuple)) and _holds_device_arrays(e)
                        for e in seq)


def asarray(obj, dtype=None, *, device=None, copy=None):
    """A hipkit.ndarray holding `obj` (a hipkit.ndarray of the asked dtype on the asked device is
    returned as it is; None: the current device for host data, the array's own for a hipkit array
    or another library's device array). Host data (NumPy arrays, lists, ...) is copied, also onto the
    CPU device. copy (the array API's): True always copies; False never does (ValueError when it
    would have to: host data for a GPU, another dtype or device); on the CPU device, copy=False
    shares a NumPy array's (any kDLCPU DLPack producer's) memory, as hipkit.from_dlpack does.
    None copies only when needed."""
    if device is not None:
        target = _target(device)
        if isinstance(obj, ndarray) and obj._device != target:
            if copy is False:
                raise ValueError(f"asarray: copy=False, but the array is on device {obj._device} and device= "
                                 f"names device {target}: moving it is a copy")
            return asarray(obj.to_device(target), dtype)
        with _on(target):
            return asarray(obj, dtype, copy=copy)
    if copy:
        return asarray(obj, dtype).copy()
    if copy is False:
        device_data = isinstance(obj, ndarray) or hasattr(obj, "__cuda_array_interface__") or (
            hasattr(obj, "__dlpack_device__") and int(obj.__dlpack_device__()[0]) != 1)  # 1: kDLCPU
        if device_data:
            result = asarray(obj)
        elif Device._of(_current_device()).kind == "cpu" and hasattr(obj, "__dlpack__"):
            try:
                result = _readers.from_dlpack(obj, copy=False)  # host memory: the CPU device shares it
            except BufferError:  # read-only, or not host memory
                result = None
        else:
            result = None
        if result is None or dtype is not None and _dtype(dtype) != result.dtype:
            raise ValueError("asarray: copy=False, but this needs a copy (host data for a GPU, or another dtype)")
        return result
    if isinstance(obj, ndarray):
        if dtype is not None and _dtype(dtype) != obj.dtype:
            return obj.astype(dtype)
        return obj
    if isinstance(obj, (list, tuple)) and obj and _holds_device_arrays(obj):
        # a nested sequence with hipkit arrays in it (x[i, j] scalars, rows): stacked on the device, in one
        # dtype (NumPy's promotion of the elements, or dtype=)
        parts = [asarray(e, dtype) for e in obj]
        common = _dtypes.result_type(*parts) if dtype is None else _dtype(dtype)
        return stack([p if p.dtype == common else p.astype(common) for p in parts])
    if not isinstance(obj, np.ndarray):
        # DLPack first: it says which device the data is on
        if hasattr(obj, "__dlpack_device__") and int(obj.__dlpack_device__()[0]) not in _readers.HOST_DEVICE_TYPES:
            return asarray(_readers.from_dlpack(obj), dtype)
        if hasattr(obj, "__cuda_array_interface__") and platform() == "nvidia":
            return asarray(_readers.from_cuda_array_interface(obj), dtype)
    host = np.asarray(obj)
    if dtype is None:
        if host.dtype.kind == "U" or host.dtype == object:
            raise TypeError(f"hipkit.asarray: cannot make a device array of {host.dtype} data")
        target = _dtypes.to_supported(host.dtype)
    else:
        target = _dtype(dtype)
    if host.dtype != target:
        host = host.astype(target)
    if not host.flags.c_contiguous:
        host = np.ascontiguousarray(host)
    array = ndarray(host.shape, host.dtype)
    if array.nbytes:
        check(lib.hk_memcpy_htod(array._data, ffi.from_buffer(host), array.nbytes))
    return array


asarray = functools.update_wrapper(_native.creation(4, asarray, np.ndarray), asarray)  # native/creation.c
arange = functools.update_wrapper(_native.creation(5, arange), arange)
array = asarray


def ascontiguousarray(a, dtype=None, *, device=None):
    a = asarray(a, dtype, device=device)
    return a if a._contiguous else a.copy()


def asnumpy(array, stream=None):
    """A numpy.ndarray from a hipkit.ndarray (copied) or anything NumPy accepts."""
    return array.get(stream) if isinstance(array, ndarray) else np.asarray(array)


def _check_device(name, *arrays):
    """Every array on the current device, which _on_data made the first operand's."""
    current = _current_device()  # first, as it finds out whether there are several devices
    if not _several_devices:
        return  # every array is on device 0
    for array in arrays:
        if array._device != current:
            there, here = Device._of(array._device), Device._of(current)
            raise ValueError(f"{name}: the operands are on two devices, {here.id} ({here.kind}) and {there.id} "
                             f"({there.kind}); an op runs where its data is: move one first, e.g. "
                             f"x.to_device({here.id})")


@_on_data
def concatenate(arrays, axis=0, out=None, dtype=None):
    """NumPy's concatenate (axis=None flattens first), on the device of the first hipkit array."""
    arrays = [asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays, axis = [a.ravel() for a in arrays], 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    for i, a in enumerate(arrays):
        if a.ndim != ndim:
            raise ValueError(f"all the input array dimensions except for the concatenation axis must match "
                             f"exactly, but along dimension 0, the array at index 0 has {ndim} dimension(s) "
                             f"and the array at index {i} has {a.ndim} dimension(s)")
    axis = _layout.normalize_axis(axis, ndim)
    shape = list(arrays[0].shape)
    for i, a in enumerate(arrays[1:], 1):
        for k in range(ndim):
            if k != axis and a.shape[k] != shape[k]:
                raise ValueError(f"all the input array dimensions except for the concatenation axis must "
                                 f"match exactly, but along dimension {k}, the array at index 0 has size "
                                 f"{shape[k]} and the array at index {i} has size {a.shape[k]}")
    shape[axis] = sum(a.shape[axis] for a in arrays)
    result_dtype = _dtype(dtype) if dtype is not None else _dtypes.result_type(*arrays)
    if out is None:
        out = ndarray._empty(tuple(shape), result_dtype)
    elif not isinstance(out, ndarray) or out.shape != tuple(shape):
        raise ValueError(f"concatenate: out must be a hipkit.ndarray of shape {tuple(shape)}")
    _check_device("concatenate", out, *arrays)
    start = 0
    for a in arrays:
        index = (slice(None),) * axis + (slice(start, start + a.shape[axis]),)
        _assign(out[index], a)
        start += a.shape[axis]
    return out


concatenate = functools.update_wrapper(_native.creation(6, concatenate), concatenate)  # native/creation.c


def stack(arrays, axis=0, out=None, dtype=None):
    """NumPy's stack: join along a new axis."""
    arrays = [asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = _layout.normalize_axis(axis, arrays[0].ndim + 1)
    key = (slice(None),) * axis + (None,)  # a new axis of 1 there: a view (basic indexing, in C)
    expanded = [a[key] for a in arrays]
    return concatenate(expanded, axis=axis, out=out, dtype=dtype)


def expand_dims(a, axis):
    shape, strides = _layout.expand_dims(a.shape, a._el_strides, axis)
    return a._view(shape, strides, a._offset)


def squeeze(a, axis=None):
    return a.squeeze(axis)


def transpose(a, axes=None):
    return a.transpose(axes)


def swapaxes(a, axis1, axis2):
    return a.swapaxes(axis1, axis2)


def reshape(a, shape, *, copy=None):
    """a with a new shape: a view when the strides allow, else a copy. copy (the array API's): True
    always copies, False raises ValueError instead of copying."""
    if copy:
        return a.copy().reshape(shape)
    if copy is False:
        new_shape = _layout.resolve_reshape(a.size, shape if not hasattr(shape, "__index__") else (shape,))
        if _layout.reshape_view(a.shape, a._el_strides, a._offset, new_shape) is None:
            raise ValueError(f"reshape: copy=False, but {a.shape} with strides {a.strides} cannot be viewed as "
                             f"{new_shape}")
    return a.reshape(shape)


def ravel(a):
    return a.ravel()


def broadcast_to(a, shape):
    return a._broadcast_to(_layout._as_shape(shape))


def copy(a, *, device=None):
    """A copy of `a` (on `device` when given, else on a's device, or the current one for host data)."""
    a = asarray(a)
    return a.copy() if device is None or _target(device) == a._device else a.to_device(device)


def _unpickle(host):
    """pickle's way back: the NumPy array's elements on the current device."""
    return asarray(host)


def _configure_native():
    """Hands the C core what it needs of Python once: the class it makes, the fourteen dtypes, and NumPy 2's
    promotion (hipkit._dtypes.result_type, the one place that rule is written) as tables of hk_dtype codes."""
    by_code = tuple(_dtypes.SUPPORTED)
    assert [_HK_DTYPE[d] for d in by_code] == list(range(len(by_code)))  # the C tables index by hk_dtype code
    promote = bytes(_HK_DTYPE[_dtypes.result_type(a, b)] for a in by_code for b in by_code)
    weak = bytes(_HK_DTYPE[_dtypes.result_type(d, scalar)] for d in by_code for scalar in (True, 1, 1.0))
    codes = {}  # the common spellings of dtype=: np.dtype, its scalar type, its name; Python's bool, int, float
    for code, dt in enumerate(by_code):
        codes[dt] = codes[dt.type] = codes[dt.name] = code
    codes.update({bool: _HK_DTYPE[_dtype(bool)], int: _HK_DTYPE[_dtype(int)], float: _HK_DTYPE[_dtype(float)]})
    _native.configure(ndarray, by_code, promote, weak, functools.partial(ffi.cast, "void *"), codes, np.empty)
    atexit.register(_native.exiting)  # memory is left to the process exit from then on


_configure_native()
