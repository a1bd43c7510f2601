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
from .array import (add, arange, asarray, asnumpy, axpy, divide, empty, floor_divide, full,
                    multiply, ndarray, subtract, sum, zeros)
from . import kernel
from .kernel import ElementwiseKernel, RawKernel, RawModule, ReductionKernel
from . import random

# The version of the library actually loaded, not of the header it was built against.
__version__ = _library_version()
