"""The elementwise functions (ufuncs): every one of the library's op table (hk_op_get_info, hk_elementwise),
with NumPy's broadcasting, type promotion (NEP 50: Python scalars are weak) and out=, each behind its C
path (hipkit._native.ufunc); positive, clip, round and axpy made of them, and linspace, the creation
function made of two of them. Installs ndarray's arithmetic, comparison, bitwise and unary operators
and its clip and round methods."""
import builtins
import functools
import operator
import typing

import numpy as np

from .. import _dtypes
from .. import _layout
from .. import _native
from .._ffi import ffi, lib
from ..array import (_HK_DTYPE, _check_device, _copy_into, _desc, _dtype, _host_scalar, _on_data, _overlaps, _scope,
                     arange, ndarray)
from ..device import _size, _stream_handle
from ..errors import check
from ._base import (_BOOL, _FLOAT16, _FLOAT32, _FLOAT64, _INT8, _array_arg, _operand, _operator, _python_path,
                    _same_view)


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

# The float dtype NumPy's math functions use for bool and 1- and 2-byte integer inputs (wider integers: float64).
_MATH_FLOAT = {"b": _FLOAT16, "i1": _FLOAT16, "u1": _FLOAT16, "i2": _FLOAT32, "u2": _FLOAT32}

_ROUND_DTYPE: dict = {}  # (name, dtype) -> the result dtype NumPy gives (NumPy 2.x keeps integers integral)


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
    return t if t.kind in "fc" else _MATH_FLOAT.get(t.kind if t.kind == "b" else t.str[1:], _FLOAT64)


def _no_loop(name):
    return TypeError(f"ufunc '{name}' not supported for the input types, and the inputs could not be safely "
                     f"coerced to any supported types according to the casting rule ''safe''")


def _loop_dtypes(row, operands):
    """(dtype every operand is cast to, output dtype) for the op of `row`, by its table rule. A Python int
    must fit the dtype it is cast to, the loop's, as in NumPy 2 (OverflowError otherwise): int8 + 300
    raises, but int8 / 300 divides in float64 and arctan2(int8, 300) works in float16, as NumPy's do."""
    loop, result = _loop_rule(row, operands)
    if not row.dtypes >> _HK_DTYPE[loop] & 1:  # the table's dtypes: complex numbers have no order, ...
        raise _no_loop(row.name)
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
        if t.kind == "c":
            raise _no_loop(name)
        r = _round_dtype(name, t)
        return r, r
    if rule == lib.HK_RULE_REAL_PART:
        return t, _dtypes.real_dtype(t)
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
    strong = [x for x in operands if type(x) not in (bool, int, float, complex)]
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


@functools.lru_cache(maxsize=None)  # one row per op, asked for by its function and its operators
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
    loop, result = _dtype_rows(row)
    return functools.update_wrapper(_native.ufunc(row.op, row.arity, mode, loop, result, fallback),
                                    fallback)  # __name__, __doc__, __wrapped__ (inspect.signature)


def _make_ufunc(row):
    def unary(x, /, out=None, *, stream=None):
        return _ufunc_general(row, (x,), out, stream)

    def binary(x1, x2, /, out=None, *, stream=None):
        return _ufunc_general(row, (x1, x2), out, stream)

    if row.arity not in (1, 2):
        raise AssertionError(row.arity)
    ufunc = unary if row.arity == 1 else binary
    signature = "(x, out=None, *, stream=None)" if row.arity == 1 else "(x1, x2, out=None, *, stream=None)"
    ufunc.__name__ = ufunc.__qualname__ = row.name
    ufunc.__doc__ = f"{row.name}{signature}: {row.summary}, elementwise" + (
        ", with NumPy's broadcasting and type promotion." if row.arity == 2 else ".")
    ufunc.identity = _IDENTITY.get(row.identity)
    return _fast(row, 0, ufunc)


# NumPy's ufunc.identity (None for minimum and maximum, whose reduction identities are the extremes).
_IDENTITY = {lib.HK_IDENTITY_ZERO: 0, lib.HK_IDENTITY_ONE: 1, lib.HK_IDENTITY_ALL_BITS: -1}

_UFUNC_NAMES: list[str] = []  # every function made from the op table, under NumPy's and the array API's names
for _row in _OPS.values():
    if _row.arity == 3:  # where and clip take optional arguments: written out below
        continue
    globals()[_row.name] = _make_ufunc(_row)
    _UFUNC_NAMES.append(_row.name)
    if _row.array_api_name and _row.array_api_name != _row.name:
        globals()[_row.array_api_name] = globals()[_row.name]
        _UFUNC_NAMES.append(_row.array_api_name)
del _row

