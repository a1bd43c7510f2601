"""Kernels written in Python: @hipkit.jit translates a function of a typed subset of Python into HIP C++
(one source for AMD, NVIDIA and the CPU device), specialised per argument types, compiled through
RawKernel (hiprtc, NVRTC or the host compiler; cached on disk like any kernel).

    @hipkit.jit
    def vector_add(a, b, c):
        i = hipkit.grid(1)
        if i < c.size:
            c[i] = a[i] + b[i]

    vector_add[blocks, threads](a, b, c)        # or vector_add.forall(n)(a, b, c)

The subset: numbers (bool, integers, float32/float64) and hipkit arrays (elements read and written with
one index per dimension, .shape, .size, .ndim, len()); local variables (a variable keeps one type: the
promotion of everything assigned to it, NumPy 2's rules with Python numbers weak); arithmetic with
Python's meaning of /, // and % and **; comparisons (chained), and/or/not, x if c else y; if/elif/else,
for over range(), while, break, continue, return; math functions (math.*, hipkit.* or numpy.* names:
sqrt, exp, log, sin, ...), abs, min, max, int(), float(), bool() and dtype casts (hipkit.float32(x));
hipkit.grid(ndim), hipkit.gridsize(ndim), threadIdx/blockIdx/blockDim/gridDim (.x .y .z), warpsize;
hipkit.shared.array(shape, dtype) and hipkit.local.array(shape, dtype) with constant shapes (shape 0:
the launch's dynamic shared memory), hipkit.syncthreads(); hipkit.atomic.add/sub/max/min/exch/cas on
array elements; calls of @hipkit.jit(device=True) functions; global numbers are compile-time constants.
Anything else raises JitError naming the file and line of the Python it comes from, before anything is
compiled; the generated C++ carries #line directives, so what the compiler says also points at Python.
"""
import ast
import builtins
import linecache
import math
import textwrap
import threading
import types as _types

import numpy as np

from .._ffi import lib
from ..array import _HK_DTYPE, ndarray
from ..errors import check
from ._launcher import _native
from ._compile import get_cache_dir
from ._module import RawKernel

_jit_launch = getattr(_native, "jit_launch", None)  # the launch of one specialisation in C (native/launch.c)
_SIG_ARRAY, _SIG_FLOAT64, _SIG_NEVER = 0xF0, 0xF1, 0xFF

__all__ = ["JitError", "jit", "grid", "gridsize", "syncthreads", "shared", "local", "atomic", "threadIdx",
           "blockIdx", "blockDim", "gridDim", "warpsize"]


class JitError(TypeError):
    """A construct the @hipkit.jit subset does not have, or a type error in a jit function; the message
    starts with the Python file and line."""


# ------------------------------------------------------------------ the names kernels use
# (placeholders: they only mean something inside a translated function; called from Python they say so)

def _device_only(name):
    def f(*args, **kwargs):
        raise JitError(f"hipkit.{name}() is only meaningful inside a @hipkit.jit function")
    f.__name__ = name
    return f


grid = _device_only("grid")
gridsize = _device_only("gridsize")
syncthreads = _device_only("syncthreads")


class _Namespace:
    def __init__(self, name, members):
        self._name = name
        for m in members:
            setattr(self, m, _device_only(f"{name}.{m}"))

    def __repr__(self):
        return f"<hipkit.{self._name} (for @hipkit.jit functions)>"


shared = _Namespace("shared", ["array"])
local = _Namespace("local", ["array"])
atomic = _Namespace("atomic", ["add", "sub", "max", "min", "exch", "cas"])


class _Dim3Name:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"<hipkit.{self._name} (x, y, z inside @hipkit.jit functions)>"


threadIdx, blockIdx, blockDim, gridDim = (_Dim3Name(n) for n in ("threadIdx", "blockIdx", "blockDim", "gridDim"))
warpsize = _Dim3Name("warpsize")

# ------------------------------------------------------------------ types

_CTYPES = {
    "bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short", "uint16": "unsigned short",
    "int32": "int", "uint32": "unsigned int", "int64": "long long", "uint64": "unsigned long long",
    "float32": "float", "float64": "double",
}
_INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
_FLOATS = ("float32", "float64")
# weak types: Python numbers without a dtype of their own (NumPy 2's rules)
_WEAK_INT, _WEAK_FLOAT = "int", "float"


def _is_int(t):
    return t in _INTS or t == _WEAK_INT


def _is_float(t):
    return t in _FLOATS or t == _WEAK_FLOAT


def _is_number(t):
    return isinstance(t, str) and (t == "bool" or _is_int(t) or _is_float(t))


def _concrete(t):
    return {"int": "int64", "float": "float64"}.get(t, t)


def _promote(a, b):
    """The result type of a binary operation on types a and b (NumPy 2: Python numbers are weak)."""
    if a == b:
        return a
    weak = (_WEAK_INT, _WEAK_FLOAT)
    if a in weak and b in weak:
        return _WEAK_FLOAT
    if a in weak or b in weak:
        w, s = (a, b) if a in weak else (b, a)
        if w == _WEAK_INT:
            return "int64" if s == "bool" else s
        return s if s in _FLOATS else "float64"
    return np.result_type(np.dtype(a), np.dtype(b)).name


class _ArrayType:
    """A hipkit array argument, or a shared/local array: dtype, ndim, C-contiguous; shape a tuple of ints
    for shared/local arrays (compile-time), None for arguments (passed with the launch)."""

    def __init__(self, dtype, ndim, contiguous, shape=None, space="global"):
        self.dtype, self.ndim, self.contiguous, self.shape, self.space = dtype, ndim, contiguous, shape, space

    def key(self):
        return ("array", self.dtype, self.ndim, self.contiguous, self.shape, self.space)

    def __eq__(self, other):
        return isinstance(other, _ArrayType) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return f"{self.dtype} array of {self.ndim} dimension{'s' if self.ndim != 1 else ''}"


class _TupleType:
    def __init__(self, items):
        self.items = tuple(items)

    def __eq__(self, other):
        return isinstance(other, _TupleType) and self.items == other.items

    def __hash__(self):
        return hash(("tuple", self.items))


def _dtype_of(value):
    """The dtype name a dtype-like object stands for, else None."""
    if isinstance(value, type) and issubclass(value, np.generic) or isinstance(value, (np.dtype, str)):
        try:
            name = np.dtype(value).name
        except TypeError:
            return None
        return name if name in _CTYPES else None
    return None


# ------------------------------------------------------------------ the C++ every jit kernel starts with

