"""hipkit: arrays and kernels for AMD and NVIDIA GPUs, and the host CPU as one more device, from one
small C library.

    import hipkit, numpy as np
    x = hipkit.asarray(np.arange(5, dtype=np.float32))
    print((x + x).get(), hipkit.sum(x))
    y = hipkit.zeros(5, device="cpu")           # on the CPU device: host memory, the same ops
    with hipkit.Device("cpu"): z = y + 1        # or make it the current device

Devices: the GPUs are numbered first (0 .. gpu_count() - 1), then the CPU device, always present, so
device_count() is at least 1. The default device is the first GPU, else the CPU device;
HIPKIT_DEVICE=cpu|gpu|N chooses another.

Array API: x.__array_namespace__() is this module, which implements a subset of the Python array API
standard (version 2023.12; earlier versions accepted): creation (asarray, arange, empty, zeros, ones,
full, linspace and *_like, from_dlpack), the elementwise functions of the library's op table
(arithmetic, comparisons, logical and bitwise ops and shifts, exponentials and logarithms, trigonometric
and hyperbolic functions and their inverses, rounding, sign, signbit, copysign, hypot, logaddexp, clip,
where, ...: hipkit.ops._UFUNC_NAMES lists them),
reductions (sum, prod, min, max, mean, var, std, any, all, argmin, argmax, count_nonzero),
cumulative_sum/prod, sort, argsort, nonzero, take, matmul, the manipulation functions that are
views or copies (reshape, permute_dims, matrix_transpose, expand_dims, squeeze, flip, moveaxis,
broadcast_to/arrays, concat, stack, unstack, astype), and those composed of the ops, on the device of
their data (eye, meshgrid, tril, triu, roll, repeat, tile, tensordot, vecdot, searchsorted,
take_along_axis, diff, unique_all/counts/inverse/values), __array_namespace_info__, with the dtypes
bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64, complex64 and
complex128 (and float16, outside the standard). Arrays have up to 32 dimensions. Not provided: isin, the
linalg and fft extensions (hipkit.linalg has norm only). Creation functions take device= (a hipkit.Device, a
device number, "cpu" or "gpu"). tests/python/test_array_api.py lists every deviation.

The package is layered: each module imports only modules below it, at its top (errors, device, _dtypes,
_layout, array, interop, the op families of _ops, ops, _array_api, linalg, random, kernel, and this one
last; tests/python/test_package_layers.py holds the order). ndarray's methods and operators are installed
by the module that implements them, once it has defined them.
"""
import os as _os
import sys as _sys

from .errors import (CompileError, HipkitError, InternalError, InvalidArgumentError, InvalidDeviceError,
                     InvalidHandleError, LaunchError, NoDeviceError, NotReadyError,
                     NotSupportedError, OutOfMemoryError, RuntimeGPUError)
from .device import (Device, Event, Stream, device_count, get_device, gpu_count, platform, pool_stats,
                     runtime_version, set_pool_limit, trim_pool)
from .device import version as _library_version
from .array import (arange, array, asarray, ascontiguousarray, asnumpy, broadcast_to, concatenate, copy,
                    empty, empty_like, expand_dims, full, full_like, ndarray, ones, ones_like, ravel,
                    reshape, squeeze, stack, swapaxes, transpose, zeros, zeros_like)
from ._ops.elementwise import linspace
from .ops import (all, amax, amin, any, argmax, argmin, argsort, around, clip, count_nonzero, cumprod,  # noqa: F401
                  cumsum, dot, flatnonzero, inner, matmul, max, mean, min, mod, nonzero, positive, prod, put, round,
                  sort, std, sum, take, true_divide, var, vdot, where, axpy, bitwise_not, invert)
from . import ops
# Every elementwise function of the library's op table (hk_op_get_info), under NumPy's and the array API's
# names: add, subtract, ..., arctan2 and atan2, left_shift and bitwise_left_shift, ...
globals().update({_name: getattr(ops, _name) for _name in ops._UFUNC_NAMES})
from . import linalg
from . import _array_api
from ._array_api import (__array_api_version__, __array_namespace_info__, astype, broadcast_arrays,  # noqa: F401
                         broadcast_shapes, can_cast, concat, cumulative_prod, cumulative_sum, diff, eye,
                         finfo, flip, iinfo, isdtype, matrix_transpose, meshgrid, moveaxis, permute_dims, repeat,
                         result_type, roll, searchsorted, take_along_axis, tensordot, tile, tril, triu,
                         unique_all, unique_counts, unique_inverse, unique_values, unstack, vecdot)
# x.__array_namespace__() is this module: installed here, the one module above all the others.
_array_api.install_namespace(_sys.modules[__name__])
from .interop import from_dlpack, pinned_empty
from numpy import (bool_, complex64, complex128, float16, float32, float64, int8, int16, int32, int64,  # noqa: F401
                   uint8, uint16, uint32, uint64,
                   e, inf, nan, newaxis, pi)
bool = bool_  # noqa: A001 (hipkit.bool, as numpy.bool)
from . import random
from ._config import show_config

# User kernels load on first use (import speed: the run-time compiler's module and its templates are
# not needed to do array math): hipkit.kernel, RawKernel, RawModule, ElementwiseKernel, ReductionKernel,
# and the names of kernels written in Python (@hipkit.jit, hipkit.grid, ...).
_KERNEL_NAMES = ("ElementwiseKernel", "RawKernel", "RawModule", "ReductionKernel", "jit", "JitError", "grid",
                 "gridsize", "syncthreads", "shared", "local", "atomic", "threadIdx", "blockIdx", "blockDim",
                 "gridDim", "warpsize", "fuse", "vectorize", "reduce")


# Lazy mode (hipkit._lazy: elementwise expressions fused into one kernel) loads on first use too, or at
# import with HIPKIT_LAZY=1.
_LAZY_NAMES = ("lazy", "set_lazy")


def __getattr__(name):
    if name in _LAZY_NAMES:
        import importlib
        _lazy = importlib.import_module("._lazy", __name__)  # on first use, by design (above)
        globals().update({n: getattr(_lazy, n) for n in _LAZY_NAMES})
        return globals()[name]
    if name == "kernel" or name in _KERNEL_NAMES:
        import importlib
        kernel = importlib.import_module(".kernel", __name__)  # lazy by design (see above)
        value = kernel if name == "kernel" else getattr(kernel, name)  # jit's names load _jit only now
        globals().update({"kernel": kernel, name: value})
        return value
    raise AttributeError(f"module 'hipkit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"kernel", *_KERNEL_NAMES, *_LAZY_NAMES})

# The version of the library actually loaded, not of the header it was built against.
__version__ = _library_version()

if _os.environ.get("HIPKIT_LAZY", "").strip():
    from . import _lazy  # noqa: E402 (which reads the value: HIPKIT_LAZY=1 records in every thread from the start)
