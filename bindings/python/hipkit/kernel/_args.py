"""Kernel arguments: the parameter types (hk_arg_type: name, struct code,
size and range; param_types= entries read by _arg_type), the packed layout,
and the checked path, which turns each argument into its declared type or
raises a TypeError / OverflowError naming it; also bare device addresses
(_Pointer) and grid / block dimensions (_dim3). An array's address is its
_hk_address (a C field of hipkit._native.ArrayBase)."""
import operator
import struct

import numpy as np

from .._ffi import ffi, lib
from ..array import ndarray


_POINTER, _BOOL = lib.HK_ARG_POINTER, lib.HK_ARG_BOOL
_F32, _F64 = lib.HK_ARG_FLOAT32, lib.HK_ARG_FLOAT64
# hk_arg_type: (name, struct code in standard sizes, bytes, smallest, largest)
_ARG = {
    _POINTER: ("pointer", "Q", 8, 0, 2**64 - 1),
    lib.HK_ARG_INT8: ("int8", "b", 1, -2**7, 2**7 - 1),
    lib.HK_ARG_UINT8: ("uint8", "B", 1, 0, 2**8 - 1),
    lib.HK_ARG_INT16: ("int16", "h", 2, -2**15, 2**15 - 1),
    lib.HK_ARG_UINT16: ("uint16", "H", 2, 0, 2**16 - 1),
    lib.HK_ARG_INT32: ("int32", "i", 4, -2**31, 2**31 - 1),
    lib.HK_ARG_UINT32: ("uint32", "I", 4, 0, 2**32 - 1),
    lib.HK_ARG_INT64: ("int64", "q", 8, -2**63, 2**63 - 1),
    lib.HK_ARG_UINT64: ("uint64", "Q", 8, 0, 2**64 - 1),
    _F32: ("float32", "f", 4, None, None),
    _F64: ("float64", "d", 8, None, None),
    _BOOL: ("bool", "?", 1, 0, 1),
}
_BY_NAME = {name: code for code, (name, *_) in _ARG.items()}
# C spellings, as kernel_signature.c reads them; "float" is C's float, not NumPy's.
_C_NAMES = {
    "char": "int8", "signed char": "int8", "int8_t": "int8", "unsigned char": "uint8", "uint8_t": "uint8",
    "short": "int16", "int16_t": "int16", "unsigned short": "uint16", "uint16_t": "uint16",
    "int": "int32", "signed": "int32", "int32_t": "int32", "unsigned": "uint32", "unsigned int": "uint32",
    "uint32_t": "uint32", "long": "int64", "long long": "int64", "int64_t": "int64", "ptrdiff_t": "int64",
    "unsigned long": "uint64", "unsigned long long": "uint64", "uint64_t": "uint64", "size_t": "uint64",
    "float": "float32", "double": "float64", "ptr": "pointer",
}


def _arg_type(spec):
    """hk_arg_type of one param_types entry: a NumPy dtype (np.float32,
    "int64"), a C type name ("float", "unsigned int"), or a pointer
    ("float32*", "const float *", "ptr", "pointer")."""
    if isinstance(spec, str):
        text = " ".join(spec.replace("*", " * ").split())
        if text.endswith("*") or text in ("ptr", "pointer"):
            return _POINTER
        text = text.removeprefix("const ")
        name = _C_NAMES.get(text, text)
        if name in _BY_NAME:
            return _BY_NAME[name]
    try:
        dtype = None if spec is None else np.dtype(spec)  # np.dtype(None) would be float64
    except TypeError:
        dtype = None
    if dtype is not None and (dtype.name in _BY_NAME and dtype.name != "pointer"):
        return _BY_NAME[dtype.name]
    raise TypeError(f"param_types: {spec!r} is not a parameter type; use a NumPy dtype (np.float32, "
                    f"'int64', 'bool'), a C type ('float', 'unsigned int') or a pointer ('float32*', 'ptr')")


def _layout(types):
    """The struct format of the packed arguments: each at its natural alignment,
    ending right after the last (hk_kernel_launch_packed's layout), and its size."""
    fmt, offset = "=", 0  # standard sizes, no automatic alignment: the padding is explicit
    for t in types:
        _, code, size, _, _ = _ARG[t]
        padding = -offset % size
        fmt += "x" * padding + code
        offset += padding + size
    return fmt, offset