# The C++ helpers generated code may call, each emitted only when the kernel's text names it (a smaller
# source compiles faster): (the names that call for it, its C++), in dependency order.
_HELPERS = (
    (("HKJ_INF", "HKJ_NAN", "hkj_isinf", "hkj_isfinite"), r"""// the run-time compilers have no <math.h> macros
#if defined(__CUDACC__)
#define HKJ_INFF __int_as_float(0x7f800000)
#define HKJ_NANF __int_as_float(0x7fc00000)
#define HKJ_INF __longlong_as_double(0x7ff0000000000000ll)
#define HKJ_NAN __longlong_as_double(0x7ff8000000000000ll)
#else
#define HKJ_INFF __builtin_huge_valf()
#define HKJ_NANF __builtin_nanf("")
#define HKJ_INF __builtin_huge_val()
#define HKJ_NAN __builtin_nan("")
#endif
"""),
    (("hkj_isnan", "hkj_isinf", "hkj_isfinite"), r"""template <typename T> __device__ inline bool hkj_isnan(T x) { return x != x; }
template <typename T> __device__ inline bool hkj_isinf(T x) { return x == (T)HKJ_INF || x == -(T)HKJ_INF; }
template <typename T> __device__ inline bool hkj_isfinite(T x) { return !hkj_isnan(x) && !hkj_isinf(x); }
"""),
    (('hkj_floordiv',), r"""template <typename T> __device__ inline T hkj_floordiv(T a, T b)
{
    if (b == 0) return 0;
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
__device__ inline float hkj_floordiv(float a, float b) { return floorf(a / b); }
__device__ inline double hkj_floordiv(double a, double b) { return floor(a / b); }
"""),
    (('hkj_mod',), r"""template <typename T> __device__ inline T hkj_mod(T a, T b)
{
    if (b == 0) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
__device__ inline float hkj_mod(float a, float b)
{
    float r = fmodf(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
__device__ inline double hkj_mod(double a, double b)
{
    double r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
"""),
    (('hkj_ipow',), r"""template <typename T> __device__ inline T hkj_ipow(T a, T b)
{
    if (b < 0) return (a == 1) ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    T r = 1;
    while (b) { if (b & 1) r *= a; a *= a; b >>= 1; }
    return r;
}
"""),
    (('hkj_min', 'hkj_max'), r"""template <typename T> __device__ inline T hkj_min(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ inline T hkj_max(T a, T b) { return b > a ? b : a; }
"""),
    (('hkj_abs',), r"""template <typename T> __device__ inline T hkj_abs(T a) { return a < 0 ? -a : a; }
__device__ inline float hkj_abs(float a) { return fabsf(a); }
__device__ inline double hkj_abs(double a) { return fabs(a); }
"""),
    (('hkj_atomic',), r"""// atomics on the element types kernels use; min/max of floats as compare-and-swap loops
__device__ inline long long hkj_atomic_add(long long *p, long long v)
{ return (long long)atomicAdd((unsigned long long *)p, (unsigned long long)v); }
__device__ inline unsigned long long hkj_atomic_add(unsigned long long *p, unsigned long long v) { return atomicAdd(p, v); }
__device__ inline int hkj_atomic_add(int *p, int v) { return atomicAdd(p, v); }
__device__ inline unsigned int hkj_atomic_add(unsigned int *p, unsigned int v) { return atomicAdd(p, v); }
__device__ inline float hkj_atomic_add(float *p, float v) { return atomicAdd(p, v); }
__device__ inline double hkj_atomic_add(double *p, double v) { return atomicAdd(p, v); }
__device__ inline int hkj_atomic_max(int *p, int v) { return atomicMax(p, v); }
__device__ inline unsigned int hkj_atomic_max(unsigned int *p, unsigned int v) { return atomicMax(p, v); }
// signed 64-bit max/min as compare-and-swap loops (HIP before 6 has no atomicMax/Min(long long *))
template <typename Better> __device__ inline long long hkj_atomic_int64(long long *p, long long v, Better better)
{
    unsigned long long *q = (unsigned long long *)p;
    unsigned long long old = *q, assumed;
    do {
        assumed = old;
        if (!better(v, (long long)assumed)) return (long long)assumed;
        old = atomicCAS(q, assumed, (unsigned long long)v);
    } while (old != assumed);
    return (long long)old;
}
struct hkj_gt64 { __device__ bool operator()(long long a, long long b) const { return a > b; } };
struct hkj_lt64 { __device__ bool operator()(long long a, long long b) const { return a < b; } };
__device__ inline long long hkj_atomic_max(long long *p, long long v) { return hkj_atomic_int64(p, v, hkj_gt64()); }
__device__ inline unsigned long long hkj_atomic_max(unsigned long long *p, unsigned long long v) { return atomicMax(p, v); }
__device__ inline int hkj_atomic_min(int *p, int v) { return atomicMin(p, v); }
__device__ inline unsigned int hkj_atomic_min(unsigned int *p, unsigned int v) { return atomicMin(p, v); }
__device__ inline long long hkj_atomic_min(long long *p, long long v) { return hkj_atomic_int64(p, v, hkj_lt64()); }
__device__ inline unsigned long long hkj_atomic_min(unsigned long long *p, unsigned long long v) { return atomicMin(p, v); }
// the bits of a float as an unsigned integer and back (the vendors' intrinsics: no memcpy in device code)
__device__ inline unsigned int hkj_bits(float v) { return __float_as_uint(v); }
__device__ inline unsigned long long hkj_bits(double v) { return (unsigned long long)__double_as_longlong(v); }
__device__ inline float hkj_from_bits(unsigned int b, float) { return __uint_as_float(b); }
__device__ inline double hkj_from_bits(unsigned long long b, double) { return __longlong_as_double((long long)b); }
// max/min of floats: a compare-and-swap loop; NaN wins, as NumPy's maximum/minimum
template <typename F, typename Op> __device__ inline F hkj_atomic_float(F *p, F v, Op better)
{
    typedef decltype(hkj_bits(v)) U;
    U *q = (U *)p;
    U old = *q, assumed;
    do {
        assumed = old;
        const F cur = hkj_from_bits(assumed, v);
        if (!better(v, cur)) return cur;
        old = atomicCAS(q, assumed, hkj_bits(v));
    } while (old != assumed);
    return hkj_from_bits(old, v);
}
struct hkj_gt { template <typename F> __device__ bool operator()(F a, F b) const { return a > b || (a != a && b == b); } };
struct hkj_lt { template <typename F> __device__ bool operator()(F a, F b) const { return a < b || (a != a && b == b); } };
__device__ inline float hkj_atomic_max(float *p, float v) { return hkj_atomic_float(p, v, hkj_gt()); }
__device__ inline double hkj_atomic_max(double *p, double v) { return hkj_atomic_float(p, v, hkj_gt()); }
__device__ inline float hkj_atomic_min(float *p, float v) { return hkj_atomic_float(p, v, hkj_lt()); }
__device__ inline double hkj_atomic_min(double *p, double v) { return hkj_atomic_float(p, v, hkj_lt()); }
__device__ inline int hkj_atomic_exch(int *p, int v) { return atomicExch(p, v); }
__device__ inline unsigned int hkj_atomic_exch(unsigned int *p, unsigned int v) { return atomicExch(p, v); }
__device__ inline unsigned long long hkj_atomic_exch(unsigned long long *p, unsigned long long v) { return atomicExch(p, v); }
__device__ inline long long hkj_atomic_exch(long long *p, long long v)
{ return (long long)atomicExch((unsigned long long *)p, (unsigned long long)v); }
__device__ inline float hkj_atomic_exch(float *p, float v) { return atomicExch(p, v); }
__device__ inline int hkj_atomic_cas(int *p, int c, int v) { return atomicCAS(p, c, v); }
__device__ inline unsigned int hkj_atomic_cas(unsigned int *p, unsigned int c, unsigned int v) { return atomicCAS(p, c, v); }
__device__ inline unsigned long long hkj_atomic_cas(unsigned long long *p, unsigned long long c, unsigned long long v)
{ return atomicCAS(p, c, v); }
__device__ inline long long hkj_atomic_cas(long long *p, long long c, long long v)
{ return (long long)atomicCAS((unsigned long long *)p, (unsigned long long)c, (unsigned long long)v); }
"""),
)


def _prelude(code):
    """hipkit_device.h and the helpers `code` calls."""
    parts = ["#include <hipkit_device.h>\n"]
    for names, text in _HELPERS:
        if any(name in code for name in names):
            parts.append(text)
    return "".join(parts)


# math functions: name -> (arity, float32 C name, float64 C name); integer arguments go as float64
_MATH = {
    "sqrt": (1, "sqrtf", "sqrt"), "exp": (1, "expf", "exp"), "log": (1, "logf", "log"),
    "log2": (1, "log2f", "log2"), "log10": (1, "log10f", "log10"), "log1p": (1, "log1pf", "log1p"),
    "expm1": (1, "expm1f", "expm1"), "exp2": (1, "exp2f", "exp2"), "sin": (1, "sinf", "sin"),
    "cos": (1, "cosf", "cos"), "tan": (1, "tanf", "tan"), "asin": (1, "asinf", "asin"),
    "acos": (1, "acosf", "acos"), "atan": (1, "atanf", "atan"), "sinh": (1, "sinhf", "sinh"),
    "cosh": (1, "coshf", "cosh"), "tanh": (1, "tanhf", "tanh"), "asinh": (1, "asinhf", "asinh"),
    "acosh": (1, "acoshf", "acosh"), "atanh": (1, "atanhf", "atanh"), "erf": (1, "erff", "erf"),
    "erfc": (1, "erfcf", "erfc"), "floor": (1, "floorf", "floor"), "ceil": (1, "ceilf", "ceil"),
    "trunc": (1, "truncf", "trunc"), "fabs": (1, "fabsf", "fabs"), "lgamma": (1, "lgammaf", "lgamma"),
    "tgamma": (1, "tgammaf", "tgamma"), "gamma": (1, "tgammaf", "tgamma"), "cbrt": (1, "cbrtf", "cbrt"),
    "atan2": (2, "atan2f", "atan2"), "hypot": (2, "hypotf", "hypot"), "pow": (2, "powf", "pow"),
    "fmod": (2, "fmodf", "fmod"), "copysign": (2, "copysignf", "copysign"), "power": (2, "powf", "pow"),
    "arcsin": (1, "asinf", "asin"), "arccos": (1, "acosf", "acos"), "arctan": (1, "atanf", "atan"),
    "arctan2": (2, "atan2f", "atan2"), "arcsinh": (1, "asinhf", "asinh"), "arccosh": (1, "acoshf", "acosh"),
    "arctanh": (1, "atanhf", "atanh"), "fmin": (2, "fminf", "fmin"), "fmax": (2, "fmaxf", "fmax"),
}
_PREDICATES = {"isnan": "hkj_isnan", "isinf": "hkj_isinf", "isfinite": "hkj_isfinite"}
_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}


