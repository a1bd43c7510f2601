"""User kernels: HIP C++ written once, compiled at run time (hiprtc on AMD,
NVRTC on NVIDIA), cached on disk, launched from Python at close to raw cost.

    saxpy = hipkit.RawKernel(r'''
    #include <hipkit_device.h>
    extern "C" __global__ void saxpy(float a, const float *x, float *y, long long n)
    {
        for (long long i = hk_global_index(); i < n; i += hk_grid_stride())
            y[i] = a * x[i] + y[i];
    }''', "saxpy")
    saxpy((n + 255) // 256, 256, (2.0, x, y, n))       # grid, block, args

Arguments follow the parameter types the kernel declares (read from its
`extern "C"` signature, or given as param_types=): a hipkit.ndarray passes its
device address, Python and NumPy numbers are converted to the declared type and
refused, before anything is launched, when they do not fit it (OverflowError)
or are of the wrong kind (TypeError: a float for an integer parameter).

The templates ElementwiseKernel and ReductionKernel generate such kernels from
a line of C++, in the manner of CuPy's, with NumPy broadcasting over inputs.
"""
# One module a part, each importing only those above it in this list:
#   _compile      compile(), Program, the disk cache, the default target
#   _args         parameter types, the packed layout, the checked packing of arguments
#   _launcher     the launch function generated per signature (native or struct.pack)
#   _module       RawModule and RawKernel
#   _template     what ElementwiseKernel and ReductionKernel share
#   _elementwise  ElementwiseKernel
#   _reduction    ReductionKernel
#   _jit          @hipkit.jit: kernels written in Python, translated to HIP C++
#   _fuse         hipkit.fuse / hipkit.vectorize: scalar Python functions as one elementwise kernel
# _elementwise, _reduction, _jit and _fuse load on first use of one of their names (a RawKernel or
# @hipkit.jit user's new process should not pay for what it does not use: the first cache hit is timed).
from ._compile import Program, compile, default_target, get_cache_dir, rtc_version, set_cache_dir
from ._args import _ARG, _Pointer, _arg_type, _layout, _pack_checked  # noqa: F401 (the tests use these)
from ._launcher import _make_launcher  # noqa: F401
from ._module import RawKernel, RawModule

# The public names keep the module they had before the split, hipkit.kernel (reprs, help()).
for _public in (Program, compile, default_target, get_cache_dir, rtc_version, set_cache_dir, RawKernel, RawModule):
    _public.__module__ = __name__
del _public

# The templates load on first use too (a @hipkit.jit or RawKernel user's new process skips them).
_TEMPLATE_NAMES = {"ElementwiseKernel": "._elementwise", "ReductionKernel": "._reduction"}
_JIT_NAMES = ("JitError", "atomic", "blockDim", "blockIdx", "grid", "gridDim", "gridsize", "jit", "local", "shared",
              "syncthreads", "threadIdx", "warpsize")
_FUSE_NAMES = ("fuse", "vectorize", "reduce")


def __getattr__(name):
    if name in _JIT_NAMES or name in _FUSE_NAMES or name in _TEMPLATE_NAMES:
        import importlib
        where = _TEMPLATE_NAMES.get(name) or ("._jit" if name in _JIT_NAMES else "._fuse")
        module = importlib.import_module(where, __name__)  # lazy (above)
        value = getattr(module, name)
        if name in _TEMPLATE_NAMES:
            value.__module__ = __name__
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hipkit.kernel' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_JIT_NAMES) | set(_FUSE_NAMES) | set(_TEMPLATE_NAMES))
