"""Zero-copy exchange with other array libraries, and pinned host arrays.

- DLPack (https://dmlc.github.io/dlpack/latest/python_spec.html), both ways:
  ndarray.__dlpack__ / __dlpack_device__ hand out a capsule that shares the
  memory (versioned "dltensor_versioned" for consumers that ask with
  max_version >= (1, 0), the legacy "dltensor" otherwise), and
  hipkit.from_dlpack(x) views another library's array without a copy. Arrays on a GPU
  are kDLCUDA (kDLROCM on AMD) with the device number; arrays on the CPU device are
  kDLCPU, so NumPy and PyTorch CPU tensors share their memory both ways.
- __cuda_array_interface__ (version 3) produced and consumed on NVIDIA builds, for
  arrays on a GPU (arrays on the CPU device have __array_interface__ instead).
- hipkit.pinned_empty: a numpy.ndarray in page-locked host memory, for
  asynchronous copies (ndarray.set / ndarray.get with a stream) that overlap kernels.

The capsule plumbing uses ctypes on CPython's capsule API; deleters may run on
any thread (ctypes takes the GIL for them).
"""
import ctypes
import math
import threading

import numpy as np

from . import _layout
from ._ffi import ffi, lib
from .array import _HK_DTYPE, _check_size, _current_device, _dims, _install_method, _on, _readers, _target, ndarray
from .device import Device, _Exit, platform
from .errors import check

# ---------------------------------------------------------------- DLPack structures