def _literal(value, t):
    """C text of a Python number of type t."""
    if t == "bool":
        return "true" if value else "false"
    if _is_float(t):
        double = _concrete(t) == "float64"
        if math.isnan(value):
            return "HKJ_NAN" if double else "HKJ_NANF"
        if math.isinf(value):
            inf = "HKJ_INF" if double else "HKJ_INFF"
            return inf if value > 0 else f"(-{inf})"
        text = repr(float(value))
        return f"{text}f" if _concrete(t) == "float32" else text
    value = int(value)
    c = _concrete(t)
    if c == "uint64":
        return f"{value}ull"
    if value == -2**63:
        return "(-9223372036854775807ll - 1)"
    return f"({value}ll)" if c == "int64" else f"(({_CTYPES[c]}){value})"


# ------------------------------------------------------------------ the translator

class _Value:
    """A translated expression: C text and type; `const` the Python value when known at compile time
    (global numbers, literals), `obj` a Python object the name stands for (modules, functions, dtypes)."""

    __slots__ = ("code", "type", "const", "obj")

    def __init__(self, code, type_, const=None, obj=None):
        self.code, self.type, self.const, self.obj = code, type_, const, obj


_NO_CONST = object()


class _Translator:
    """One function specialised for argument types: emits its C++ (the kernel, or a device function)."""

    def __init__(self, fn, tree, filename, first_line, arg_types, name, device, program):
        self.fn, self.tree, self.filename, self.first_line = fn, tree, filename, first_line
        self.arg_types, self.name, self.device, self.program = arg_types, name, device, program
        self.globals = dict(fn.__globals__)
        if fn.__closure__:
            for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.globals[var] = cell.cell_contents
                except ValueError:
                    pass
        self.locals = {}  # name -> type (arguments and variables)
        self.shared_decls = []
        self.return_type = None
        self.params = [a.arg for a in tree.args.args]
        self.inferring = False
        self.aliases, self.declared_arrays, self.loop_count = {}, set(), 0

    # ---- errors

    def error(self, node, message):
        line = self.first_line + getattr(node, "lineno", 1) - 1
        return JitError(f"{self.filename}:{line}: in {self.fn.__name__}: {message}")

    def line(self, node):
        name = self.filename.replace("\\", "/").replace('"', "'")
        return f'#line {self.first_line + node.lineno - 1} "{name}"\n'

    # ---- type inference: every variable's type, to a fixed point over the body

    def infer(self):
        args = self.tree.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs:
            raise self.error(self.tree, "jit functions take plain positional parameters (no *args, **kwargs, "
                                        "defaults or keyword-only parameters)")
        if len(self.params) != len(self.arg_types):
            raise self.error(self.tree, f"{self.fn.__name__} takes {len(self.params)} arguments but "
                                        f"{len(self.arg_types)} were given")
        for p, t in zip(self.params, self.arg_types):
            self.locals[p] = t
        self.params_set = set(self.params)
        for _ in range(8):
            before = dict(self.locals)
            self.inferring = True
            self.return_type = None
            self.block(self.tree.body, emit=False)
            if self.locals == before:
                break
        self.inferring = False

    def assign_type(self, node, name, t):
        if name in self.params_set and t != self.locals[name]:
            if isinstance(self.locals[name], _ArrayType) or not _is_number(t):
                raise self.error(node, f"parameter {name} cannot be rebound to another kind of value")
            return
        old = self.locals.get(name)
        if old is None:
            self.locals[name] = t if not _is_number(t) else _concrete(t)
        elif old != t:
            if _is_number(old) and _is_number(t):
                self.locals[name] = _concrete(_promote(old, t))
            else:
                raise self.error(node, f"variable {name} holds {self._type_name(old)} and then "
                                       f"{self._type_name(t)}; a variable keeps one kind of value")

    @staticmethod
    def _type_name(t):
        if isinstance(t, _ArrayType):
            return f"a {t!r}"
        if isinstance(t, _TupleType):
            return "a tuple"
        return _concrete(t)

    # ---- statements

    def block(self, body, emit, indent=1):
        out = []
        for stmt in body:
            out.append(self.statement(stmt, emit, indent))
        return "".join(out)

    def statement(self, node, emit, indent):
        pad = "    " * indent
        head = self.line(node) if emit else ""
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return ""  # a docstring
            v = self.expr(node.value, statement=True)
            return f"{head}{pad}{v.code};\n" if emit else ""
        if isinstance(node, ast.Pass):
            return ""
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment (a = b = ...) is not supported; assign one target")
            return head + self.assign(node, node.targets[0], node.value, emit, pad)
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                raise self.error(node, "a declaration without a value is not supported")
            return head + self.assign(node, node.target, node.value, emit, pad)
        if isinstance(node, ast.AugAssign):
            binop = ast.BinOp(left=self._load(node.target), op=node.op, right=node.value)
            ast.copy_location(binop, node)
            ast.fix_missing_locations(binop)
            return head + self.assign(node, node.target, binop, emit, pad)
        if isinstance(node, ast.If):
            cond = self.condition(node.test)
            body = self.block(node.body, emit, indent + 1)
            orelse = self.block(node.orelse, emit, indent + 1) if node.orelse else ""
            if not emit:
                return ""
            text = f"{head}{pad}if ({cond}) {{\n{body}{pad}}}"
            if node.orelse:
                text += f" else {{\n{orelse}{pad}}}"
            return text + "\n"
        if isinstance(node, ast.While):
            if node.orelse:
                raise self.error(node, "while ... else is not supported")
            cond = self.condition(node.test)
            body = self.block(node.body, emit, indent + 1)
            return f"{head}{pad}while ({cond}) {{\n{body}{pad}}}\n" if emit else ""
        if isinstance(node, ast.For):
            return head + self.for_range(node, emit, indent)
        if isinstance(node, ast.Break):
            return f"{head}{pad}break;\n" if emit else ""
        if isinstance(node, ast.Continue):
            return f"{head}{pad}continue;\n" if emit else ""
        if isinstance(node, ast.Return):
            if node.value is None:
                if self.device and not self.inferring and self.return_type not in (None, "void"):
                    raise self.error(node, "a bare return in a device function that returns a value")
                return f"{head}{pad}return;\n" if emit else ""
            if not self.device:
                raise self.error(node, "a kernel returns nothing (write results into an array argument)")
            v = self.expr(node.value)
            if not _is_number(v.type):
                raise self.error(node, "device functions return numbers")
            self.return_type = _concrete(v.type if self.return_type is None else _promote(self.return_type, v.type))
            if not emit:
                return ""
            return f"{head}{pad}return ({_CTYPES[self.final_return]})({v.code});\n"
        names = {ast.Try: "try", ast.With: "with", ast.Raise: "raise", ast.FunctionDef: "nested functions",
                 ast.ClassDef: "classes", ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Delete: "del",
                 ast.Assert: "assert", ast.Import: "import", ast.ImportFrom: "import"}
        what = next((n for k, n in names.items() if isinstance(node, k)), type(node).__name__)
        raise self.error(node, f"'{what}' is not supported in @hipkit.jit functions")

    def _load(self, target):
        node = ast.parse(ast.unparse(target), mode="eval").body
        ast.copy_location(node, target)
        for child in ast.walk(node):
            ast.copy_location(child, target)
        return node

    def condition(self, node):
        v = self.expr(node)
        if not _is_number(v.type):
            raise self.error(node, "a condition must be a number or a comparison")
        return v.code

    def assign(self, node, target, value, emit, pad):
        if isinstance(target, ast.Tuple):
            v = self.expr(value)
            if not isinstance(v.type, _TupleType) or len(v.type.items) != len(target.elts):
                raise self.error(node, f"cannot unpack this value into {len(target.elts)} names (tuple "
                                       f"unpacking takes hipkit.grid(n)/gridsize(n) or a tuple of numbers)")
            if not all(isinstance(e, ast.Name) for e in target.elts):
                raise self.error(node, "unpack into plain names")
            parts = v.code
            out = []
            for elt, (code, t) in zip(target.elts, zip(parts, v.type.items)):
                out.append(self.assign_name(node, elt.id, _Value(code, t), emit, pad))
            return "".join(out)
        if isinstance(target, ast.Name):
            if isinstance(value, ast.Call) and self._is_array_ctor(value):
                return self.array_decl(node, target.id, value, emit)
            v = self.expr(value)
            return self.assign_name(node, target.id, v, emit, pad)
        if isinstance(target, ast.Subscript):
            ref, t = self.element(target)
            v = self.expr(value)
            if not _is_number(v.type):
                raise self.error(node, "array elements take numbers")
            return f"{pad}{ref} = ({_CTYPES[t]})({v.code});\n" if emit else ""
        if isinstance(target, ast.Attribute):
            raise self.error(node, f"cannot assign to attribute {ast.unparse(target)}")
        raise self.error(node, f"cannot assign to {ast.unparse(target)}")

    def assign_name(self, node, name, v, emit, pad):
        if isinstance(v.type, _ArrayType):
            old = self.locals.get(name)
            if old is not None and old != v.type:
                raise self.error(node, f"variable {name} holds {self._type_name(old)} and then "
                                       f"{self._type_name(v.type)}; a variable keeps one kind of value")
            self.locals[name] = v.type
            self.aliases[name] = v.code
            return ""
        if not _is_number(v.type):
            raise self.error(node, f"{name} = {ast.unparse(node.value) if hasattr(node, 'value') else '...'}: "
                                   f"variables hold numbers or arrays")
        self.assign_type(node, name, v.type)
        if not emit:
            return ""
        t = self.locals[name]
        return f"{pad}{self.var(name)} = ({_CTYPES[t]})({v.code});\n"

    def var(self, name):
        return name if name in self.params_set else f"v_{name}"

    def _is_array_ctor(self, call):
        f = self.resolve_call_target(call.func)
        return f is shared.array or f is local.array

    def array_decl(self, node, name, call, emit):
        f = self.resolve_call_target(call.func)
        space = "shared" if f is shared.array else "local"
        args = list(call.args) + [kw.value for kw in call.keywords if kw.arg in ("shape", "dtype")]
        if len(args) != 2:
            raise self.error(node, f"hipkit.{space}.array takes (shape, dtype)")
        shape = self.const(args[0], f"the shape of a {space} array")
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if not all(isinstance(e, (int, np.integer)) and e >= 0 for e in shape) or not shape:
            raise self.error(node, f"a {space} array's shape is a non-negative int or a tuple of them, "
                                   f"known when the kernel is compiled")
        dtype = _dtype_of(self.const(args[1], f"the dtype of a {space} array"))
        if dtype is None:
            raise self.error(node, f"the dtype of a {space} array must be a hipkit/NumPy dtype")
        dynamic = space == "shared" and shape == (0,)
        t = _ArrayType(dtype, len(shape), True, tuple(int(e) for e in shape), space="dynamic" if dynamic else space)
        if name in self.locals and self.locals[name] != t:
            raise self.error(node, f"{name} is declared twice with different shapes or dtypes")
        self.locals[name] = t
        if emit and name not in self.declared_arrays:
            self.declared_arrays.add(name)
            ctype = _CTYPES[dtype]
            if dynamic:
                self.shared_decls.append(f"    extern __shared__ {ctype} v_{name}[];\n")
            else:
                qual = "__shared__ " if space == "shared" else ""
                self.shared_decls.append(f"    {qual}{ctype} v_{name}[{math.prod(shape) or 1}];\n")
        self.aliases[name] = f"v_{name}"
        return ""

    def for_range(self, node, emit, indent):
        pad = "    " * indent
        if node.orelse:
            raise self.error(node, "for ... else is not supported")
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "a for loop's target is one name")
        it = node.iter
        if not (isinstance(it, ast.Call) and self.resolve_call_target(it.func) is range):
            raise self.error(node, "for loops run over range(...) only")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error(node, "range takes 1 to 3 positional arguments")
        vals = [self.expr(a) for a in it.args]
        for a, v in zip(it.args, vals):
            if not _is_int(v.type) and v.type != "bool":
                raise self.error(a, "range() takes integers")
        start, stop, step = (_Value("0", _WEAK_INT, 0), vals[0], _Value("1", _WEAK_INT, 1)) if len(vals) == 1 else (
            vals[0], vals[1], vals[2] if len(vals) == 3 else _Value("1", _WEAK_INT, 1))
        t = _WEAK_INT
        for v in (start, stop, step):
            t = _promote(t, v.type)
        t = _concrete(t)
        name = node.target.id
        self.assign_type(node, name, t)
        lt = self.locals[name]
        body = self.block(node.body, emit, indent + 1)
        if not emit:
            return ""
        self.loop_count += 1
        k = self.loop_count
        ct = _CTYPES[lt]
        if step.const is not None and step.const != _NO_CONST:
            if step.const == 0:
                raise self.error(node, "range() step must not be zero")
            cmp = "<" if step.const > 0 else ">"
            return (f"{pad}{{\n{pad}    const {ct} hkj_stop{k} = ({ct})({stop.code});\n"
                    f"{pad}    for ({ct} hkj_i{k} = ({ct})({start.code}); hkj_i{k} {cmp} hkj_stop{k}; "
                    f"hkj_i{k} += ({ct})({step.code})) {{\n"
                    f"{pad}        {self.var(name)} = hkj_i{k};\n{body}{pad}    }}\n{pad}}}\n")
        return (f"{pad}{{\n{pad}    const {ct} hkj_stop{k} = ({ct})({stop.code}), hkj_step{k} = ({ct})({step.code});\n"
                f"{pad}    for ({ct} hkj_i{k} = ({ct})({start.code}); hkj_step{k} > 0 ? hkj_i{k} < hkj_stop{k} : "
                f"hkj_i{k} > hkj_stop{k}; hkj_i{k} += hkj_step{k}) {{\n"
                f"{pad}        {self.var(name)} = hkj_i{k};\n{body}{pad}    }}\n{pad}}}\n")

    # ---- compile-time values

    def resolve(self, node):
        """The Python object a Name/Attribute chain names outside the function (globals, closure,
        builtins), or _NO_CONST."""
        if isinstance(node, ast.Name):
            if node.id in self.locals:
                return _NO_CONST
            if node.id in self.globals:
                return self.globals[node.id]
            import builtins
            return getattr(builtins, node.id, _NO_CONST)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if base is _NO_CONST:
                return _NO_CONST
            return getattr(base, node.attr, _NO_CONST)
        return _NO_CONST

    def resolve_call_target(self, node):
        obj = self.resolve(node)
        return None if obj is _NO_CONST else obj

    def const(self, node, what):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Tuple):
            return tuple(self.const(e, what) for e in node.elts)
        obj = self.resolve(node)
        if obj is _NO_CONST:
            raise self.error(node, f"{what} must be known when the kernel is compiled (a literal or a "
                                   f"global), not {ast.unparse(node)}")
        return obj

    # ---- expressions

    def expr(self, node, statement=False):
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            what = {"Lambda": "lambda", "ListComp": "list comprehensions", "List": "lists", "Dict": "dicts",
                    "Set": "sets", "GeneratorExp": "generators", "JoinedStr": "f-strings", "Yield": "yield",
                    "Await": "await", "Starred": "*unpacking", "NamedExpr": ":=", "Slice": "slices"}.get(
                type(node).__name__, type(node).__name__)
            raise self.error(node, f"{what} are not supported in @hipkit.jit functions"
                             if what.endswith("s") else f"'{what}' is not supported in @hipkit.jit functions")
        v = method(node)
        if not statement and v.type == "void":
            raise self.error(node, f"{ast.unparse(node)} has no value")
        return v

    def e_Constant(self, node):
        value = node.value
        if isinstance(value, bool):
            return _Value(_literal(value, "bool"), "bool", value)
        if isinstance(value, int):
            if not -2**63 <= value < 2**64:
                raise self.error(node, f"the integer {value} does not fit 64 bits")
            t = "uint64" if value >= 2**63 else _WEAK_INT
            return _Value(_literal(value, t), t, value)
        if isinstance(value, float):
            return _Value(_literal(value, _WEAK_FLOAT), _WEAK_FLOAT, value)
        raise self.error(node, f"the constant {value!r} is not a number (jit functions compute on numbers)")

    def e_Name(self, node):
        name = node.id
        if name in self.locals:
            t = self.locals[name]
            if isinstance(t, _ArrayType):
                return _Value(self.aliases.get(name, name), t)
            return _Value(self.var(name), t)
        obj = self.resolve(node)
        if obj is _NO_CONST:
            if self.inferring:  # assigned later in the body: its type comes with the next pass
                return _Value("0", _WEAK_INT, None)
            raise self.error(node, f"name {name} is not defined (or is used before it is assigned)")
        return self.constant_value(node, obj)

    def constant_value(self, node, obj):
        if isinstance(obj, (bool, np.bool_)):
            return _Value(_literal(bool(obj), "bool"), "bool", bool(obj))
        if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool):
            t = _WEAK_INT if isinstance(obj, int) else np.dtype(type(obj)).name
            return _Value(_literal(int(obj), t), t, int(obj))
        if isinstance(obj, (float, np.floating)):
            t = _WEAK_FLOAT if isinstance(obj, float) else np.dtype(type(obj)).name
            return _Value(_literal(float(obj), t), t, float(obj))
        if isinstance(obj, _Dim3Name) and obj._name == "warpsize":
            return _Value("((long long)warpSize)", "int64")
        if isinstance(obj, ndarray):
            raise self.error(node, f"{ast.unparse(node)} is a global array; pass arrays as arguments")
        return _Value(None, "object", None, obj)

    def e_Attribute(self, node):
        base = self.expr(node.value) if not isinstance(node.value, (ast.Name, ast.Attribute)) or \
            self.resolve(node.value) is _NO_CONST else None
        if base is None:
            owner = self.resolve(node.value)
            if isinstance(owner, _Dim3Name) and owner._name != "warpsize":
                if node.attr not in ("x", "y", "z"):
                    raise self.error(node, f"{owner._name} has .x, .y and .z, not .{node.attr}")
                return _Value(f"((long long){owner._name}.{node.attr})", "int64")
            if owner is math and node.attr in _MATH_CONSTANTS:
                return _Value(_literal(_MATH_CONSTANTS[node.attr], _WEAK_FLOAT), _WEAK_FLOAT,
                              _MATH_CONSTANTS[node.attr])
            obj = self.resolve(node)
            if obj is _NO_CONST:
                raise self.error(node, f"{ast.unparse(node)} is not defined")
            return self.constant_value(node, obj)
        t = base.type
        if isinstance(t, _ArrayType):
            if node.attr == "shape":
                return _Value(tuple(self.extent(base.code, t, k) for k in range(t.ndim)),
                              _TupleType(["int64"] * t.ndim))
            if node.attr == "size":
                return _Value("(" + " * ".join(self.extent(base.code, t, k) for k in range(t.ndim)) + ")", "int64")
            if node.attr == "ndim":
                return _Value(f"({t.ndim}ll)", _WEAK_INT, t.ndim)
            raise self.error(node, f"arrays in jit functions have .shape, .size and .ndim, not .{node.attr}")
        if isinstance(base.type, _Dim3Name) or base.obj is not None:
            raise self.error(node, f"{ast.unparse(node)} is not defined")
        raise self.error(node, f"a number has no attribute {node.attr}")

    def extent(self, code, t, k):
        if t.shape is not None:
            return f"({t.shape[k]}ll)"
        return f"{code}_s{k}"

    def element(self, node):
        """(C lvalue, dtype) of an element reference a[i, j]."""
        base = self.expr(node.value)
        t = base.type
        if not isinstance(t, _ArrayType):
            raise self.error(node, f"{ast.unparse(node.value)} is not an array: only arrays are indexed")
        idx = node.slice
        items = list(idx.elts) if isinstance(idx, ast.Tuple) else [idx]
        if any(isinstance(i, ast.Slice) for i in items):
            raise self.error(node, "slices are not supported in jit functions: index one element per dimension")
        if len(items) != t.ndim:
            raise self.error(node, f"{ast.unparse(node.value)} has {t.ndim} dimension"
                                   f"{'s' if t.ndim != 1 else ''}; index it with {t.ndim} integer"
                                   f"{'s' if t.ndim != 1 else ''} (one element), not {len(items)}")
        codes = []
        for k, item in enumerate(items):
            v = self.expr(item)
            if not (_is_int(v.type) or v.type == "bool"):
                raise self.error(item, f"array indices are integers, not {self._type_name(v.type)}")
            c = f"(long long)({v.code})"
            if v.const is not None and isinstance(v.const, int) and v.const < 0:
                c = f"({self.extent(base.code, t, k)} + ({v.const}ll))"  # a[-1]: from the end
            codes.append(c)
        if t.contiguous:
            off = codes[0]
            for k in range(1, t.ndim):
                off = f"({off} * {self.extent(base.code, t, k)} + {codes[k]})"
        else:
            off = " + ".join(f"{c} * {base.code}_t{k}" for k, c in enumerate(codes))
        return f"{base.code}[{off}]", t.dtype

    def e_Subscript(self, node):
        base = self.expr(node.value)
        if isinstance(base.type, _TupleType):
            k = self.const(node.slice, "a tuple index")
            if not isinstance(k, int) or not -len(base.type.items) <= k < len(base.type.items):
                raise self.error(node, f"tuple index {k!r} is out of range or not an int")
            return _Value(base.code[k], base.type.items[k])
        ref, t = self.element(node)
        return _Value(ref, t)

    def e_Tuple(self, node):
        vals = [self.expr(e) for e in node.elts]
        if not all(_is_number(v.type) for v in vals):
            raise self.error(node, "tuples hold numbers")
        return _Value(tuple(v.code for v in vals), _TupleType([v.type for v in vals]))

    def cast(self, v, t):
        return f"(({_CTYPES[_concrete(t)]})({v.code}))"

    def e_BinOp(self, node):
        a, b = self.expr(node.left), self.expr(node.right)
        for v, n in ((a, node.left), (b, node.right)):
            if not _is_number(v.type):
                raise self.error(n, f"{ast.unparse(n)} is not a number: operators take numbers")
        t = _promote(a.type, b.type)
        op = type(node.op)
        if op is ast.Div:
            t = t if _is_float(t) else "float64"
            return _Value(f"({self.cast(a, t)} / {self.cast(b, t)})", t)
        if op in (ast.Add, ast.Sub, ast.Mult):
            if t == "bool":
                t = "int64" if op is not ast.Mult else "bool"
            sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}[op]
            code = f"({self.cast(a, t)} {sym} {self.cast(b, t)})"
            return _Value(f"(({_CTYPES[_concrete(t)]}){code})", t)
        if op in (ast.FloorDiv, ast.Mod):
            if t == "bool":
                t = "int64"
            f = "hkj_floordiv" if op is ast.FloorDiv else "hkj_mod"
            ct = _CTYPES[_concrete(t)]
            return _Value(f"{f}<{ct}>({self.cast(a, t)}, {self.cast(b, t)})" if _is_int(t) else
                          f"{f}({self.cast(a, t)}, {self.cast(b, t)})", t)
        if op is ast.Pow:
            if _is_int(t) or t == "bool":
                t = "int64" if t == "bool" else t
                ct = _CTYPES[_concrete(t)]
                return _Value(f"hkj_ipow<{ct}>({self.cast(a, t)}, {self.cast(b, t)})", t)
            fname = "powf" if _concrete(t) == "float32" else "pow"
            return _Value(f"{fname}({self.cast(a, t)}, {self.cast(b, t)})", t)
        if op in (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift):
            if _is_float(t):
                raise self.error(node, "bitwise operators take integers or bools")
            sym = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}[op]
            return _Value(f"(({_CTYPES[_concrete(t)]})({self.cast(a, t)} {sym} {self.cast(b, t)}))", t)
        raise self.error(node, f"the operator {type(node.op).__name__} (@) is not supported")

    def e_UnaryOp(self, node):
        v = self.expr(node.operand)
        if not _is_number(v.type):
            raise self.error(node, "unary operators take numbers")
        if isinstance(node.op, ast.Not):
            return _Value(f"(!({v.code}))", "bool")
        if isinstance(node.op, ast.USub):
            t = "int64" if v.type == "bool" else v.type
            const = -v.const if isinstance(v.const, (int, float)) and not isinstance(v.const, bool) else None
            return _Value(f"(({_CTYPES[_concrete(t)]})(-{self.cast(v, t)}))", t, const)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Invert):
            if _is_float(v.type):
                raise self.error(node, "~ takes integers or bools")
            if v.type == "bool":
                return _Value(f"(!({v.code}))", "bool")
            return _Value(f"(({_CTYPES[_concrete(v.type)]})(~{v.code}))", v.type)
        raise self.error(node, "unsupported unary operator")

    def e_BoolOp(self, node):
        vals = [self.expr(v) for v in node.values]
        for v, n in zip(vals, node.values):
            if not _is_number(v.type):
                raise self.error(n, "and/or take numbers or comparisons")
        sym = " && " if isinstance(node.op, ast.And) else " || "
        return _Value("(" + sym.join(f"(bool)({v.code})" for v in vals) + ")", "bool")

    def e_Compare(self, node):
        parts = []
        left = self.expr(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            for v, n in ((left, node.left), (right, right_node)):
                if not _is_number(v.type):
                    raise self.error(n, "comparisons take numbers")
            sym = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}.get(
                type(op))
            if sym is None:
                raise self.error(node, f"the comparison {type(op).__name__} is not supported (is, in: not numbers)")
            t = _promote(left.type, right.type)
            parts.append(f"({self.cast(left, t)} {sym} {self.cast(right, t)})")
            left = right
        return _Value("(" + " && ".join(parts) + ")", "bool")

    def e_IfExp(self, node):
        c = self.condition(node.test)
        a, b = self.expr(node.body), self.expr(node.orelse)
        if not (_is_number(a.type) and _is_number(b.type)):
            raise self.error(node, "x if c else y takes numbers")
        t = _promote(a.type, b.type)
        return _Value(f"(({c}) ? {self.cast(a, t)} : {self.cast(b, t)})", t)

    def e_Call(self, node):
        f = self.resolve_call_target(node.func)
        if f is None:
            raise self.error(node, f"{ast.unparse(node.func)} cannot be called in a jit function")
        if node.keywords and f not in (shared.array, local.array):
            raise self.error(node, f"{ast.unparse(node.func)}: keyword arguments are not supported here")
        name = getattr(f, "__name__", "")
        args = node.args
        if f is grid or f is gridsize:
            n = self.const(args[0], "the ndim of grid()") if len(args) == 1 else None
            if n not in (1, 2, 3):
                raise self.error(node, f"hipkit.{name}(ndim) takes ndim 1, 2 or 3")
            axes = "xyz"[:n]
            if f is grid:
                items = [f"((long long)blockIdx.{a} * (long long)blockDim.{a} + (long long)threadIdx.{a})"
                         for a in axes]
            else:
                items = [f"((long long)blockDim.{a} * (long long)gridDim.{a})" for a in axes]
            if n == 1:
                return _Value(items[0], "int64")
            return _Value(tuple(items), _TupleType(["int64"] * n))
        if f is syncthreads:
            if args:
                raise self.error(node, "syncthreads() takes no arguments")
            return _Value("__syncthreads()", "void")
        if f in (shared.array, local.array):
            raise self.error(node, f"hipkit.{'shared' if f is shared.array else 'local'}.array(...) is "
                                   f"assigned to a name: smem = hipkit.shared.array(128, hipkit.float32)")
        if isinstance(f, type(atomic.add)) and f in (atomic.add, atomic.sub, atomic.max, atomic.min, atomic.exch,
                                                      atomic.cas):
            return self.atomic_call(node, name.split(".")[1], args)
        if f is range:
            raise self.error(node, "range() is for for loops")
        if f is len:
            v = self.expr(args[0]) if len(args) == 1 else None
            if v is None or not isinstance(v.type, _ArrayType):
                raise self.error(node, "len() takes one array")
            return _Value(self.extent(v.code, v.type, 0), "int64")
        vals = [self.expr(a) for a in args]
        for v, n in zip(vals, args):
            if not _is_number(v.type):
                raise self.error(n, f"{ast.unparse(node.func)}() takes numbers")
        if f is abs:
            self.arity(node, vals, 1)
            t = vals[0].type
            t = "int64" if t == "bool" else t
            return _Value(f"hkj_abs({self.cast(vals[0], t)})", t)
        if f is min or f is max:
            if len(vals) < 2:
                raise self.error(node, f"{name}() takes two or more numbers")
            t = vals[0].type
            for v in vals[1:]:
                t = _promote(t, v.type)
            code = self.cast(vals[0], t)
            for v in vals[1:]:
                code = f"hkj_{name}<{_CTYPES[_concrete(t)]}>({code}, {self.cast(v, t)})"
            return _Value(code, t)
        if f is int:
            self.arity(node, vals, 1)
            return _Value(self.cast(vals[0], "int64"), "int64")
        if f is float:
            self.arity(node, vals, 1)
            return _Value(self.cast(vals[0], "float64"), "float64")
        if f is bool:
            self.arity(node, vals, 1)
            return _Value(f"((bool)({vals[0].code}))", "bool")
        dtype = _dtype_of(f)
        if dtype is not None:
            self.arity(node, vals, 1)
            return _Value(self.cast(vals[0], dtype), dtype)
        if name in _PREDICATES and self._is_math_like(f):
            self.arity(node, vals, 1)
            v = vals[0]
            if not _is_float(v.type):
                return _Value("true" if name == "isfinite" else "false", "bool")
            return _Value(f"((bool){_PREDICATES[name]}({self.cast(v, v.type)}))", "bool")
        if name in _MATH and self._is_math_like(f):
            arity, f32, f64 = _MATH[name]
            self.arity(node, vals, arity)
            t = vals[0].type
            for v in vals[1:]:
                t = _promote(t, v.type)
            if not _is_float(t):
                t = "float64"
            t = _concrete(t)
            fname = f32 if t == "float32" else f64
            return _Value(f"{fname}({', '.join(self.cast(v, t) for v in vals)})", t)
        if isinstance(f, JitFunction):
            if not f.device:
                raise self.error(node, f"{f.__name__} is a kernel; only @hipkit.jit(device=True) functions "
                                       f"are called from jit code")
            types = tuple(_concrete(v.type) for v in vals)
            cname, rtype = self.program.device_function(f, types, node, self)
            return _Value(f"{cname}({', '.join(self.cast(v, t) for v, t in zip(vals, types))})", rtype)
        raise self.error(node, f"{ast.unparse(node.func)} cannot be called in a jit function (math functions, "
                               f"abs/min/max, casts, hipkit.grid/syncthreads/atomic.*, device functions)")

    @staticmethod
    def _is_math_like(f):
        module = getattr(f, "__module__", None) or ""
        return module in ("math", "numpy", "cmath") or module.startswith("hipkit") or \
            isinstance(f, np.ufunc) or type(f).__name__ == "builtin_function_or_method"

    def arity(self, node, vals, n):
        if len(vals) != n:
            raise self.error(node, f"{ast.unparse(node.func)}() takes {n} argument{'s' if n != 1 else ''}, "
                                   f"{len(vals)} given")

    def atomic_call(self, node, op, args):
        want = 4 if op == "cas" else 3
        if len(args) != want:
            raise self.error(node, f"hipkit.atomic.{op} takes (array, index, {'old, new' if op == 'cas' else 'value'})")
        arr = self.expr(args[0])
        if not isinstance(arr.type, _ArrayType):
            raise self.error(args[0], f"hipkit.atomic.{op}'s first argument is an array")
        index = args[1]
        sub = ast.Subscript(value=args[0], slice=index, ctx=ast.Load())
        ast.copy_location(sub, node)
        ref, dtype = self.element(sub)
        supported = {"add": ("int32", "uint32", "int64", "uint64", "float32", "float64"),
                     "sub": ("int32", "uint32", "int64", "uint64", "float32", "float64"),
                     "max": ("int32", "uint32", "int64", "uint64", "float32", "float64"),
                     "min": ("int32", "uint32", "int64", "uint64", "float32", "float64"),
                     "exch": ("int32", "uint32", "int64", "uint64", "float32"),
                     "cas": ("int32", "uint32", "int64", "uint64")}[op]
        if dtype not in supported:
            raise self.error(node, f"hipkit.atomic.{op} takes arrays of {', '.join(supported)}, not {dtype}")
        vals = [self.expr(a) for a in args[2:]]
        for v, n in zip(vals, args[2:]):
            if not _is_number(v.type):
                raise self.error(n, "atomic operations take numbers")
        ct = _CTYPES[dtype]
        casts = ", ".join(f"({ct})({v.code})" for v in vals)
        if op == "sub":
            return _Value(f"hkj_atomic_add(&{ref}, ({ct})(-({ct})({vals[0].code})))", dtype)
        return _Value(f"hkj_atomic_{op}(&{ref}, {casts})", dtype)

    # ---- the whole function

    def emit(self, cname):
        self.aliases, self.declared_arrays, self.loop_count = {}, set(), 0
        self.infer()
        self.aliases, self.declared_arrays, self.loop_count = {}, set(), 0
        if self.device:
            self.final_return = self.return_type or "void"
        body = self.block(self.tree.body, emit=True)
        params, types = [], []
        for p, t in zip(self.params, self.arg_types):
            if isinstance(t, _ArrayType):
                params.append(f"{_CTYPES[t.dtype]} *__restrict__ {p}")
                types.append("pointer")
                for k in range(t.ndim):
                    params.append(f"long long {p}_s{k}")
                    types.append("int64")
                if not t.contiguous:
                    for k in range(t.ndim):
                        params.append(f"long long {p}_t{k}")
                        types.append("int64")
            else:
                params.append(f"{_CTYPES[_concrete(t)]} {p}")
                types.append(_concrete(t))
        decls = "".join(f"    {_CTYPES[t]} {self.var(n)} = 0;\n" for n, t in self.locals.items()
                        if n not in self.params_set and _is_number(t))
        if self.device:
            head = f"__device__ inline {('void' if self.final_return == 'void' else _CTYPES[self.final_return])} "
            self.kernel_types = types
            return f"{head}{cname}({', '.join(params)})\n{{\n{decls}{body}}}\n", self.final_return
        source = (f'extern "C" __global__ void {cname}({", ".join(params)})\n{{\n'
                  f"{''.join(self.shared_decls)}{decls}{body}}}\n")
        self.kernel_types = types
        return source, None


