"""hipkit's math under NumPy's names: elementwise functions (ufuncs) with
broadcasting, type promotion and out=, reductions over axes, scans, sorting,
matrix products and take. Each maps to one op family of the C library
(hk_elementwise, hk_reduce, hk_scan, hk_sort, hk_matmul, hk_take), which does
the work on the GPU; this module works out shapes and dtypes as NumPy 2 does
(NEP 50: Python scalars are "weak") and casts operands where the kernels need
one dtype.

All functions are asynchronous (stream=None: the default stream) except
where noted (nonzero, boolean indexing and take(mode='raise') wait for the
GPU, because the size or validity of their result is data-dependent).
Full reductions return 0-d arrays (no copy to the host): float(x.sum()),
x.sum().item() or .get() fetch the value.
"""
import builtins
import functools
import operator
import types

import numpy as np
from numpy.exceptions import AxisError

from . import _dtypes
from . import _layout
from ._ffi import ffi, lib
from .array import (_HK_DTYPE, _check_device, _on_data, _copy_into, _desc, _dtype, _host_scalar, _overlaps,
                    asarray, ndarray)
from .device import _stream_handle
from .errors import InvalidArgumentError, check
from ._scatter import put  # noqa: F401 (hipkit.put: numpy.put through hk_put)
from . import _native

_BOOL = np.dtype(np.bool_)
_INT8 = np.dtype(np.int8)
_INT64 = np.dtype(np.int64)
_FLOAT16 = np.dtype(np.float16)
_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_NULL = ffi.NULL


def _owner(x):
    return x._base if x._base is not None else x


def _operand_ok(x):
    """What operators accept on the other side (else NotImplemented)."""
    return isinstance(x, ndarray) or type(x) in (bool, int, float) or (
        isinstance(x, np.generic) and x.dtype.kind in "biuf")


def _operand(name, x):
    """An ndarray, a Python scalar (weak), or a NumPy scalar (strong): as is.
    Host arrays raise: the copy to the device is the caller's to ask for."""
    if isinstance(x, ndarray) or type(x) in (bool, int, float):
        return x
    if isinstance(x, np.generic):
        if x.dtype.kind not in "biuf":
            raise TypeError(f"{name}: hipkit has no {x.dtype} dtype")
        return x
    if isinstance(x, np.ndarray):
        raise TypeError(f"{name}: an operand is a numpy.ndarray (host memory); copy it to the device "
                        f"with hipkit.asarray(x) first")
    if isinstance(x, complex):
        raise TypeError(f"{name}: hipkit has no complex dtypes")
    kind = f"{type(x).__module__}.{type(x).__qualname__}".removeprefix("builtins.")
    raise TypeError(f"{name}: unsupported operand type {kind}; use hipkit arrays or Python/NumPy scalars "
                    f"(hipkit.asarray converts host data)")


def _array_arg(name, x):
    """A hipkit array for functions that need one (reductions, sort, ...):
    Python and NumPy scalars become 0-d device arrays; host arrays raise."""
    if isinstance(x, ndarray):
        return x
    _operand(name, x)
    return asarray(np.asarray(x))


# ---------------------------------------------------------------- elementwise

def _op_table():
    """The library's op table (HK_OP_TABLE, via hk_op_get_info): NumPy name -> (hk_op, row). Every
    elementwise function below is made from it; nothing here lists the ops again."""
    table = {}
    info = ffi.new("hk_op_info *")
    for op in range(lib.HK_OP_COUNT):
        check(lib.hk_op_get_info(op, info))
        row = _OpRow(op, ffi.string(info.name).decode(), ffi.string(info.array_api_name).decode(),
                     ffi.string(info.summary).decode(), info.arity, info.dtypes, info.rule, info.identity)
        table[row.name] = row
    return table


class _OpRow:
    """One row of the op table."""
    __slots__ = ("op", "name", "array_api_name", "summary", "arity", "dtypes", "rule", "identity")

    def __init__(self, op, name, array_api_name, summary, arity, dtypes, rule, identity):
        self.op, self.name, self.array_api_name, self.summary = op, name, array_api_name, summary
        self.arity, self.dtypes, self.rule, self.identity = arity, dtypes, rule, identity


_OPS = _op_table()

# The float dtype NumPy's math functions use for bool and 1-byte integer inputs (wider integers: float64).
_MATH_FLOAT = {"b": _FLOAT16, "i1": _FLOAT16, "u1": _FLOAT16}

_ROUND_DTYPE = {}  # (name, dtype) -> the result dtype NumPy gives (NumPy 2.x keeps integers integral)


def _round_dtype(name, dtype):
    key = (name, dtype)
    result = _ROUND_DTYPE.get(key)
    if result is None:
        try:
            result = _dtypes.to_supported(getattr(np, name)(np.zeros(1, dtype)).dtype)
        except TypeError:  # NumPy has no loop (e.g. rint of bool): float16, as its math functions
            result = _FLOAT16
        _ROUND_DTYPE[key] = result
    return result


def _math_float(t):
    return t if t.kind == "f" else _MATH_FLOAT.get(t.kind if t.kind == "b" else t.str[1:], _FLOAT64)


def _no_loop(name):
    return TypeError(f"ufunc '{name}' not supported for the input types, and the inputs could not be safely "
                     f"coerced to any supported types according to the casting rule ''safe''")


