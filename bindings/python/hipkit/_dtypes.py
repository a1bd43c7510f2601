"""Dtypes and type promotion for hipkit.ndarray: the logic layer, not yet wired in.

hipkit's kernels support fourteen dtypes (hk_dtype in hipkit.h, in this order
of their codes): bool, int8, uint8, int32, uint32, int64, uint64, float16,
float32, float64, int16, uint16, complex64, complex128. This module
names them as NumPy dtypes and computes result dtypes by NumPy 2's rules
(NEP 50), so `x + y` on hipkit arrays gives the dtype NumPy would. Pure
Python over NumPy; no cffi, no GPU.
"""

import numpy as np

__all__ = ["SUPPORTED", "is_supported", "to_supported", "result_type", "promote",
           "check_python_ints", "real_dtype", "true_divide_type", "sum_accumulator_type"]

SUPPORTED = tuple(np.dtype(name) for name in (
    "bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
    "int16", "uint16", "complex64", "complex128"))
_PY_SCALARS = (bool, int, float, complex)
_SUPPORTED_SET = frozenset(SUPPORTED)


def is_supported(dtype):
    """True when `dtype` (anything np.dtype accepts) is one of hipkit's fourteen."""
    try:
        return np.dtype(dtype) in _SUPPORTED_SET
    except TypeError:
        return False


def to_supported(dtype):
    """`dtype` itself when hipkit supports it; otherwise the smallest supported
    dtype that holds every value of it exactly, by np.can_cast(dtype, d,
    "safe") (ties go to the same kind). TypeError when there is none
    (longdouble, clongdouble, strings, objects)."""
    dtype = np.dtype(dtype)
    if dtype in _SUPPORTED_SET:
        return dtype
    fits = [d for d in SUPPORTED if np.can_cast(dtype, d, "safe")]
    if not fits:
        raise TypeError(f"hipkit does not support dtype {dtype}, and no supported dtype "
                        f"({', '.join(map(str, SUPPORTED))}) holds its values exactly")
    return min(fits, key=lambda d: (d.itemsize, d.kind != dtype.kind))


def _operand(x):
    """What np.result_type should see for `x`: Python bool/int/float/complex
    values stay themselves (NumPy 2 treats them as weak: they take the other
    operands' dtype, complex making it complex); anything with a dtype
    (arrays, NumPy scalars) gives its dtype (strong); otherwise x is a
    dtype-like ("float32", np.int8)."""
    if type(x) in _PY_SCALARS:
        return x
    dtype = getattr(x, "dtype", None)
    if dtype is not None and not isinstance(x, type):
        return np.dtype(dtype)
    try:
        return np.dtype(x)
    except TypeError:
        raise TypeError(f"cannot interpret {x!r} as a dtype or a Python scalar") from None


def result_type(*operands):
    """NumPy 2's result dtype (NEP 50) for `operands`: dtypes, arrays, NumPy
    scalars (all strong) and Python bool/int/float/complex values (weak: an
    int takes an integer array's dtype, a float a float array's, a complex
    the complex dtype of a float array's precision). Differences from
    np.result_type:

    - a result NumPy gives outside the fourteen (longdouble) raises
      TypeError (to_supported()).
    - a Python int that the result's integer dtype cannot hold raises
      OverflowError ("Python integer 300 out of bounds for uint8"), as NumPy
      2's operators do (np.result_type itself does not check). With only
      Python ints the result is int64, so an int outside int64 raises too
      (np.result_type would give object).

    promote() then check_python_ints(): an op whose kernel takes another
    dtype than the result's (int8 / 300 divides in float64) checks the ints
    against that one instead.
    """
    result = promote(*operands)
    check_python_ints(result, operands)
    return result


def promote(*operands):
    """result_type() without its check of the Python ints: the dtype they take."""
    if not operands:
        raise ValueError("at least one array or dtype is required")
    ops = [_operand(x) for x in operands]
    if all(type(x) in _PY_SCALARS for x in ops):
        # np.result_type(2**64) is object; decide all-Python-scalar cases here.
        kinds = {type(x) for x in ops}
        kind = next(k for k in (complex, float, int, bool) if k in kinds)
        return np.dtype({complex: np.complex128, float: np.float64, int: np.int64, bool: np.bool_}[kind])
    return to_supported(np.result_type(*ops))


def check_python_ints(dtype, operands):
    """OverflowError when a Python int among `operands` does not convert to
    `dtype`, the one it is given to the kernel in, as NumPy 2 refuses it: an
    integer dtype must hold it ("Python integer 300 out of bounds for int8"),
    a float dtype convert it through double ("int too large to convert to
    float"). Bools, floats, arrays and NumPy scalars are not checked."""
    pyints = [x for x in operands if type(x) is int]
    if not pyints:
        return
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        for value in pyints:
            if not info.min <= value <= info.max:
                raise OverflowError(f"Python integer {value} out of bounds for {dtype}")
    elif dtype.kind in "fc":
        for value in pyints:
            try:
                float(value)  # NumPy converts via double: "int too large to convert to float"
            except OverflowError:
                raise OverflowError("int too large to convert to float") from None


def real_dtype(dtype):
    """The dtype of a complex dtype's parts (complex64 -> float32, complex128 -> float64); a real dtype
    itself."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32 if dtype == np.complex64 else np.float64) if dtype.kind == "c" else dtype


def true_divide_type(dtype):
    """The dtype of x / y for one input dtype: floats and complex keep theirs,
    bool and integers divide in float64 (NumPy's true_divide loops)."""
    dtype = np.dtype(dtype)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def sum_accumulator_type(dtype):
    """NumPy's default dtype of sum/prod/cumsum: bool and signed integers
    accumulate in int64, unsigned in uint64, floats and complex in their own dtype."""
    dtype = np.dtype(dtype)
    return {"b": np.dtype(np.int64), "i": np.dtype(np.int64),
            "u": np.dtype(np.uint64)}.get(dtype.kind, dtype)