class _Program:
    """The C++ of one kernel specialisation and the device functions it calls."""

    def __init__(self):
        self.functions = []  # C++ of device functions, callees first
        self.done = {}  # (JitFunction, types) -> (C name, return type)

    def device_function(self, f, types, node, caller):
        key = (f, types)
        if key in self.done:
            if self.done[key] is None:
                raise caller.error(node, f"{f.__name__} calls itself: recursion is not supported")
            return self.done[key]
        self.done[key] = None
        cname = f"hkj_{f.__name__}_{len(self.done)}"
        tr = f._translator(types, cname, self)
        source, rtype = tr.emit(cname)
        self.functions.append(source)
        self.done[key] = (cname, rtype)
        return self.done[key]


def _arg_key(value):
    """The part of a specialisation key an argument gives, and the argument type the translator sees."""
    if isinstance(value, ndarray):
        return (value._hk_dtype, value.ndim, value._contiguous)
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, np.generic) and np.dtype(type(value)).name in _CTYPES:
        return np.dtype(type(value)).name
    if isinstance(value, np.ndarray):
        raise TypeError("a NumPy array was passed to a @hipkit.jit kernel: kernels take hipkit arrays (copy it "
                        "with hipkit.asarray(x) first, and back with .get())")
    raise TypeError(f"@hipkit.jit kernels take hipkit arrays and numbers, not {type(value).__name__}")


