"""hipkit.fuse and hipkit.vectorize: a scalar Python function (the @hipkit.jit subset, returning a number)
applied element by element over arrays with NumPy broadcasting, as one generated kernel: a chained
expression such as a * x + y * b - c reads its inputs and writes its result once, instead of once per
operator.

    @hipkit.fuse
    def axpbyc(a, x, y, b, c):
        return a * x + y * b - c

    z = axpbyc(a, x, y, b, c)         # hipkit arrays and numbers; out= writes an existing array

Types follow NumPy 2: array elements have their dtype, Python numbers are weak (float32 array * 2.0 stays
float32); the result's dtype is what the function returns. Calls whose arrays all have the result's shape
and are C-contiguous run a dense kernel (several elements per thread, coalesced); any other call
(broadcasting, strided views) runs through ElementwiseKernel, which broadcasts. Inside, the function may
call math functions, hipkit's elementwise functions by name (hipkit.sin, ...), casts, and
@hipkit.jit(device=True) functions; anything else is refused with the Python line (JitError).
"""
import math
import threading

import numpy as np

from ..array import _HK_DTYPE, ndarray
from ._elementwise import ElementwiseKernel
from ._jit import _CTYPES, JitFunction, _literal, _prelude, _Program, _WEAK_FLOAT, _WEAK_INT, _concrete
from ._reduction import ReductionKernel
from ._module import RawKernel

__all__ = ["fuse", "vectorize", "reduce", "Fused", "Reduced"]

# elements per thread of the dense kernel (each thread's are blockDim apart: every access coalesced)
_PER_THREAD = 4
_BLOCK = 256


def _scalar_type(value):
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, int):
        return _WEAK_INT
    if isinstance(value, float):
        return _WEAK_FLOAT
    if isinstance(value, np.generic) and np.dtype(type(value)).name in _CTYPES:
        return np.dtype(type(value)).name
    return None


class _Plan:
    __slots__ = ("dense", "general", "out_dtype", "names")

    def __init__(self, dense, general, out_dtype):
        self.dense, self.general, self.out_dtype = dense, general, out_dtype


