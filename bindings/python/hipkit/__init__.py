"""hipkit: GPU arrays and kernels for AMD and NVIDIA GPUs, from one small C library.

    import hipkit, numpy as np
    x = hipkit.asarray(np.arange(5, dtype=np.float32))
    print((x + x).get(), hipkit.sum(x))
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
                  multiply, negative, nonzero, not_equal, positive, pow, power, prod, remainder, rint, round, sin,
                  sort, sqrt, std, subtract, sum, take, tan, tanh, true_divide, var, vdot, where, axpy)
from . import linalg
from .interop import from_dlpack, pinned_empty
from numpy import (bool_, float16, float32, float64, int8, int32, int64, uint8, uint32, uint64,  # noqa: F401
                   e, inf, nan, newaxis, pi)
bool = bool_  # noqa: A001 (hipkit.bool, as numpy.bool)
from . import kernel
from .kernel import ElementwiseKernel, RawKernel, RawModule, ReductionKernel
from . import random

# The version of the library actually loaded, not of the header it was built against.
__version__ = _library_version()