true_divide = globals()["divide"]  # made above
mod = globals()["remainder"]
invert = bitwise_not = globals()["bitwise_invert"]  # NumPy's other names

if typing.TYPE_CHECKING:  # the functions above are made from the op table: a type checker sees them here
    def __getattr__(name: str) -> typing.Any: ...


def positive(x, /, out=None, *, stream=None):
    """+x: a copy (bool raises, as NumPy)."""
    x = _array_arg("positive", x)
    if x.dtype == _BOOL:
        raise TypeError("The numpy boolean positive, the `+` operator, is not supported")
    if out is None:
        return x.copy(stream=stream)
    out[...] = x
    return out


def clip(x, /, min=None, max=None, out=None, *, stream=None, a_min=None, a_max=None):
    """minimum(maximum(x, min), max), the array API's signature (NumPy's a_min= and a_max= are accepted as
    keywords); either bound may be None, both None give a copy of x."""
    if a_min is not None or a_max is not None:
        if min is not None or max is not None:
            raise TypeError("clip: give min/max or NumPy's a_min/a_max, not both")
        min, max = a_min, a_max
    a, a_min, a_max = x, min, max
    if a_min is None and a_max is None:
        return positive(_array_arg("clip", a), out=out, stream=stream)
    if a_min is None:
        return _ufunc("minimum", a, a_max, out=out, stream=stream)
    if a_max is None:
        return _ufunc("maximum", a, a_min, out=out, stream=stream)
    return _ufunc_general(_OPS["clip"], (a, a_min, a_max), out, stream)


clip = _fast(_OPS["clip"], 0, clip)  # clip(a, a_min, a_max) with both bounds in C (native/elementwise.c)


def round(a, decimals=0, out=None, *, stream=None):
    """NumPy's round: halves to even; decimals != 0 scales by 10**decimals
    first, as NumPy does (integers with decimals >= 0 are returned as they are)."""
    a = _array_arg("round", a)
    if a.dtype.kind == "c":  # the parts rounded apart (NumPy's and the array API's rule)
        target = out if out is not None and out.dtype == a.dtype else ndarray._empty(a.shape, a.dtype)
        round(a.real, decimals, out=target.real, stream=stream)
        round(a.imag, decimals, out=target.imag, stream=stream)
        if out is not None and target is not out:
            _copy_into(out, target, stream)
            return out
        return target
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


def linspace(start, stop, num=50, endpoint=True, dtype=None, stream=None, *, device=None):
    """NumPy's linspace: `num` evenly spaced values from start to stop."""
    num = _size(num, "num")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    out_dtype = _dtype(np.result_type(float(start), float(stop)) if dtype is None else dtype)
    with _scope(device):
        values = arange(0, num, 1, np.float64, stream)
        result = add(multiply(values, float(step)), float(start))  # noqa: F821
        if endpoint and num > 1:
            result[-1] = float(stop)
        return result.astype(out_dtype, copy=False, stream=stream)


# ---------------------------------------------------------------- operators and methods on ndarray

def _install_operators():
    """ndarray's arithmetic, bitwise and comparison operators (@ is hipkit._ops.linalg's), bound
    straight to the functions above (no per-call lookups): the common cases in C, the rest in Python
    (_operator: other operand types give NotImplemented, so Python tries the other side, then raises
    TypeError)."""
    g = globals()
    for dunder, name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                         ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"),
                         ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                         ("lshift", "left_shift"), ("rshift", "right_shift")):
        fn = g[name]
        general = _python_path(fn)
        forward, inplace = _operator(general), _operator(general, inplace=True)
        reflected = _operator(general, reflected=True)
        row = _OPS[name]  # the common cases in C, the rest in Python
        forward, inplace, reflected = _fast(row, 1, forward), _fast(row, 2, inplace), _fast(row, 3, reflected)
        setattr(ndarray, f"__{dunder}__", forward)
        setattr(ndarray, f"__r{dunder}__", reflected)
        setattr(ndarray, f"__i{dunder}__", inplace)
    for dunder, name in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                         ("gt", "greater"), ("ge", "greater_equal")):
        general = _python_path(g[name])
        setattr(ndarray, f"__{dunder}__", _fast(_OPS[name], 1, _operator(general)))


_install_operators()


def _install_methods():
    """ndarray's methods over these functions, bound straight to them (the C callables bind self as
    their first argument), and its unary operators."""
    g = globals()
    for name in ("clip", "round"):
        setattr(ndarray, name, g[name])
    for dunder, name in (("neg", "negative"), ("pos", "positive"), ("abs", "absolute"), ("invert", "invert")):
        setattr(ndarray, f"__{dunder}__", g[name])


_install_methods()