def _loop_dtypes(row, operands):
    """(dtype every operand is cast to, output dtype) for the op of `row`, by its table rule. A Python int
    must fit the dtype it is cast to, the loop's, as in NumPy 2 (OverflowError otherwise): int8 + 300
    raises, but int8 / 300 divides in float64 and arctan2(int8, 300) works in float16, as NumPy's do."""
    loop, result = _loop_rule(row, operands)
    _dtypes.check_python_ints(loop, operands[1:] if row.rule == lib.HK_RULE_WHERE else operands)
    return loop, result


def _loop_rule(row, operands):
    name, rule = row.name, row.rule
    if rule == lib.HK_RULE_WHERE:
        t = _dtypes.promote(*operands[1:])
        return t, t
    t = _dtypes.promote(*operands)
    if rule == lib.HK_RULE_SAME:
        return t, t
    if rule == lib.HK_RULE_TO_BOOL:
        return t, _BOOL
    if rule == lib.HK_RULE_NO_BOOL:
        if t == _BOOL:
            if name == "subtract":
                raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                                "the `^` operator, or the logical_xor function instead.")
            if name == "negative":
                raise TypeError("The numpy boolean negative, the `-` operator, is not supported, use the `~` "
                                "operator or the logical_not function instead.")
            raise TypeError(f"ufunc '{name}' did not contain a loop with signature matching types bool")
        return t, t
    if rule == lib.HK_RULE_BOOL_AS_INT8:
        t = _INT8 if t == _BOOL else t
        return t, t
    if rule == lib.HK_RULE_TRUE_DIVIDE:
        t = _dtypes.true_divide_type(t)
        return t, t
    if rule == lib.HK_RULE_INTEGER:
        if t.kind not in "biu":
            raise _no_loop(name)
        return t, t
    if rule == lib.HK_RULE_INT_BOOL_AS_INT8:
        if t.kind not in "biu":
            raise _no_loop(name)
        t = _INT8 if t == _BOOL else t
        return t, t
    if rule == lib.HK_RULE_FLOAT:
        t = _math_float(t)
        return t, t
    if rule == lib.HK_RULE_FLOAT_TO_BOOL:
        return _math_float(t), _BOOL
    if rule == lib.HK_RULE_ROUND:
        r = _round_dtype(name, t)
        return r, r
    raise AssertionError(rule)


# The comparisons, as the Python operators that decide them exactly when a Python int is out of range.
_COMPARE = {"equal": operator.eq, "not_equal": operator.ne, "less": operator.lt, "less_equal": operator.le,
            "greater": operator.gt, "greater_equal": operator.ge}


def _exact_comparison(row, operands):
    """The answer, True or False for every element, of a comparison that NumPy 2 makes exactly although a
    Python int is out of the range of the other operand's integer dtype: int8 == 128 and uint8 == -1 are
    False, int8 < 300 is True. Every element of that dtype compares with such an int as any other value
    of the dtype would, so 0 (in every integer dtype's range) stands for the array. None when the op is not
    a comparison or no operand is an integer array or NumPy integer: a bool array against an int outside
    int64 (bool < 2**63) raises OverflowError, as NumPy's does."""
    compare = _COMPARE.get(row.name)
    if compare is None:
        return None
    strong = [x for x in operands if type(x) not in (bool, int, float)]
    if not strong or not builtins.all(x.dtype.kind in "iu" for x in strong):
        return None
    loop = _dtypes.promote(*operands)
    if loop.kind not in "iu":
        return None
    info = np.iinfo(loop)
    values = [x if type(x) in (bool, int) else 0 for x in operands]
    if builtins.all(info.min <= v <= info.max for v in values):
        return None  # the OverflowError was not about the range of the integers
    return compare(*values)


def _same_view(a, b):
    """True when b, broadcast to a's shape, is exactly the view a (in-place ops)."""
    if a._data != b._data or a._hk_dtype != b._hk_dtype:
        return False
    try:
        strides = _layout.broadcast_strides(b.shape, b._el_strides, a.shape)
    except ValueError:
        return False
    return builtins.all(s == t or n == 1 for s, t, n in zip(strides, a._el_strides, a.shape)) and b.shape == a.shape


def _ufunc(name, *args, out=None, stream=None):
    return _ufunc_general(_OPS[name], args, out, stream)