K_DL_CPU, K_DL_CUDA, K_DL_CUDA_HOST, K_DL_ROCM, K_DL_ROCM_HOST, K_DL_CUDA_MANAGED = 1, 2, 3, 10, 11, 13
# Memory the host reads and writes directly: the CPU device views it (pinned memory included).
HOST_DEVICE_TYPES = (K_DL_CPU, K_DL_CUDA_HOST, K_DL_ROCM_HOST)
# DLDataTypeCode: kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool
_INT, _UINT, _FLOAT, _COMPLEX, _BOOL_CODE = 0, 1, 2, 5, 6
_READ_ONLY, _IS_COPIED = 1, 2  # DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_IS_COPIED


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_Managed._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ManagedVersioned(ctypes.Structure):
    _fields_ = [("version", _Version), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", _Tensor)]


_api = ctypes.pythonapi
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_VERSIONED, _LEGACY = b"dltensor_versioned", b"dltensor"
_USED_VERSIONED, _USED_LEGACY = b"used_dltensor_versioned", b"used_dltensor"

# Exported tensors still alive: address of the managed struct -> what it keeps alive.
_exports: dict = {}
_exports_lock = threading.Lock()


def _gpu_device_type():
    return K_DL_ROCM if platform() == "amd" else K_DL_CUDA


def _cpu_device():
    return Device("cpu").id


_DL_DTYPE = {np.dtype(np.bool_): (_BOOL_CODE, 8)}
for _dt in _HK_DTYPE:
    if _dt.kind != "b":
        _DL_DTYPE[_dt] = ({"i": _INT, "u": _UINT, "f": _FLOAT, "c": _COMPLEX}[_dt.kind], _dt.itemsize * 8)
_FROM_DL = {code_bits: dt for dt, code_bits in _DL_DTYPE.items()}
del _dt


def _release(address):
    with _exports_lock:
        _exports.pop(address, None)


@_DELETER
def _deleter(address):  # called by the consumer when it is done with the memory
    if not _Exit.started:
        _release(address)


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    """A capsule nobody consumed: release what it holds (the spec's rule)."""
    if _Exit.started:
        return
    for name in (_VERSIONED, _LEGACY):
        if _api.PyCapsule_IsValid(capsule, name):
            _release(_api.PyCapsule_GetPointer(capsule, name))
            return


def _stream_ready(array, stream):
    """Make hipkit's queued work on `array`'s device visible to the consumer's `stream` (DLPack's
    rule, as the array API standard words it). hipkit works on the default stream: a GPU consumer on
    the default stream (None; 1 or 2, CUDA's legacy and per-thread default streams; 0, ROCm's) needs
    nothing; -1 asks for no synchronization; any other stream waits here for the device to finish
    hipkit's work. CUDA's 0 is refused as ambiguous, as are ROCm's 1 and 2, which it does not have.
    A host consumer (the array is on the CPU device) passes None, the only stream kDLCPU takes, and
    always waits: the CPU device's work runs on its worker threads."""
    if array._host_memory():
        if stream is not None:
            raise ValueError(f"__dlpack__: stream must be None for an array in host memory (kDLCPU), got "
                             f"{stream!r}")
        with _on(array._device):
            check(lib.hk_device_synchronize())
        return
    if stream is None:
        return
    if isinstance(stream, bool) or not isinstance(stream, int) or stream < -1:
        raise ValueError(f"__dlpack__: stream must be None or an int of at least -1, got {stream!r}")
    cuda = _gpu_device_type() == K_DL_CUDA
    if stream in ((0,) if cuda else (1, 2)):
        why = "0 is ambiguous; 1 is the legacy default stream, 2 the per-thread one" if cuda else \
            "0 is the default stream"
        raise ValueError(f"__dlpack__: stream {stream} is not allowed on {'CUDA' if cuda else 'ROCm'} ({why})")
    if stream in (-1, 0, 1, 2):
        return
    with _on(array._device):
        check(lib.hk_device_synchronize())


def to_dlpack(array, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule sharing `array`'s memory (ndarray.__dlpack__). dl_device=(1, 0) (kDLCPU)
    for an array on a GPU exports a copy on the CPU device (refused with copy=False)."""
    wanted = None if dl_device is None else tuple(int(getattr(v, "value", v)) for v in dl_device)  # ints or enums
    if wanted is not None and wanted != dlpack_device(array):
        if wanted[0] != K_DL_CPU:
            raise BufferError(f"__dlpack__: the array is on DLPack device {dlpack_device(array)}, not {wanted}; "
                              f"move it there first (x.to_device(...))")
        if copy is False:
            raise BufferError(f"__dlpack__: dl_device={wanted} asks for host memory but the array is on a GPU "
                              f"(DLPack device {dlpack_device(array)}) and copy=False")
        array, copy = array.to_device(_cpu_device()), None
        copied = True
    else:
        copied = False
    if copy:
        array, copied = array.copy(), True
    _stream_ready(array, stream)
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    managed = (_ManagedVersioned if versioned else _Managed)()
    ndim = array.ndim
    shape = (ctypes.c_int64 * max(ndim, 1))(*array.shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*array._el_strides)
    tensor = managed.dl_tensor
    tensor.data = int(ffi.cast("uintptr_t", array._data)) or None
    tensor.device = _Device(*dlpack_device(array))
    tensor.ndim = ndim
    code, bits = _DL_DTYPE[array.dtype]
    tensor.dtype = _DataType(code, bits, 1)
    tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    managed.deleter = _deleter
    if versioned:
        managed.version = _Version(1, 0)
        managed.flags = _IS_COPIED if copied else 0  # the standard asks for the flag whenever a copy was made
    address = ctypes.addressof(managed)
    with _exports_lock:
        _exports[address] = (managed, shape, strides, array)
    return _api.PyCapsule_New(address, _VERSIONED if versioned else _LEGACY, _capsule_destructor)


class _Keeper:
    """Holds another library's memory alive for the hipkit arrays viewing it;
    calls its DLPack deleter (or drops the reference) when collected."""

    def __init__(self, obj=None, deleter=None, address=None):
        self.obj, self.deleter, self.address = obj, deleter, address

    def __del__(self):
        if self.deleter is not None and not _Exit.started:
            self.deleter(self.address)


def _view_of(data, shape, el_strides, dtype, device, keeper):
    """A hipkit.ndarray over memory hipkit does not own."""
    array = ndarray.__new__(ndarray)
    array._setup(int(data), 0, tuple(shape), tuple(el_strides), _HK_DTYPE[dtype], device, None, False)
    array._keeper = keeper
    return array


def from_dlpack(obj, *, device=None, copy=None):
    """A hipkit.ndarray sharing the memory of `obj`, any object with __dlpack__ (CuPy, PyTorch,
    JAX, NumPy, another hipkit array): a GPU's memory gives an array on that GPU; host memory
    (kDLCPU: NumPy arrays, PyTorch CPU tensors; pinned memory) an array on the CPU device.
    device=: the result is on that device, copied there if the data is elsewhere (not with
    copy=False). copy=True always copies; a read-only producer (e.g. a read-only NumPy array) is
    copied, or refused with copy=False."""
    if isinstance(obj, ndarray):
        result = obj.copy() if copy else obj
        if device is not None and _target(device) != obj._device:
            if copy is False:
                raise BufferError(f"from_dlpack: copy=False, but the array is on device {obj._device}, not on "
                                  f"device {_target(device)}")
            result = obj.to_device(device)
        return result
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(obj).__name__} does not support DLPack (no __dlpack__)")
    ours = _gpu_device_type()
    accepted = (ours, K_DL_CUDA_MANAGED if ours == K_DL_CUDA else ours) + HOST_DEVICE_TYPES
    host = False
    if hasattr(obj, "__dlpack_device__"):
        kind, index = obj.__dlpack_device__()
        if int(kind) not in accepted:
            raise BufferError(f"from_dlpack: the array lives on DLPack device type {int(kind)}, neither host "
                              f"memory nor this build's GPUs ({'ROCm' if ours == K_DL_ROCM else 'CUDA'})")
        host = int(kind) in HOST_DEVICE_TYPES
    # The producer's stream argument: None for host memory (the spec's rule), else our default stream
    # in the spec's numbering (1: CUDA's legacy default stream; 0 on ROCm).
    stream = None if host else (1 if ours == K_DL_CUDA else 0)
    try:
        capsule = obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:  # an older producer without max_version
        capsule = obj.__dlpack__(stream=stream) if stream is not None else obj.__dlpack__()
    capsule_obj = ctypes.py_object(capsule)
    address_of = id(capsule)  # CPython: the object's address, which the capsule API takes
    versioned = bool(_api.PyCapsule_IsValid(address_of, _VERSIONED))
    if not versioned and not _api.PyCapsule_IsValid(address_of, _LEGACY):
        raise BufferError("from_dlpack: __dlpack__ returned something other than an unused DLPack capsule")
    name = _VERSIONED if versioned else _LEGACY
    address = _api.PyCapsule_GetPointer(address_of, name)
    managed = (_ManagedVersioned if versioned else _Managed).from_address(address)
    if versioned and managed.version.major > 1:
        raise BufferError(f"from_dlpack: DLPack version {managed.version.major}.{managed.version.minor} is newer "
                          f"than hipkit understands (1.x)")
    tensor = managed.dl_tensor
    device_type = tensor.device.device_type
    if device_type not in accepted:
        raise BufferError(f"from_dlpack: the tensor is on DLPack device type {device_type}")
    key = (tensor.dtype.code, tensor.dtype.bits)
    if tensor.dtype.lanes != 1 or key not in _FROM_DL:
        raise TypeError(f"from_dlpack: DLPack dtype (code {tensor.dtype.code}, {tensor.dtype.bits} bits, "
                        f"{tensor.dtype.lanes} lanes) has no hipkit equivalent")
    dtype = _FROM_DL[key]
    ndim = tensor.ndim
    _layout._check_ndim(ndim)
    shape = [tensor.shape[i] for i in range(ndim)]
    strides = [tensor.strides[i] for i in range(ndim)] if tensor.strides else list(
        _layout.contiguous_strides(shape))
    data = (tensor.data or 0) + tensor.byte_offset
    if data % dtype.itemsize:
        raise BufferError("from_dlpack: the data is not aligned to its element size")
    read_only = versioned and bool(managed.flags & _READ_ONLY)
    if read_only and copy is False:
        raise BufferError("from_dlpack: the producer's memory is read-only, hipkit arrays are writable, and "
                          "copy=False forbids the copy")
    deleter = managed.deleter
    check_rename = _api.PyCapsule_SetName(capsule_obj, _USED_VERSIONED if versioned else _USED_LEGACY)
    if check_rename:
        raise BufferError("from_dlpack: could not mark the DLPack capsule as used")
    keeper = _Keeper(None, deleter if deleter else None, address)
    on = _cpu_device() if device_type in HOST_DEVICE_TYPES else tensor.device.device_id
    array = _view_of(data, shape, strides, dtype, on, keeper)
    if device is not None and _target(device) != on:
        if copy is False:
            raise BufferError(f"from_dlpack: copy=False, but the data is on device {on}, not on device "
                              f"{_target(device)}")
        return array.to_device(device)
    if copy or read_only:
        return array.copy()
    return array


def dlpack_device(array):
    """(kDLCPU, 0) for an array on the CPU device, (kDLCUDA or kDLROCM, its number) on a GPU."""
    if array._host_memory():
        return (K_DL_CPU, 0)
    return (_gpu_device_type(), array._device)


# ---------------------------------------------------------------- __cuda_array_interface__

def cuda_array_interface(array):
    """Version 3 of the CUDA Array Interface (NVIDIA builds, arrays on a GPU)."""
    if array._host_memory():
        raise AttributeError("__cuda_array_interface__: this array is on the CPU device (host memory), which CUDA "
                             "consumers cannot take; np.asarray(x) views it, x.to_device('gpu') copies it to a GPU")
    if platform() != "nvidia":
        raise AttributeError("__cuda_array_interface__ exists on NVIDIA builds only")
    return {
        "shape": tuple(array.shape),
        "typestr": array.dtype.str,
        "data": (int(ffi.cast("uintptr_t", array._data)), False),
        "strides": None if array._contiguous else tuple(array.strides),
        "version": 3,
        "stream": 1,  # hipkit's work is queued on the legacy default stream
    }


def from_cuda_array_interface(obj):
    """A hipkit.ndarray viewing `obj`'s memory through __cuda_array_interface__."""
    info = obj.__cuda_array_interface__
    dtype = np.dtype(info["typestr"])
    if dtype not in _HK_DTYPE:
        raise TypeError(f"__cuda_array_interface__: dtype {dtype} has no hipkit equivalent")
    if info.get("mask") is not None:
        raise TypeError("__cuda_array_interface__: masked arrays are not supported")
    shape = tuple(info["shape"])
    if info.get("strides") is None:
        strides = _layout.contiguous_strides(shape)
    else:
        if any(s % dtype.itemsize for s in info["strides"]):
            raise BufferError("__cuda_array_interface__: strides are not multiples of the element size")
        strides = tuple(s // dtype.itemsize for s in info["strides"])
    stream = info.get("stream")
    if stream not in (None, 1, 2):
        check(lib.hk_device_synchronize())  # the producer's work on its own stream must finish first
    data = info["data"][0] or 0
    # The interface names no device: CUDA's convention is the current one, the first GPU when hipkit's
    # current device is the CPU device.
    current = _current_device()
    on = current if not Device._of(current).is_cpu else Device("gpu").id
    return _view_of(data, shape, strides, dtype, on, _Keeper(obj))


# ---------------------------------------------------------------- pinned host memory

class _PinnedBuffer:
    """`nbytes` of pinned host memory from hk_host_malloc, freed when collected."""

    ptr = None  # until hk_host_malloc has succeeded: a failed construction leaves __del__ nothing to free

    def __init__(self, nbytes):
        box = ffi.new("void **")
        check(lib.hk_host_malloc(box, nbytes))
        self.ptr, self.nbytes = box[0], nbytes

    def __del__(self, _free=lib.hk_host_free, _exit=_Exit):
        if self.ptr and not _exit.started:
            _free(self.ptr)
            self.ptr = None


def pinned_empty(shape, dtype=np.float64):
    """An uninitialised numpy.ndarray in page-locked (pinned) host memory, from
    hipkit's pinned pool: copies to and from it run at full bus speed and can
    be asynchronous on a stream (x.set(host, stream=s), x.get(stream=s, out=host,
    blocking=False)). Freed when the array (and every view of it) is collected. A shape
    NumPy would refuse (a negative or non-integer entry, too many bytes) raises before any
    memory is taken: TypeError or ValueError naming it."""
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError(f"pinned_empty: dtype {dtype} holds Python objects, which cannot live in pinned "
                        f"memory; use a numeric dtype")
    shape = _dims(shape)
    _check_size(shape, dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes == 0:
        return np.empty(shape, dtype)
    buffer = _PinnedBuffer(nbytes)
    host = np.frombuffer(ffi.buffer(buffer.ptr, nbytes), dtype=dtype).reshape(shape)
    return _PinnedArray(host, buffer)


class _PinnedArray(np.ndarray):
    """numpy.ndarray subclass that keeps its pinned buffer alive (views keep the base alive)."""

    def __new__(cls, host, buffer):
        obj = host.view(cls)
        obj._hipkit_pinned = buffer
        return obj

    def __array_finalize__(self, obj):
        if obj is not None and not hasattr(self, "_hipkit_pinned"):
            self._hipkit_pinned = getattr(obj, "_hipkit_pinned", None)


# ---------------------------------------------------------------- ndarray's side

def _install():
    """ndarray's __dlpack__, __dlpack_device__ and __cuda_array_interface__ over the functions above, and
    asarray's readers of other libraries' arrays (hipkit.array is below this module: it cannot import it)."""
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return dlpack_device(self)

    def __cuda_array_interface__(self):
        return cuda_array_interface(self)

    for method in (__dlpack__, __dlpack_device__, property(__cuda_array_interface__)):
        _install_method(method)
    _readers.HOST_DEVICE_TYPES = HOST_DEVICE_TYPES
    _readers.from_dlpack, _readers.from_cuda_array_interface = from_dlpack, from_cuda_array_interface


_install()