class JitFunction:
    """A function translated to a kernel (or, with device=True, a device function) per argument types.
    kernel[grid, block](args), kernel[grid, block, stream], kernel[grid, block, stream, shared_mem]
    launch it; kernel.forall(n)(args) picks the block size of best occupancy and a grid covering n."""

    def __init__(self, fn, device=False):
        if not isinstance(fn, _types.FunctionType):
            raise TypeError("hipkit.jit decorates a Python function")
        self.fn, self.device, self.__name__ = fn, device, fn.__name__
        self.__doc__, self.__wrapped__ = fn.__doc__, fn
        self._tree = None
        self._kernels = {}  # specialisation key -> (RawKernel, packer, signature for the C launch)
        self._configs = {}
        self._last = None  # (kernel handle(s), signature): the specialisation the C launch tries first
        self._lock = threading.Lock()

    def _source(self):
        """(lines, first line number) of the function's definition, decorators included: read by
        indentation from the file's cached lines (inspect's tokenizer costs milliseconds), inspect
        only when that does not parse."""
        code = self.fn.__code__
        lines = linecache.getlines(code.co_filename)
        start = code.co_firstlineno - 1
        if 0 <= start < len(lines):
            k = start
            while k < len(lines) and lines[k].lstrip().startswith("@"):
                k += 1
            if k < len(lines) and lines[k].lstrip().startswith("def "):
                indent = len(lines[k]) - len(lines[k].lstrip())
                end = k + 1
                while end < len(lines):
                    text = lines[end].strip()
                    if text and not text.startswith("#") and len(lines[end]) - len(lines[end].lstrip()) <= indent:
                        break
                    end += 1
                block = lines[start:end]
                try:
                    ast.parse(textwrap.dedent("".join(block)))
                    return block, start + 1
                except SyntaxError:
                    pass
        import inspect  # the slow way, when reading by indentation did not parse (~20 ms to import)
        return inspect.getsourcelines(self.fn)

    def _parse(self):
        if self._tree is None:
            try:
                lines, first = self._source()
            except (OSError, TypeError) as e:
                raise JitError(f"the source of {self.fn.__name__} cannot be read ({e}); @hipkit.jit needs "
                               f"functions defined in files") from None
            tree = ast.parse(textwrap.dedent("".join(lines)))
            node = tree.body[0]
            if not isinstance(node, ast.FunctionDef):
                raise JitError(f"{self.fn.__name__} is not a plain def")
            self._filename = self.fn.__code__.co_filename or "<jit>"
            self._first = first
            self._tree = node
        return self._tree

    def _translator(self, arg_types, cname, program):
        tree = self._parse()
        return _Translator(self.fn, tree, self._filename, self._first, arg_types, cname, self.device, program)

    def __call__(self, *args):
        if self.device:
            return self.fn(*args)  # plain Python outside kernels
        raise TypeError(f"{self.__name__} is a kernel: launch it as {self.__name__}[grid, block](...) or "
                        f"{self.__name__}.forall(n)(...)")

    def __getitem__(self, config):
        if self.device:
            raise TypeError(f"{self.__name__} is a device function: call it from a kernel")
        try:
            launch = self._configs.get(config)
        except TypeError:  # an unhashable config (a list)
            launch = None
        if launch is None:
            items = config if isinstance(config, tuple) else (config,)
            if not 2 <= len(items) <= 4:
                raise ValueError("launch with kernel[grid, block], kernel[grid, block, stream] or "
                                 "kernel[grid, block, stream, shared_mem]")
            grid_, block = items[0], items[1]
            stream = items[2] if len(items) > 2 else None
            shared_mem = items[3] if len(items) > 3 else 0
            launch = _Launch(self, grid_, block, stream, shared_mem)
            if len(self._configs) > 256:
                self._configs.clear()
            try:
                self._configs[config] = launch
            except TypeError:  # an unhashable config (a list) works, uncached
                pass
        return launch

    def forall(self, n, stream=None, shared_mem=0):
        """A launch over n threads (1-D): the block size of best occupancy, the grid that covers n."""
        return _ForAll(self, n, stream, shared_mem)

    def specialize(self, *args):
        """The RawKernel for these arguments' types (compiled on first use)."""
        return self._kernel_for(args)[0]

    def inspect_source(self, *args):
        """The C++ generated for these arguments' types."""
        return self._kernel_for(args)[0].source

    def _kernel_for(self, args):
        key = tuple(_arg_key(a) for a in args)
        entry = self._kernels.get(key)
        if entry is None:
            with self._lock:
                entry = self._kernels.get(key)
                if entry is None:
                    entry = self._kernels[key] = self._build(args, key)
        return entry

    def _build(self, args, key):
        types = []
        for a, k in zip(args, key):
            if isinstance(k, tuple):
                dtype = np.dtype(a.dtype).name
                if dtype not in _CTYPES:
                    raise TypeError(f"{self.__name__}: arrays of {dtype} are not supported in jit kernels yet "
                                    f"(bool, integers, float32, float64)")
                types.append(_ArrayType(dtype, a.ndim, a._contiguous))
            else:
                types.append(k)
        cname = self.__name__
        cached = _translation_cache_path(self, tuple(types))
        translated = _read_translation(cached)
        if translated is None:
            program = _Program()
            tr = self._translator(tuple(types), cname, program)
            source, _ = tr.emit(cname)
            code = "".join(program.functions) + source
            translated = (_prelude(code) + code, tr.kernel_types)
            _write_translation(cached, translated)
        kernel = RawKernel(translated[0], cname, param_types=translated[1])
        return kernel, _packer(types), _signature(types)