@_on_data
def _ufunc_general(row, args, out, stream):
    name = row.name
    handle = _stream_handle(stream)
    operands = [_operand(name, x) for x in args]
    try:
        loop, result_dtype = _loop_dtypes(row, operands)
        exact = None
    except OverflowError:
        exact = _exact_comparison(row, operands)  # int8 < 300: True everywhere, as in NumPy 2
        if exact is None:
            raise
        loop = result_dtype = _BOOL
    arrays = [x for x in operands if isinstance(x, ndarray)]
    shape = _layout.broadcast_shapes(*(x.shape for x in arrays)) if arrays else ()
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError(f"{name}: out must be a hipkit.ndarray, got {type(out).__name__}")
        try:
            full = _layout.broadcast_shapes(shape, out.shape)
        except ValueError:
            full = None
        if full != out.shape:
            raise ValueError(f"{name}: non-broadcastable output operand with shape {out.shape} doesn't match "
                             f"the broadcast shape {shape}")
        shape = out.shape
        if out.dtype != result_dtype and not np.can_cast(result_dtype, out.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc '{name}' output from {result_dtype!r} to {out.dtype!r} with "
                            f"casting rule 'same_kind'")
    _check_device(name, *arrays, *([out] if out is not None else []))
    if exact is not None:  # no kernel to run: the answer is the same for every element
        target = out if out is not None else ndarray._empty(shape, _BOOL)
        if target.size:
            target.fill(exact, stream=stream)
        return target
    # Operands in the loop dtype (where's condition in bool).
    cast = []
    for i, x in enumerate(operands):
        want = _BOOL if (row.rule == lib.HK_RULE_WHERE and i == 0) else loop
        if isinstance(x, ndarray):
            cast.append(x if x.dtype == want else x.astype(want, stream=stream))
        else:
            cast.append((x, want))
    # The array written: out itself, unless it needs a cast or overlaps an input in a way
    # the kernels cannot take (anything but the very same view).
    target = out
    if out is None or out.dtype != result_dtype or builtins.any(
            isinstance(x, ndarray) and _overlaps(out, x) and not _same_view(out, x) for x in cast):
        target = ndarray._empty(shape, result_dtype)
    if target.size:
        n = len(cast)
        ins = ffi.new("hk_array[]", n)
        keep = []
        for i, x in enumerate(cast):
            if isinstance(x, ndarray):
                _desc(x, ins + i)
            else:
                value, want = x
                buffer = _host_scalar(value, _HK_DTYPE[want])
                keep.append(buffer)
                ins[i].data = buffer
                ins[i].dtype = _HK_DTYPE[want]
                ins[i].ndim = lib.HK_HOST_SCALAR
        check(lib.hk_elementwise(row.op, ins, n, _desc(target), handle))
    if out is not None and target is not out:
        _copy_into(out, target, stream)
        return out
    return target


def _dtype_rows(row):
    """The op's loop and result dtypes for each promoted dtype T (hk_dtype codes, -1 where NumPy refuses):
    _loop_dtypes's rule as the two tables the C path reads."""
    loop, result = [], []
    for t in _dtypes.SUPPORTED:
        try:
            computed, produced = _loop_dtypes(row, [t] * (2 if row.rule == lib.HK_RULE_WHERE else 1))
            loop.append(_HK_DTYPE[computed])
            result.append(_HK_DTYPE[produced])
        except TypeError:
            loop.append(255)
            result.append(255)
    return bytes(loop), bytes(result)


def _fast(row, mode, fallback):
    """fallback behind the op's C path (hipkit._native.ufunc, mode 0: function, 1: operator, 2: in place,
    3: reflected operator; bindings/python/native/elementwise.c), which does the common calls completely
    (arrays of any layout, Python scalars, broadcasting, promotion, a new output or a fitting out=) and hands
    everything else to fallback."""
    if row.arity > 2 and row.rule != lib.HK_RULE_WHERE:
        return fallback
    loop, result = _dtype_rows(row)
    return functools.update_wrapper(_native.ufunc(row.op, row.arity, mode, loop, result, fallback),
                                    fallback)  # __name__, __doc__, __wrapped__ (inspect.signature)


def _make_ufunc(row):
    if row.arity == 1:
        def ufunc(x, /, out=None, *, stream=None):
            return _ufunc_general(row, (x,), out, stream)
        signature = "(x, out=None, *, stream=None)"
    elif row.arity == 2:
        def ufunc(x1, x2, /, out=None, *, stream=None):
            return _ufunc_general(row, (x1, x2), out, stream)
        signature = "(x1, x2, out=None, *, stream=None)"
    else:
        raise AssertionError(row.arity)
    ufunc.__name__ = ufunc.__qualname__ = row.name
    ufunc.__doc__ = f"{row.name}{signature}: {row.summary}, elementwise" + (
        ", with NumPy's broadcasting and type promotion." if row.arity == 2 else ".")
    ufunc.identity = _IDENTITY.get(row.identity)
    return _fast(row, 0, ufunc)


# NumPy's ufunc.identity (None for minimum and maximum, whose reduction identities are the extremes).
_IDENTITY = {lib.HK_IDENTITY_ZERO: 0, lib.HK_IDENTITY_ONE: 1, lib.HK_IDENTITY_ALL_BITS: -1}

_UFUNC_NAMES = []  # every function made from the op table, under NumPy's and the array API's names
for _row in _OPS.values():
    if _row.arity == 3:  # where and clip take optional arguments: written out below
        continue
    globals()[_row.name] = _make_ufunc(_row)
    _UFUNC_NAMES.append(_row.name)
    if _row.array_api_name and _row.array_api_name != _row.name:
        globals()[_row.array_api_name] = globals()[_row.name]
        _UFUNC_NAMES.append(_row.array_api_name)
del _row

true_divide = divide  # noqa: F821 (made above)
mod = remainder  # noqa: F821
invert = bitwise_not = bitwise_invert  # noqa: F821 (NumPy's other names)


def positive(x, /, out=None, *, stream=None):
    """+x: a copy (bool raises, as NumPy)."""
    x = _array_arg("positive", x)
    if x.dtype == _BOOL:
        raise TypeError("The numpy boolean positive, the `+` operator, is not supported")
    if out is None:
        return x.copy(stream=stream)
    out[...] = x
    return out