# ------------------------------------------------- the checked (slow) path

_HOST_ARRAY_ADVICE = "copy it to the device with hipkit.asarray() first"


class _Pointer:
    """A bare device address where a launch takes an array (temporary buffers)."""

    __slots__ = ("_hk_address",)

    def __init__(self, address):
        self._hk_address = address


def _address(value):
    """The device address of a pointer argument."""
    if isinstance(value, (ndarray, _Pointer)):
        return value._hk_address
    if value is None:
        return 0
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        address = operator.index(value)
        if not 0 <= address < 2**64:
            raise OverflowError(f"{address} is not a device address")
        return address
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    if isinstance(value, np.ndarray):
        raise TypeError(f"a numpy.ndarray lives in host memory; {_HOST_ARRAY_ADVICE}")
    raise TypeError(f"expected a hipkit.ndarray (or a device address as an int, or None), "
                    f"got {type(value).__name__}")


def _scalar(value, t):
    """`value` as the Python number struct packs for type t, or raise."""
    name, code, _, smallest, largest = _ARG[t]
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (ndarray, np.ndarray)):
        raise TypeError(f"an array was given for the {name} parameter, which takes one number")
    if t == _BOOL:
        if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and value in (0, 1)):
            return bool(value)
        raise TypeError(f"the bool parameter takes True, False, 0 or 1, got {value!r}")
    if t in (_F32, _F64):
        if isinstance(value, (complex, np.complexfloating)) or not isinstance(
                value, (int, float, np.integer, np.floating, np.bool_)):
            raise TypeError(f"the {name} parameter takes a real number, got {type(value).__name__}")
        number = float(value)  # OverflowError for ints beyond any double
        try:
            struct.pack("=" + code, number)
        except OverflowError:
            raise OverflowError(f"the {name} parameter cannot hold {number!r}") from None
        return number
    if isinstance(value, (float, np.floating, complex, np.complexfloating)):
        raise TypeError(f"{name} is an integer parameter but a floating-point value was given ({value!r}); "
                        f"convert it with int() if truncation is what you mean")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"the {name} parameter takes an integer, got {type(value).__name__}") from None
    if not smallest <= number <= largest:
        raise OverflowError(f"{name} cannot hold {number}")
    return number


def _pack_checked(kernel_name, types, pack, args):
    """Pack `args` for the kernel, raising TypeError / OverflowError that names
    the argument and its parameter type for anything that does not fit."""
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"{kernel_name}: args must be a tuple or list of the kernel's arguments, "
                        f"got {type(args).__name__}")
    if len(args) != len(types):
        signature = ", ".join(_ARG[t][0] for t in types)
        raise TypeError(f"{kernel_name} takes {len(types)} argument{'s' * (len(types) != 1)} "
                        f"({signature}) but {len(args)} {'was' if len(args) == 1 else 'were'} given")
    values = []
    for index, (t, value) in enumerate(zip(types, args)):
        try:
            values.append(_address(value) if t == _POINTER else _scalar(value, t))
        except (TypeError, OverflowError) as error:
            raise type(error)(f"{kernel_name}: argument {index} ({_ARG[t][0]}): {error}") from None
    return pack(*values)


_DIMS: dict = {}  # grid/block as given (int or tuple) -> hk_dim3, shared by every kernel
_DIMS_MAX = 4096


def _dim3(value, what):
    """hk_dim3 of an int or a tuple of up to 3 ints, remembered for next time."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        dims = (value,)
    elif isinstance(value, (tuple, list)) and 1 <= len(value) <= 3:
        dims = tuple(value)
    else:
        raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}")
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}")
        if not 1 <= d <= 2**32 - 1:
            raise ValueError(f"{what} dimensions must be 1 to 2**32 - 1, got {value!r}")
    result = ffi.new("hk_dim3 *", tuple(int(d) for d in dims) + (1,) * (3 - len(dims)))[0]
    if len(_DIMS) >= _DIMS_MAX:
        _DIMS.clear()
    if not isinstance(value, list):  # lists cannot be keys: they take this path each time
        _DIMS[value] = result
    return result