# ---------------------------------------------------------------- the translation's disk cache
# A new process launching a kernel the cache holds skips the parse and the translation as well as the
# compile: the C++ is kept in the cache folder (jit/<checksum>.txt), keyed by everything it depends on — this
# translator (this file's bytes), the function's source lines and where they stand (the #line
# directives), the argument types, and the global values it can read: numbers (compile-time constants),
# modules, builtins, classes and functions by name, @hipkit.jit(device=True) functions by their own key.
# A function reading anything else (a closure, a list, another Python function) is translated each time.

_TRANSLATOR: list = []  # this translator file's size and mtime, read once


def _value_key(value, depth):
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return ("number", type(value).__name__, repr(value))
    if isinstance(value, _types.ModuleType):
        return ("module", value.__name__, getattr(value, "__version__", ""))
    if isinstance(value, JitFunction):
        return ("jit", _function_key(value, depth + 1))
    if isinstance(value, type) or callable(value) and not isinstance(value, _types.FunctionType):
        return ("object", getattr(value, "__module__", ""), getattr(value, "__qualname__", repr(type(value))))
    return None


def _function_key(jit_fn, depth=0):
    """The parts of jit_fn's translation key that are its own (source and globals), or None."""
    fn = jit_fn.fn
    if depth > 8 or fn.__closure__ or fn.__defaults__ or fn.__kwdefaults__:
        return None
    try:
        lines, first = jit_fn._source()
    except (OSError, TypeError):
        return None
    parts = [fn.__code__.co_filename, first, "".join(lines), jit_fn.device]
    names = set(fn.__code__.co_names)
    for const in fn.__code__.co_consts:  # nested code (a comprehension, ...): its names too
        if isinstance(const, _types.CodeType):
            return None
    g = fn.__globals__
    for name in sorted(names):
        if name in g:
            key = _value_key(g[name], depth)
            if key is None:
                return None
            parts.append((name, key))
        elif not hasattr(builtins, name):
            parts.append((name, "attribute"))  # an attribute's name (x.shape, hipkit.grid)
    return parts