def where(condition, x=None, y=None, /, *, out=None, stream=None):
    """x where condition is true, y elsewhere (broadcast); with only a
    condition, NumPy's nonzero(condition) (waits for the GPU)."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return _ufunc_general(_OPS["where"], (condition, x, y), out, stream)


where = _fast(_OPS["where"], 0, where)  # where(condition, x, y) in C (native/elementwise.c)


def clip(a, a_min=None, a_max=None, out=None, *, stream=None, min=None, max=None):
    """NumPy's clip: minimum(maximum(a, a_min), a_max); either bound may be None."""
    a_min = min if a_min is None else a_min
    a_max = max if a_max is None else a_max
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    if a_min is None:
        return _ufunc("minimum", a, a_max, out=out, stream=stream)
    if a_max is None:
        return _ufunc("maximum", a, a_min, out=out, stream=stream)
    return _ufunc_general(_OPS["clip"], (a, a_min, a_max), out, stream)


def round(a, decimals=0, out=None, *, stream=None):
    """NumPy's round: halves to even; decimals != 0 scales by 10**decimals
    first, as NumPy does (integers with decimals >= 0 are returned as they are)."""
    a = _array_arg("round", a)
    if a.dtype.kind in "biu":
        if decimals >= 0:
            return a.copy(stream=stream) if out is None else positive(a, out=out, stream=stream)
        scale = 10 ** (-decimals)
        return multiply(floor_divide(add(a, scale // 2), scale), scale, out=out, stream=stream)  # noqa: F821
    if decimals == 0:
        return rint(a, out=out, stream=stream)  # noqa: F821
    scale = 10.0 ** decimals
    return divide(rint(multiply(a, scale)), scale, out=out, stream=stream)  # noqa: F821


around = round


# ---------------------------------------------------------------- reductions

def _axes(axis, ndim):
    """(tuple of reduced axes, bit mask) for NumPy's axis argument."""
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = _layout.normalize_axis(axis if isinstance(axis, (tuple, list)) else (axis,), ndim)
    mask = 0
    for a in axes:
        mask |= 1 << a
    return axes, mask


_REDUCE_OPS = {
    "sum": lib.HK_REDUCE_SUM, "prod": lib.HK_REDUCE_PROD, "min": lib.HK_REDUCE_MIN, "max": lib.HK_REDUCE_MAX,
    "argmin": lib.HK_REDUCE_ARGMIN, "argmax": lib.HK_REDUCE_ARGMAX, "any": lib.HK_REDUCE_ANY,
    "all": lib.HK_REDUCE_ALL, "mean": lib.HK_REDUCE_MEAN, "var": lib.HK_REDUCE_VAR, "std": lib.HK_REDUCE_STD,
}
_NUMPY_NAME = {"min": "minimum", "max": "maximum", "argmin": "argmin", "argmax": "argmax"}


def _reduce_dtype(name, dtype):
    if name in ("sum", "prod"):
        return _dtypes.sum_accumulator_type(dtype)
    if name in ("min", "max"):
        return dtype
    if name in ("argmin", "argmax"):
        return _INT64
    if name in ("any", "all"):
        return _BOOL
    return dtype if dtype.kind == "f" else _FLOAT64  # mean, var, std


def _zero_d_axis(name, axis):
    """The axes a 0-d array reduces over for an int `axis`, as NumPy 2 takes it: its ufunc reductions (sum,
    prod, min, max, any, all) accept axis 0 and -1 and reduce over no axis (the element itself; a tuple
    such as (0,) is out of bounds), argmin and argmax see a 1-d array of one element (0 and -1 give index
    0; an AxisError names dimension 1, as NumPy's does), and mean, var and std take none (AxisError). The
    errors are numpy.exceptions.AxisError (a ValueError and an IndexError), as _layout raises for every
    axis out of bounds."""
    if name in ("argmin", "argmax"):
        _layout.normalize_axis(axis, 1)
        return ()
    if name in ("mean", "var", "std"):
        return axis  # _axes raises AxisError(axis, 0), as NumPy's
    return () if operator.index(axis) in (0, -1) else axis


@_on_data
def _reduce(name, x, axis=None, dtype=None, out=None, keepdims=False, ddof=0, stream=None):
    x = _array_arg(name, x)
    if dtype is not None:
        dt = _dtype(dtype)
        if dt != x.dtype:
            x = x.astype(dt, stream=stream)
    if name in ("argmin", "argmax") and isinstance(axis, (tuple, list)):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    if x.ndim == 0 and axis is not None and not isinstance(axis, (tuple, list)):
        axis = _zero_d_axis(name, axis)
    axes, mask = _axes(axis, x.ndim)
    if keepdims:
        shape = tuple(1 if k in axes else n for k, n in enumerate(x.shape))
    else:
        shape = tuple(n for k, n in enumerate(x.shape) if k not in axes)
    if name in ("min", "max", "argmin", "argmax") and builtins.any(x.shape[k] == 0 for k in axes) or (
            name in ("min", "max", "argmin", "argmax") and x.size == 0):
        what = "an empty sequence" if name.startswith("arg") else \
            f"zero-size array to reduction operation {_NUMPY_NAME[name]} which has no identity"
        raise ValueError(f"attempt to get {name} of {what}" if name.startswith("arg") else what)
    result_dtype = _reduce_dtype(name, x.dtype)
    if out is not None:
        if not isinstance(out, ndarray) or out.shape != shape:
            raise ValueError(f"{name}: out must be a hipkit.ndarray of shape {shape}")
        _check_device(name, x, out)
    else:
        _check_device(name, x)
    target = out if out is not None and out.dtype == result_dtype and not _overlaps(out, x) else \
        ndarray._empty(shape, result_dtype)
    check(lib.hk_reduce(_REDUCE_OPS[name], _desc(x), mask, _desc(target), ddof, _stream_handle(stream)))
    if out is not None and target is not out:
        _copy_into(out, target, stream)
        return out
    return target


def sum(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    """Sum over `axis` (None: all; int or tuple); int arrays accumulate in int64/uint64, as NumPy."""
    return _reduce("sum", a, axis, dtype, out, keepdims, stream=stream)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    return _reduce("prod", a, axis, dtype, out, keepdims, stream=stream)


def min(a, axis=None, out=None, keepdims=False, *, stream=None):
    """The smallest element (NaN if any is NaN); empty raises ValueError."""
    return _reduce("min", a, axis, None, out, keepdims, stream=stream)


def max(a, axis=None, out=None, keepdims=False, *, stream=None):
    return _reduce("max", a, axis, None, out, keepdims, stream=stream)


amin, amax = min, max


def argmin(a, axis=None, out=None, *, keepdims=False, stream=None):
    """Index of the smallest element (the first one; the first NaN if any); axis None: into the flattened array."""
    return _reduce("argmin", a, axis, None, out, keepdims, stream=stream)


def argmax(a, axis=None, out=None, *, keepdims=False, stream=None):
    return _reduce("argmax", a, axis, None, out, keepdims, stream=stream)


def any(a, axis=None, out=None, keepdims=False, *, stream=None):
    return _reduce("any", a, axis, None, out, keepdims, stream=stream)


def all(a, axis=None, out=None, keepdims=False, *, stream=None):
    return _reduce("all", a, axis, None, out, keepdims, stream=stream)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, stream=None):
    """Mean (integers in float64, as NumPy; an empty mean is NaN)."""
    return _reduce("mean", a, axis, dtype, out, keepdims, stream=stream)


def _fast_reduction(fn, signature):
    """fn behind its C path (hipkit._native.reduction, bindings/python/native/reduce.c), which does the
    common calls completely (an array of any layout, axis None / int / tuple, keepdims, a new output) and
    hands everything else to fn. signature: 0 (a, axis, dtype, out, keepdims), 1 (a, axis, out, keepdims),
    2 (argmin/argmax: one axis)."""
    name = fn.__name__
    result = bytes(_HK_DTYPE[_reduce_dtype(name, d)] for d in _dtypes.SUPPORTED)
    return functools.update_wrapper(_native.reduction(_REDUCE_OPS[name], signature, result, fn), fn)


sum, prod, mean = (_fast_reduction(f, 0) for f in (sum, prod, mean))
min, max, any, all = (_fast_reduction(f, 1) for f in (min, max, any, all))
argmin, argmax = (_fast_reduction(f, 2) for f in (argmin, argmax))
amin, amax = min, max


def _ddof(ddof, correction):
    """NumPy's ddof or the array API's correction (the same number; give one)."""
    if correction == 0:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction have the same meaning; give only one")
    if correction != int(correction):
        raise NotImplementedError("hipkit's var and std take a whole-number correction")
    return int(correction)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=0.0, stream=None):
    """Variance; ddof (NumPy) or correction (the array API's name) is subtracted from the count."""
    return _reduce("var", a, axis, dtype, out, keepdims, _ddof(ddof, correction), stream=stream)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=0.0, stream=None):
    return _reduce("std", a, axis, dtype, out, keepdims, _ddof(ddof, correction), stream=stream)


def count_nonzero(a, axis=None, *, keepdims=False, stream=None):
    a = _array_arg("count_nonzero", a)
    return sum(not_equal(a, 0, stream=stream), axis=axis, keepdims=keepdims, stream=stream)  # noqa: F821


# ---------------------------------------------------------------- scans

@_on_data
def _scan(name, op, a, axis, dtype, out, stream):
    a = _array_arg(name, a)
    if dtype is not None and _dtype(dtype) != a.dtype:
        a = a.astype(dtype, stream=stream)
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = _layout.normalize_axis(axis, builtins.max(a.ndim, 1))
        if a.ndim == 0:
            a = a.reshape(1)
    result_dtype = _dtypes.sum_accumulator_type(a.dtype)
    if out is not None:
        if not isinstance(out, ndarray) or out.shape != a.shape:
            raise ValueError(f"{name}: out must be a hipkit.ndarray of shape {a.shape}")
        _check_device(name, a, out)
    else:
        _check_device(name, a)
    target = out if out is not None and out.dtype == result_dtype and (
        not _overlaps(out, a) or _same_view(out, a)) else ndarray._empty(a.shape, result_dtype)
    check(lib.hk_scan(op, _desc(a), axis, _desc(target), _stream_handle(stream)))
    if out is not None and target is not out:
        _copy_into(out, target, stream)
        return out
    return target


def cumsum(a, axis=None, dtype=None, out=None, *, stream=None):
    """Inclusive running sum along `axis` (None: over the flattened array)."""
    return _scan("cumsum", lib.HK_SCAN_CUMSUM, a, axis, dtype, out, stream)


def cumprod(a, axis=None, dtype=None, out=None, *, stream=None):
    return _scan("cumprod", lib.HK_SCAN_CUMPROD, a, axis, dtype, out, stream)


_SCAN_RESULT = bytes(_HK_DTYPE[_dtypes.sum_accumulator_type(d)] for d in _dtypes.SUPPORTED)
cumsum = functools.update_wrapper(_native.scan(lib.HK_SCAN_CUMSUM, _SCAN_RESULT, cumsum), cumsum)  # native/scan.c
cumprod = functools.update_wrapper(_native.scan(lib.HK_SCAN_CUMPROD, _SCAN_RESULT, cumprod), cumprod)


# ---------------------------------------------------------------- sorting

def _sort_into(a, axis, keys, indices, stream):
    if a.ndim == 0:
        raise AxisError(axis, 0) if axis is not None else AssertionError
    axis = _layout.normalize_axis(axis, a.ndim)
    last = a.ndim - 1
    _check_device("sort", a, *[x for x in (keys, indices) if x is not None])
    check(lib.hk_sort(_desc(a.swapaxes(axis, last)),
                      _desc(keys.swapaxes(axis, last)) if keys is not None else _NULL,
                      _desc(indices.swapaxes(axis, last)) if indices is not None else _NULL,
                      _stream_handle(stream)))


def _flip(a, axis):
    return a[(slice(None),) * axis + (slice(None, None, -1),)]


@_on_data
def sort(a, axis=-1, *, descending=False, stable=True, stream=None):
    """A sorted copy (always stable; NaN last, or first when descending); axis None sorts the
    flattened array."""
    a = _array_arg("sort", a)
    if axis is None:
        a, axis = a.ravel(), 0
    out = ndarray._empty(a.shape, a.dtype)
    _sort_into(a, axis, out, None, stream)
    if descending:
        return _flip(out, _layout.normalize_axis(axis, a.ndim)).copy(stream=stream)
    return out


@_on_data
def argsort(a, axis=-1, *, descending=False, stable=True, stream=None):
    """The int64 indices that sort `a` along `axis` (always stable; NaN last, or first when
    descending: equal elements keep their order either way, as the array API asks)."""
    a = _array_arg("argsort", a)
    if axis is None:
        a, axis = a.ravel(), 0
    out = ndarray._empty(a.shape, _INT64)
    if not descending:
        _sort_into(a, axis, None, out, stream)
        return out
    # Stable descending: sort the reversed array ascending, reverse, and map back the positions.
    axis = _layout.normalize_axis(axis, a.ndim)
    _sort_into(_flip(a, axis), axis, None, out, stream)
    return subtract(a.shape[axis] - 1, _flip(out, axis), stream=stream)  # noqa: F821


# ---------------------------------------------------------------- matrix products

def _matmul_compute_dtype(dtype):
    return _FLOAT32 if dtype in (_FLOAT16, _FLOAT32) else _FLOAT64


_ENGINES = {"auto": lib.HK_MATMUL_AUTO, "own": lib.HK_MATMUL_OWN, "vendor": lib.HK_MATMUL_VENDOR}


@_on_data
def matmul(x1, x2, /, out=None, *, engine="auto", stream=None):
    """NumPy's matmul (the @ operator): batched over leading dimensions with
    broadcasting. float32 and float64 on the GPU (float32 in full float32
    precision, no TF32); float16 computes in float32; integer and bool
    inputs compute in float64 and are converted back (exact while every sum
    stays below 2**53). engine: "auto" (the vendor BLAS when present), "own"
    (hipkit's kernel) or "vendor"."""
    for i, x in enumerate((x1, x2)):
        if not isinstance(x, ndarray) or x.ndim == 0:
            if isinstance(x, ndarray) or type(x) in (bool, int, float) or isinstance(x, np.generic):
                raise ValueError(f"matmul: Input operand {i} does not have enough dimensions (has 0, gufunc "
                                 f"core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
            _operand("matmul", x)
    if engine not in _ENGINES:
        raise ValueError(f"matmul: engine must be one of {sorted(_ENGINES)}, got {engine!r}")
    result_dtype = _dtypes.result_type(x1, x2)
    compute = _matmul_compute_dtype(result_dtype)
    a = x1 if x1.ndim > 1 else x1.reshape(1, x1.shape[0])
    b = x2 if x2.ndim > 1 else x2.reshape(x2.shape[0], 1)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                         f"signature (n?,k),(k,m?)->(n?,m?) (size {x2.shape[0 if x2.ndim == 1 else -2]} is "
                         f"different from {x1.shape[-1]})")
    batch = _layout.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    full = batch + (a.shape[-2], b.shape[-1])
    shape = batch + ((a.shape[-2],) if x1.ndim > 1 else ()) + ((b.shape[-1],) if x2.ndim > 1 else ())
    if out is not None and (not isinstance(out, ndarray) or out.shape != shape):
        raise ValueError(f"matmul: out must be a hipkit.ndarray of shape {shape}")
    _check_device("matmul", a, b, *([out] if out is not None else []))
    a = a if a.dtype == compute else a.astype(compute, stream=stream)
    b = b if b.dtype == compute else b.astype(compute, stream=stream)
    direct = out is not None and out.dtype == compute and not _overlaps(out, a) and not _overlaps(out, b)
    target = out.reshape(full) if direct and out._contiguous else ndarray._empty(full, compute)
    check(lib.hk_matmul(_desc(a), _desc(b), _desc(target), _ENGINES[engine], _stream_handle(stream)))
    result = target.reshape(shape)
    if out is not None:
        if result._data != out._data:
            _copy_into(out, result, stream)
        return out
    return result if result.dtype == result_dtype else result.astype(result_dtype, stream=stream)


matmul = functools.update_wrapper(_native.matmul(0, matmul), matmul)  # the common calls in C (native/matmul.c)


def dot(a, b, out=None, *, stream=None):
    """NumPy's dot for scalars, vectors and matrices (ndim <= 2)."""
    if not isinstance(a, ndarray) or not isinstance(b, ndarray) or a.ndim == 0 or b.ndim == 0:
        return multiply(a, b, out=out, stream=stream)  # noqa: F821
    if a.ndim > 2 or b.ndim > 2:
        raise NotImplementedError("hipkit.dot takes arrays of up to 2 dimensions; use hipkit.matmul for "
                                  "stacks of matrices (its broadcasting differs from NumPy's dot)")
    return matmul(a, b, out=out, stream=stream)


def vdot(a, b, *, stream=None):
    a, b = _array_arg("vdot", a), _array_arg("vdot", b)
    if a.size != b.size:
        raise ValueError("cannot reshape arrays of different sizes in vdot")
    return dot(a.ravel(), b.ravel(), stream=stream)


def inner(a, b, *, stream=None):
    if isinstance(a, ndarray) and isinstance(b, ndarray) and a.ndim == 1 and b.ndim == 1:
        return dot(a, b, stream=stream)
    raise NotImplementedError("hipkit.inner takes two 1-d arrays")


# ---------------------------------------------------------------- take and indexing

_TAKE_MODES = {"raise": lib.HK_TAKE_RAISE, "wrap": lib.HK_TAKE_WRAP, "clip": lib.HK_TAKE_CLIP}


def _indices(name, indices):
    if isinstance(indices, ndarray):
        if indices.dtype.kind not in "iu":
            raise IndexError(f"{name}: arrays used as indices must be of integer (or boolean) type")
        return indices if indices.dtype == _INT64 else indices.astype(_INT64)
    host = np.asarray(indices)
    if host.dtype.kind not in "iu" and host.size:
        raise IndexError(f"{name}: arrays used as indices must be of integer (or boolean) type")
    return asarray(host.astype(np.int64))


@_on_data
def take(a, indices, axis=None, out=None, mode="raise", *, stream=None):
    """numpy.take: elements of `a` at `indices` along `axis` (None: the
    flattened array). mode 'raise' (the default) waits for the GPU to learn
    whether an index was out of range (IndexError); 'wrap' and 'clip' do not."""
    a = _array_arg("take", a)
    if mode not in _TAKE_MODES:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    idx = _indices("take", indices)
    if axis is None:
        a, axis = a.ravel(), 0
    axis = _layout.normalize_axis(axis, builtins.max(a.ndim, 1)) if a.ndim else _layout.normalize_axis(axis, 1)
    if a.ndim == 0:
        a = a.reshape(1)
    shape = a.shape[:axis] + idx.shape + a.shape[axis + 1:]
    _layout._check_ndim(len(shape))
    if out is not None and (not isinstance(out, ndarray) or out.shape != shape or out.dtype != a.dtype):
        raise ValueError(f"take: out must be a hipkit.ndarray of shape {shape} and dtype {a.dtype}")
    _check_device("take", a, idx, *([out] if out is not None else []))
    target = out if out is not None and not _overlaps(out, a) and not _overlaps(out, idx) else \
        ndarray._empty(shape, a.dtype)
    try:
        check(lib.hk_take(_desc(a), _desc(idx), axis, _desc(target), _TAKE_MODES[mode], _stream_handle(stream)))
    except InvalidArgumentError as error:
        if "out of" in str(error) or "bounds" in str(error):
            raise IndexError(str(error)) from None
        raise
    if out is not None and target is not out:
        _copy_into(out, target, stream)
        return out
    return target


@_on_data
def nonzero(a):
    """The indices of the non-zero elements, one int64 array per dimension.
    Waits for the GPU: the result's size depends on the data."""
    a = _array_arg("nonzero", a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
                         "instead.")
    flags = a if a.dtype == _BOOL else not_equal(a, 0)  # noqa: F821
    return tuple(asarray(ix.astype(np.int64)) for ix in np.nonzero(flags.get()))


def flatnonzero(a):
    return nonzero(_array_arg("flatnonzero", a).ravel())[0]


def _split_key(key):
    """(basic part with the advanced index replaced by ':', axis of the advanced index, the index) for a key
    with exactly one advanced (array or list) index; None otherwise."""
    items = key if isinstance(key, tuple) else (key,)
    advanced = [i for i, item in enumerate(items) if isinstance(item, (ndarray, np.ndarray, list))
                or type(item) is bool or isinstance(item, np.bool_)]
    if len(advanced) != 1:
        return None
    pos = advanced[0]
    if builtins.any(item is Ellipsis or item is None for item in items[:pos]):
        return None
    basic = items[:pos] + (slice(None),) + items[pos + 1:]
    return basic, pos, items[pos]


@_on_data
def _advanced_get(x, key):
    """x[key] for one integer or boolean array index (the rest basic): a gather (take)."""
    if isinstance(key, (ndarray, np.ndarray)) and np.dtype(key.dtype) == _BOOL and key.shape == x.shape \
            and x.ndim != 1:
        return take(x.ravel(), flatnonzero(key))
    split = _split_key(key)
    if split is None:
        raise NotImplementedError("hipkit indexing takes at most one integer or boolean array index (combined "
                                  "with slices and integers after it); index step by step instead")
    basic, axis, index = split
    view = x[basic]
    if isinstance(index, (ndarray, np.ndarray)) and np.dtype(index.dtype) == _BOOL or \
            isinstance(index, list) and index and builtins.all(type(i) is bool for i in index):
        mask = index if isinstance(index, ndarray) else asarray(np.asarray(index, dtype=bool))
        if mask.ndim != 1 or mask.shape[0] != view.shape[axis]:
            raise IndexError(f"boolean index did not match indexed array along axis {axis}; size of axis is "
                             f"{view.shape[axis]} but size of corresponding boolean axis is {mask.shape[-1]}")
        index = flatnonzero(mask)
    # Integers before the advanced index removed axes: count them.
    items = basic if isinstance(basic, tuple) else (basic,)
    removed = builtins.sum(1 for item in items[:axis] if not isinstance(item, slice))
    return take(view, index, axis=axis - removed)


@_on_data
def _advanced_set(x, key, value):
    """x[key] = value with integer or boolean array indices: a scatter (hk_put), see hipkit._scatter."""
    from . import _scatter
    _scatter.advanced_set(x, key, value)


def axpy(a, x, y, *, stream=None):
    """y = a*x + y, in place on y (x broadcasts to y's shape; the dtypes promote as NumPy's, and the result is
    cast back to y's dtype with same-kind casting); returns y. Two kernels: multiply, then add."""
    for v in (x, y):
        if not isinstance(v, ndarray):
            _operand("axpy", v)
            raise TypeError("axpy: x and y must be hipkit arrays")
    try:
        full = _layout.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        full = None
    if full != y.shape:
        raise ValueError(f"axpy: x and y need one shape (or x broadcasting to y's), got {x.shape} and {y.shape}")
    return add(multiply(a, x, stream=stream), y, out=y, stream=stream)  # noqa: F821 (made from the op table)


# ---------------------------------------------------------------- operators on ndarray

def _python_path(fn):
    """The Python function behind a C fast path (its __wrapped__); a Python function itself (whose
    __wrapped__, from functools.wraps, would skip its decorator, e.g. _on_data)."""
    return fn if isinstance(fn, types.FunctionType) else getattr(fn, "__wrapped__", fn)


def _install_operators():
    """ndarray's arithmetic and comparison operators, bound straight to the
    functions above (no per-call lookups); other operand types give
    NotImplemented, so Python tries the other side, then raises TypeError."""
    scalar_types = (bool, int, float)

    def make(fn, reflected=False, inplace=False):
        if inplace:
            def method(self, other):
                if other.__class__ is ndarray or type(other) in scalar_types or _operand_ok(other):
                    return fn(self, other, out=self)
                return NotImplemented
        elif reflected:
            def method(self, other):
                if type(other) in scalar_types or _operand_ok(other):
                    return fn(other, self)
                return NotImplemented
        else:
            def method(self, other):
                if other.__class__ is ndarray or type(other) in scalar_types or _operand_ok(other):
                    return fn(self, other)
                return NotImplemented
        return method

    g = globals()
    for dunder, name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                         ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"),
                         ("matmul", "matmul"), ("and", "bitwise_and"), ("or", "bitwise_or"),
                         ("xor", "bitwise_xor"), ("lshift", "left_shift"), ("rshift", "right_shift")):
        fn = g[name]
        general = _python_path(fn)
        forward, inplace = make(general), make(general, inplace=True)
        reflected = make(general, reflected=True)
        row = _OPS.get(name)
        if row is not None:  # the common cases in C, the rest in Python
            forward, inplace, reflected = _fast(row, 1, forward), _fast(row, 2, inplace), _fast(row, 3, reflected)
        elif name == "matmul":
            forward = functools.update_wrapper(_native.matmul(1, forward), forward)
        setattr(ndarray, f"__{dunder}__", forward)
        setattr(ndarray, f"__r{dunder}__", reflected)
        setattr(ndarray, f"__i{dunder}__", inplace)
    for dunder, name in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                         ("gt", "greater"), ("ge", "greater_equal")):
        general = _python_path(g[name])
        setattr(ndarray, f"__{dunder}__", _fast(_OPS[name], 1, make(general)))


_install_operators()


def _install_methods():
    """ndarray's methods over these functions, bound straight to them (the C callables bind self as
    their first argument), and its unary operators."""
    g = globals()
    for name in ("sum", "prod", "min", "max", "argmin", "argmax", "mean", "var", "std", "any", "all",
                 "cumsum", "cumprod", "argsort", "clip", "dot", "take", "put", "nonzero", "round"):
        setattr(ndarray, name, g[name])
    for dunder, name in (("neg", "negative"), ("pos", "positive"), ("abs", "absolute"), ("invert", "invert")):
        setattr(ndarray, f"__{dunder}__", g[name])


_install_methods()
