"""hipkit: GPU arrays and kernels for AMD and NVIDIA GPUs, from one small C library.

    import hipkit, numpy as np
    x = hipkit.asarray(np.arange(5, dtype=np.float32))
    print((x + x).get(), hipkit.sum(x))

Array API: x.__array_namespace__() is this module, which implements a subset of the Python array API
standard (version 2023.12; earlier versions accepted): creation (asarray, arange, empty, zeros, ones,
full, linspace and *_like, from_dlpack), the elementwise functions hipkit has kernels for (arithmetic,
comparisons, logical and bitwise and/or/xor/invert, abs, exp, log, log1p, log2,
expm1, sqrt, sin, cos, tan, tanh, floor, ceil, round, isnan/isinf/isfinite, clip, where, square),
reductions (sum, prod, min, max, mean, var, std, any, all, argmin, argmax, count_nonzero),
cumulative_sum/prod, sort, argsort, nonzero, take, matmul, and the manipulation functions that are
views or copies (reshape, permute_dims, matrix_transpose, expand_dims, squeeze, flip, moveaxis,
broadcast_to/arrays, concat, stack, unstack, astype), with the dtypes bool, int8, uint8, int32,
uint32, int64, uint64, float32, float64 (and float16, outside the standard). Not provided: int16,
uint16 and complex dtypes, inverse trigonometric and hyperbolic functions, shifts, set functions,
searchsorted, linalg and fft extensions; creation functions take no device= (use
`with hipkit.Device(i):`). tests/python/test_array_api.py lists every deviation.
"""
from .errors import (CompileError, HipkitError, InternalError, InvalidArgumentError, InvalidDeviceError,
                     InvalidHandleError, LaunchError, NoDeviceError, NotReadyError,
                     NotSupportedError, OutOfMemoryError, RuntimeGPUError)
from .device import (Device, Event, Stream, device_count, get_device, platform, pool_stats,
                     runtime_version, set_pool_limit, trim_pool)
from .device import version as _library_version
from .array import (arange, array, asarray, ascontiguousarray, asnumpy, broadcast_to, concatenate, copy,
                    empty, empty_like, expand_dims, full, full_like, linspace, ndarray, ones, ones_like, ravel,
                    reshape, squeeze, stack, swapaxes, transpose, zeros, zeros_like)
from .ops import (abs, absolute, add, all, amax, amin, any, argmax, argmin, argsort, around, bitwise_and,
                  bitwise_invert, bitwise_not, bitwise_or, bitwise_xor, ceil, clip, cos, count_nonzero, cumprod,
                  cumsum, divide, dot, equal, erf, exp, expm1, flatnonzero, floor, floor_divide, greater,
                  greater_equal, inner, invert, isfinite, isinf, isnan, less, less_equal, log, log1p, log2,
                  logical_and, logical_not, logical_or, logical_xor, matmul, max, maximum, mean, min, minimum, mod,
                  multiply, negative, nonzero, not_equal, positive, pow, power, prod, put, remainder, rint, round, sin,
                  sort, sqrt, std, subtract, sum, take, tan, tanh, true_divide, var, vdot, where, axpy)
from . import linalg
from ._array_api import (__array_api_version__, astype, broadcast_arrays, broadcast_shapes, can_cast,  # noqa: F401
                         concat, cumulative_prod, cumulative_sum, finfo, flip, iinfo, isdtype, matrix_transpose,
                         moveaxis, permute_dims, result_type, square, unstack)
from .interop import from_dlpack, pinned_empty
from numpy import (bool_, float16, float32, float64, int8, int32, int64, uint8, uint32, uint64,  # noqa: F401
                   e, inf, nan, newaxis, pi)
bool = bool_  # noqa: A001 (hipkit.bool, as numpy.bool)
from . import kernel
from .kernel import ElementwiseKernel, RawKernel, RawModule, ReductionKernel
from . import random

# The version of the library actually loaded, not of the header it was built against.
__version__ = _library_version()