class Fused:
    """A scalar function fused into one kernel per argument types (see hipkit.kernel._fuse)."""

    def __init__(self, fn, name=None):
        self._jit = JitFunction(fn, device=True)
        self.__name__ = name or fn.__name__
        self.__doc__, self.__wrapped__ = fn.__doc__, fn
        self._plans = {}
        self._lock = threading.Lock()

    def __call__(self, *args, out=None, stream=None):
        kinds, shapes, arrays = [], [], []
        for a in args:
            if a.__class__ is ndarray or isinstance(a, ndarray):
                kinds.append((a._hk_dtype, a._contiguous))
                shapes.append(a.shape)
                arrays.append(a)
            else:
                t = _scalar_type(a)
                if t is None:
                    if isinstance(a, np.ndarray):
                        raise TypeError(f"{self.__name__}: a NumPy array was passed; fused functions take hipkit "
                                        f"arrays (hipkit.asarray(x)) and numbers")
                    raise TypeError(f"{self.__name__}: arguments are hipkit arrays and numbers, not "
                                    f"{type(a).__name__}")
                kinds.append(t)
        key = tuple(kinds)
        plan = self._plans.get(key)
        if plan is None:
            with self._lock:
                plan = self._plans.get(key)
                if plan is None:
                    plan = self._plans[key] = self._build(args, kinds)
        if not arrays:
            raise TypeError(f"{self.__name__}: give at least one hipkit array (numbers alone: call the "
                            f"Python function)")
        shape = shapes[0]
        same = all(s == shape for s in shapes)
        if not same:
            shape = np.broadcast_shapes(*shapes)
        if out is None:
            out = ndarray._empty(shape, plan.out_dtype)
        elif not isinstance(out, ndarray) or out.shape != tuple(shape) or out.dtype != plan.out_dtype:
            raise ValueError(f"{self.__name__}: out must be a hipkit array of shape {tuple(shape)} and dtype "
                             f"{plan.out_dtype}")
        n = out.size
        if n == 0:
            return out
        if same and out._contiguous and all(k[1] for k in kinds if isinstance(k, tuple)):
            kernel = plan.dense
            blocks = min((n + _BLOCK * _PER_THREAD - 1) // (_BLOCK * _PER_THREAD), 1 << 30)
            kernel(blocks, _BLOCK, (*args, out, n), 0, stream)
        else:
            plan.general(*args, out, stream=stream)
        return out

    def _build(self, args, kinds):
        types = []
        for a, k in zip(args, kinds):
            if isinstance(k, tuple):
                dtype = np.dtype(a.dtype).name
                if dtype not in _CTYPES:
                    raise TypeError(f"{self.__name__}: arrays of {dtype} are not supported in fused functions yet")
                types.append(dtype)
            else:
                types.append(k)
        program = _Program()
        cname = f"hkj_{self.__name__}"
        tr = self._jit._translator(tuple(types), cname, program)
        body, rtype = tr.emit(cname)
        if rtype in (None, "void"):
            raise tr.error(tr.tree, f"{self.__name__} must return a number (the element of the result)")
        code = "".join(program.functions) + body
        device_code = _prelude(code) + code
        out_dtype = np.dtype(rtype)
        if out_dtype not in _HK_DTYPE:
            raise TypeError(f"{self.__name__} returns {rtype}, which no hipkit array holds")
        # the dense kernel: every array C-contiguous of the result's shape
        params, ptypes, call, tile, loads = [], [], [], [], []
        for i, (t, k) in enumerate(zip(types, kinds)):
            ct = _CTYPES[_concrete(t)]
            if isinstance(k, tuple):
                params.append(f"const {ct} *__restrict__ in{i}")
                ptypes.append("pointer")
                call.append(f"in{i}[j]")
                tile.append(f"v{i}[k]")
                loads.append(f"            {ct} v{i}[{_PER_THREAD}];\n")
                loads.append(f"#pragma unroll\n            for (int k = 0; k < {_PER_THREAD}; k++)\n"
                             f"                v{i}[k] = in{i}[base + k * step];\n")
            else:
                params.append(f"{ct} in{i}")
                ptypes.append(_concrete(t))
                call.append(f"in{i}")
                tile.append(f"in{i}")
        rct = _CTYPES[rtype]
        params += [f"{rct} *__restrict__ out", "long long n"]
        ptypes += ["pointer", "int64"]
        name = f"fused_{self.__name__}"
        # A full tile loads every element of it first, then computes: the loads are in flight together
        # while the math runs (an expression heavy in math is then still at memory speed); the last,
        # partial tile checks each element.
        dense_source = (
            f"{device_code}\n"
            f'extern "C" __global__ void {name}({", ".join(params)})\n{{\n'
            f"    const long long step = (long long)blockDim.x;\n"
            f"    const long long stride = (long long)gridDim.x * step * {_PER_THREAD};\n"
            f"    for (long long base = (long long)blockIdx.x * step * {_PER_THREAD} + threadIdx.x; base < n; "
            f"base += stride) {{\n"
            f"        if (base + {_PER_THREAD - 1} * step < n) {{\n"
            f"{''.join(loads)}"
            f"#pragma unroll\n"
            f"            for (int k = 0; k < {_PER_THREAD}; k++)\n"
            f"                out[base + k * step] = ({rct}){cname}({', '.join(tile)});\n"
            f"        }} else {{\n"
            f"            for (int k = 0; k < {_PER_THREAD}; k++) {{\n"
            f"                const long long j = base + k * step;\n"
            f"                if (j < n)\n"
            f"                    out[j] = ({rct}){cname}({', '.join(call)});\n"
            f"            }}\n        }}\n    }}\n}}\n")
        dense = RawKernel(dense_source, name, param_types=ptypes)
        # the general call: ElementwiseKernel broadcasts (and gathers strided views)
        in_params = ", ".join(f"{_concrete(t)} x{i}" for i, t in enumerate(types))
        operation = f"r = ({rct}){cname}({', '.join(f'x{i}' for i in range(len(types)))})"
        general = ElementwiseKernel(in_params, f"{rtype} r", operation, name,
                                    preamble=device_code.replace("#include <hipkit_device.h>", ""))
        return _Plan(dense, general, out_dtype)

    def __repr__(self):
        return f"<hipkit.fuse {self.__name__}>"


class Reduced:
    """A binary Python function (the @hipkit.jit subset) as a reduction over every element of an array,
    with `identity` its neutral element, the value of an empty reduction (see hipkit.reduce)."""

    def __init__(self, fn, identity, name=None):
        if not isinstance(identity, (bool, int, float, np.bool_, np.integer, np.floating)):
            raise TypeError(f"hipkit.reduce: identity must be a number (the neutral element of "
                            f"{getattr(fn, '__name__', 'the function')}), not {type(identity).__name__}")
        self._jit = JitFunction(fn, device=True)
        self.identity = identity
        self.__name__ = name or fn.__name__
        self.__doc__, self.__wrapped__ = fn.__doc__, fn
        self._kernels = {}
        self._lock = threading.Lock()

    def __call__(self, x, *, out=None, stream=None):
        """The reduction of every element of hipkit array x, as a 0-d hipkit array (out= to write one)."""
        if not isinstance(x, ndarray):
            raise TypeError(f"{self.__name__}: reduces a hipkit array, not {type(x).__name__}")
        kernel = self._kernels.get(x._hk_dtype)
        if kernel is None:
            with self._lock:
                kernel = self._kernels.get(x._hk_dtype)
                if kernel is None:
                    kernel = self._kernels[x._hk_dtype] = self._build(np.dtype(x.dtype).name)
        return kernel(x, out=out, stream=stream) if out is not None else kernel(x, stream=stream)

    def _build(self, dtype):
        if dtype not in _CTYPES:
            raise TypeError(f"{self.__name__}: arrays of {dtype} are not supported in reductions yet")
        program = _Program()
        cname = f"hkj_{self.__name__}"
        tr = self._jit._translator((dtype, dtype), cname, program)
        body, rtype = tr.emit(cname)
        if rtype != dtype:
            raise tr.error(tr.tree, f"{self.__name__} of two {dtype} values returns {rtype}; a reduction's "
                                    f"function returns its arguments' type (cast with hipkit.{dtype}(...))")
        code = "".join(program.functions) + body
        identity = _literal(self.identity, dtype)
        preamble = (_prelude(code + identity) + code).replace("#include <hipkit_device.h>", "")
        return ReductionKernel(f"{dtype} x", f"{dtype} y", "x", f"{cname}(a, b)", "y = a", identity,
                               f"reduce_{self.__name__}", preamble=preamble)

    def __repr__(self):
        return f"<hipkit.reduce {self.__name__}>"


def reduce(fn=None, *, identity=None, name=None):
    """@hipkit.reduce(identity=...): a binary function f(a, b) (associative and commutative, the @hipkit.jit
    subset) as a reduction over every element of an array: r(x) is f folded over x, a 0-d array; identity
    is f's neutral element (0 for a sum, 1 for a product, -inf for a max), the value of an empty array."""
    if identity is None:
        raise TypeError("hipkit.reduce needs identity= (the neutral element: 0 for a sum, 1 for a product, "
                        "-inf for a maximum): @hipkit.reduce(identity=0)")
    if fn is None:
        return lambda f: Reduced(f, identity, name)
    return Reduced(fn, identity, name)


def fuse(fn=None, *, kernel_name=None):
    """@hipkit.fuse: fn (a scalar function of the @hipkit.jit subset) as one elementwise kernel over its
    array arguments, with NumPy broadcasting (cupy.fuse's decorator)."""
    if fn is None:
        return lambda f: Fused(f, kernel_name)
    return Fused(fn, kernel_name)


def vectorize(fn=None, *, name=None):
    """@hipkit.vectorize: fn turned into an elementwise function over hipkit arrays with broadcasting
    (NumPy/Numba vectorize semantics, the types taken from each call's arguments); the same machinery
    as hipkit.fuse."""
    if fn is None or isinstance(fn, (list, tuple, str)):  # @vectorize(['float32(float32)']): types from the call
        return lambda f: Fused(f, name)
    return Fused(fn, name)


for _public in (fuse, vectorize, reduce, Fused, Reduced):
    _public.__module__ = "hipkit.kernel"  # the name users reach them by
del _public