def _translation_cache_path(jit_fn, types):
    """(file, key text) of this translation in the cache folder, or None. The file's name is a checksum of
    the key (the key's bytes as one integer, modulo a 61-bit prime: no module to import; hashlib would cost
    a new process ~6 ms, more than a translation); the file holds the key itself, compared when read."""
    import os
    try:
        folder = get_cache_dir()
    except Exception:
        return None
    if folder is None:
        return None
    parts = _function_key(jit_fn)
    if parts is None:
        return None
    if not _TRANSLATOR:
        stat = os.stat(__file__)  # this translator: a changed file is another translator
        _TRANSLATOR.append(f"{stat.st_size}:{stat.st_mtime_ns}")
    key = repr((_TRANSLATOR[0], parts, [t.key() if isinstance(t, _ArrayType) else t for t in types]))
    data = key.encode()
    checksum = int.from_bytes(data, "little") % ((1 << 61) - 1)
    return os.path.join(folder, "jit", f"{checksum:016x}-{len(data)}.txt"), key


_SEPARATOR = "\n\0\n"  # between the key (one line: a repr) and the entry


def _read_translation(cached):
    if cached is None:
        return None
    path, key = cached
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, ValueError):
        return None  # not there, or unreadable: translate again
    stored, _, entry = text.partition(_SEPARATOR)
    if stored != key or not entry:
        return None  # another translation under the same checksum: translated again, then replaced
    param_types, _, source = entry.partition("\n")
    return source, tuple(param_types.split())


def _write_translation(cached, translated):
    if cached is None:
        return
    import os
    path, key = cached
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(f"{key}{_SEPARATOR}{' '.join(translated[1])}\n{translated[0]}")
        os.replace(temporary, path)  # whole or not at all, for a process reading it meanwhile
    except OSError:
        pass  # a cache that cannot be written is only slower


def _signature(types):
    """The bytes native/launch.c's jit_launch checks the arguments against (see pack_jit there)."""
    sig = bytearray()
    for t in types:
        if isinstance(t, _ArrayType):
            sig += bytes([_SIG_ARRAY, _HK_DTYPE[np.dtype(t.dtype)], t.ndim | (0x80 if t.contiguous else 0)])
        elif t == "int64":
            sig.append(lib.HK_ARG_INT64)
        elif t == "float64":
            sig.append(_SIG_FLOAT64)
        elif t == "bool":
            sig.append(lib.HK_ARG_BOOL)
        else:  # a NumPy scalar argument: its specialisation is found by key, in Python
            sig.append(_SIG_NEVER)
    return bytes(sig)


def _packer(types):
    """A function turning the call's arguments into the kernel's (arrays: pointer, extents, strides)."""
    parts, names = [], []
    for i, t in enumerate(types):
        name = f"a{i}"
        names.append(name)
        if isinstance(t, _ArrayType):
            if t.ndim == 0:
                parts.append(name)
            else:
                parts.append(f"{name}, *{name}.shape")
                if not t.contiguous:
                    parts.append(f"*{name}._el_strides")
        else:
            parts.append(name)
    src = f"def pack({', '.join(names)}):\n    return ({', '.join(parts)}{',' if len(parts) == 1 else ''})\n"
    namespace = {}
    exec(src, namespace)  # noqa: S102 (generated from the argument types only)
    return namespace["pack"]


class _Launch:
    """kernel[grid, block, stream, shared_mem]: launches. The common call (the arguments of the
    specialisation launched last) is one C call, jit_launch, which checks each argument's dtype, ndim
    and contiguity against that specialisation's signature and packs it; any other call finds its
    specialisation by key here (translating and compiling it the first time)."""

    __slots__ = ("jit", "grid", "block", "stream", "shared_mem")

    def __init__(self, jit_fn, grid_, block, stream, shared_mem):
        self.jit, self.grid, self.block, self.stream, self.shared_mem = jit_fn, grid_, block, stream, shared_mem

    def __call__(self, *args):
        last = self.jit._last
        if last is not None:
            status = _jit_launch(last[0], self.grid, self.block, args, last[1], self.shared_mem, self.stream)
            if status == 0:
                return
            if status != -1:
                check(status)
        self._by_key(args)

    def _by_key(self, args):
        kernel, pack, sig = self.jit._kernel_for(args)
        kernel(self.grid, self.block, pack(*args), self.shared_mem, self.stream)
        handles = getattr(kernel, "_handles", None)  # set by RawKernel's first launch
        if _jit_launch is not None and isinstance(handles, (int, list)) and _SIG_NEVER not in sig:
            self.jit._last = (handles, sig)


class _ForAll:
    __slots__ = ("jit", "n", "stream", "shared_mem")

    def __init__(self, jit_fn, n, stream, shared_mem):
        self.jit, self.n, self.stream, self.shared_mem = jit_fn, n, stream, shared_mem

    def __call__(self, *args):
        kernel, pack, _ = self.jit._kernel_for(args)
        kernel.launch_n(self.n, pack(*args), self.shared_mem, self.stream)


def jit(fn=None, *, device=False):
    """@hipkit.jit: a kernel written in Python (see hipkit.kernel._jit for the subset); @hipkit.jit(device=True):
    a device function, callable from kernels."""
    if fn is None:
        return lambda f: JitFunction(f, device=device)
    return JitFunction(fn, device=device)


for _public in (jit, JitError, JitFunction):
    _public.__module__ = "hipkit.kernel"  # the name users reach them by
del _public
