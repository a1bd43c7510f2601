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
import math
import operator
import os
import re
import struct
import threading

import numpy as np

import sys as _sys
from ._ffi import ffi, lib
from .array import _HK_DTYPE, _current_device, ndarray


def _array_module():
    """hipkit.array the module (the package's `array` attribute is the function)."""
    return _sys.modules[ndarray.__module__]
from .device import Device, _Exit, _size, _stream_handle, device_count, platform
from .errors import check

try:  # the native launcher (bindings/python/native/launch.c); without it, the struct.pack path
    from . import _native
except ImportError:  # pragma: no cover - a build without the extension
    _native = None

# ------------------------------------------------------------ compilation


def _c_string(value, what):
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{what} must not contain NUL characters")
    return value.encode()


def _options(options):
    """A tuple of option strings; one string alone is one option."""
    if isinstance(options, str):
        options = (options,)
    try:
        options = tuple(options)
    except TypeError:
        raise TypeError(f"options must be a sequence of str, got {type(options).__name__}") from None
    for option in options:
        _c_string(option, "each compiler option")
    return options


class Program:
    """Compiled code for one target: `binary` (bytes), `log` (the compiler's
    warnings), `target` ("sm_90", "gfx90a") and `cached` (True when it came
    from the disk cache). Made by hipkit.kernel.compile()."""

    _closed = True  # until compiled, so __del__ of a half-made object does nothing

    def __init__(self, source, target=None, options=(), name="module.hip"):
        options = _options(options)
        c_options = [ffi.new("char[]", o.encode()) for o in options]
        box = ffi.new("hk_program *")
        check(lib.hk_program_compile(box, _c_string(source, "source"), _c_string(name, "name"),
                                     ffi.new("const char *[]", c_options) if c_options else ffi.NULL,
                                     len(c_options),
                                     ffi.NULL if target is None else _c_string(target, "target")))
        self._handle, self._closed = box[0], False
        self.source, self.name, self.options = source, name, options

    def _string(self, call):
        text = ffi.new("const char **")
        check(call(self._live(), text))
        return ffi.string(text[0]).decode(errors="replace")

    def _live(self):
        if self._closed:
            raise ValueError("this hipkit Program was closed")
        return self._handle

    @property
    def binary(self):
        """The code object (AMD), CUBIN (NVIDIA sm_XX) or PTX (NVIDIA compute_XX), as bytes."""
        data, size = ffi.new("const void **"), ffi.new("size_t *")
        check(lib.hk_program_get_binary(self._live(), data, size))
        return ffi.buffer(data[0], size[0])[:]

    log = property(lambda self: self._string(lib.hk_program_get_log),
                   doc="the compiler's messages for a successful compile ('' if none, or cached)")
    target = property(lambda self: self._string(lib.hk_program_get_target), doc='"sm_90", "gfx90a", ...')

    @property
    def cached(self):
        """True when the binary came from the disk cache, False when compiled now."""
        flag = ffi.new("int *")
        check(lib.hk_program_is_cached(self._live(), flag))
        return bool(flag[0])

    def close(self):
        if not self._closed:
            self._closed = True
            check(lib.hk_program_destroy(self._handle))

    def __del__(self, _exit=_Exit):
        if not self._closed and not _exit.started:
            self._closed = True
            lib.hk_program_destroy(self._handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if self._closed:
            return f"<hipkit.kernel.Program {self.name} closed>"
        return f"<hipkit.kernel.Program {self.name} for {self.target}{' (cached)' if self.cached else ''}>"


def compile(source, target=None, options=(), name="module.hip"):
    """Compile HIP source for `target` ("sm_90", "compute_90" for PTX,
    "gfx90a"), or for the current device when target is None. Naming a target
    needs no GPU. A compile error raises hipkit.CompileError whose message is
    the compiler's log, with `name` and line numbers."""
    return Program(source, target, options, name)


def default_target():
    """The target this build compiles for when there is no GPU to ask: the one
    the tests and examples use ("sm_90" on NVIDIA builds, "gfx90a" on AMD)."""
    return "sm_90" if platform() == "nvidia" else "gfx90a"


def set_cache_dir(path):
    """Cache compiled programs in folder `path` (created if needed); None turns
    the cache off. The default is $HIPKIT_CACHE_DIR, else
    $XDG_CACHE_HOME/hipkit, else ~/.cache/hipkit; HIPKIT_CACHE_DISABLE=1 is off."""
    check(lib.hk_cache_set_dir(ffi.NULL if path is None else _c_string(os.fspath(path), "path")))


def get_cache_dir():
    """The cache folder in use, or None when the cache is off."""
    folder = ffi.new("const char **")
    check(lib.hk_cache_get_dir(folder))
    return None if folder[0] == ffi.NULL else ffi.string(folder[0]).decode()


def rtc_version():
    """(major, minor) of the run-time compiler (NVRTC or hiprtc)."""
    major, minor = ffi.new("int *"), ffi.new("int *")
    check(lib.hk_rtc_version(major, minor))
    return major[0], minor[0]


# --------------------------------------------------------- argument types

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


_DIMS = {}  # grid/block as given (int or tuple) -> hk_dim3, shared by every kernel
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


# ------------------------------------------------------ the fast launcher

# Generated per kernel signature, so a launch is: unpack the args, read each
# array's remembered address, struct.pack, two dict hits for the grid and
# block, one call into C. Anything unusual (a first-seen grid, a wrong count,
# a value that does not fit, a non-array where a pointer goes) raises inside
# the try and goes the checked way, which either launches or explains.
_LAUNCH = """
def {name}({self}grid, block, args, shared_mem=0, stream=None):
    try:
        {unpack}
        status = call({kernel}, dims[grid], dims[block], shared_mem,
                      NULL if stream is None else stream._handle, pack({values}), {size})
    except Exception:
        return {fallback}(grid, block, args, shared_mem, stream)
    if status:
        check(status)
"""


def _not_fast():
    raise TypeError


def _generate(types, call, namespace, **fields):
    """Compile _LAUNCH for parameter types `types`; returns the function."""
    fmt, size = _layout(types)
    names = [f"a{i}" for i in range(len(types))]
    # A bool parameter takes True or False here; 0, 1 and numpy.bool_ go the checked way.
    values = ", ".join(f"{a}._hk_address" if t == _POINTER else f"({a} if {a}.__class__ is bool else fail())"
                       if t == _BOOL else a for a, t in zip(names, types))
    namespace.update(call=call, dims=_DIMS, NULL=ffi.NULL, pack=struct.Struct(fmt).pack, check=check,
                     fail=_not_fast)
    exec(_LAUNCH.format(unpack=f"{', '.join(names)}, = args" if names else "if args: raise TypeError",
                        values=values, size=size, **fields), namespace)
    return namespace[fields["name"]]


# With the native launcher (_launch.c) a call is one C function that packs and
# launches; it answers -1 for anything it does not handle itself, and the
# checked path takes over.
_LAUNCH_NATIVE = """
def {name}({self}grid, block, args, shared_mem=0, stream=None):
    status = native({kernel}, grid, block, args, types, shared_mem, stream)
    if status:
        if status == -1:
            return {fallback}(grid, block, args, shared_mem, stream)
        check(status)
"""


def _handle_int(handle):
    return int(ffi.cast("uintptr_t", handle))


def _generate_native(types, namespace, **fields):
    namespace.update(native=_native.launch, types=bytes(types), check=check)
    exec(_LAUNCH_NATIVE.format(**fields), namespace)
    return namespace[fields["name"]]


def _make_launcher(handle, kernel_name, types, call=None):
    """launch(grid, block, args, shared_mem=0, stream=None) for one kernel.
    `call` stands in for hk_kernel_launch_packed (to measure the Python side)."""
    call = lib.hk_kernel_launch_packed if call is None else call
    pack = struct.Struct(_layout(types)[0]).pack
    size = _layout(types)[1]

    def slow(grid, block, args, shared_mem, stream):
        data = _pack_checked(kernel_name, types, pack, args)
        grid = _dim3(grid, "grid")
        block = _dim3(block, "block")
        shared_mem = _size(shared_mem, "shared_mem")
        check(call(handle, grid, block, shared_mem, _stream_handle(stream), data, size))

    if _native is not None and call is lib.hk_kernel_launch_packed:
        launch = _generate_native(types, {"kernel": _handle_int(handle), "slow": slow}, name="launch", self="",
                                  kernel="kernel", fallback="slow")
    else:
        launch = _generate(types, call, {"kernel": handle, "slow": slow}, name="launch", self="", kernel="kernel",
                           fallback="slow")
    launch.__qualname__ = launch.__name__ = f"launch_{kernel_name}"
    return launch


_fast_classes = {}  # (parameter types, call) -> RawKernel subclass


def _fast_class(types, call=None):
    """A RawKernel subclass whose __call__ is the generated launch itself, for
    kernels on a one-GPU machine: one Python frame per launch instead of two.
    Its instances carry _handle (the kernel) and _launch (the checked way)."""
    call = lib.hk_kernel_launch_packed if call is None else call
    cls = _fast_classes.get((types, call))
    if cls is None:
        if _native is not None and call is lib.hk_kernel_launch_packed:
            launch = _generate_native(types, {}, name="__call__", self="self, ", kernel="self._handles",
                                      fallback="self._launch")
        else:
            launch = _generate(types, call, {}, name="__call__", self="self, ", kernel="self._handle",
                               fallback="self._launch")
        launch.__qualname__ = "RawKernel.__call__"
        launch.__doc__ = RawKernel.__call__.__doc__
        cls = _fast_classes[(types, call)] = type("RawKernel", (RawKernel,), {
            "__call__": launch, "__slots__": (), "__module__": RawKernel.__module__,
            "__doc__": RawKernel.__doc__})
    return cls


# ------------------------------------------------------- modules, kernels

class _Module:
    """A program loaded on the current device; unloaded when collected."""

    _handle = None

    def __init__(self, program):
        box = ffi.new("hk_module *")
        check(lib.hk_module_load(box, program._live()))
        self._handle, self.program, self.device = box[0], program, _current_device()
        self._kernels = {}

    def kernel(self, name, param_types=None):
        key = (name, param_types)
        bound = self._kernels.get(key)
        if bound is None:
            bound = self._kernels[key] = _BoundKernel(self, name, param_types)
        return bound

    def close(self):
        if self._handle is not None:
            handle, self._handle = self._handle, None
            check(lib.hk_module_unload(handle))

    def __del__(self, _exit=_Exit):
        if self._handle is not None and not _exit.started:
            lib.hk_module_unload(self._handle)
            self._handle = None


class _BoundKernel:
    """One kernel of one loaded module: its handle, parameter types and launcher."""

    def __init__(self, module, name, param_types):
        box = ffi.new("hk_kernel *")
        check(lib.hk_module_get_kernel(box, module._handle, _c_string(name, "kernel name")))
        self.module, self.name, self.handle = module, name, box[0]  # the module outlives its kernels
        count = ffi.new("int *")
        declared = ffi.new("hk_arg_type[]", lib.HK_KERNEL_MAX_PARAMS)
        check(lib.hk_kernel_get_params(self.handle, count, declared, lib.HK_KERNEL_MAX_PARAMS))
        if param_types is not None:
            if count[0] >= 0 and count[0] != len(param_types):
                raise TypeError(f"{name} declares {count[0]} parameters in its source but param_types "
                                f"lists {len(param_types)}")
            check(lib.hk_kernel_set_params(self.handle, ffi.new("hk_arg_type[]", list(param_types)),
                                           len(param_types)))
            self.types = tuple(param_types)
        elif count[0] < 0:
            raise TypeError(f"the parameter types of kernel {name} cannot be read from its source "
                            f"(templates, macros, structs or references); give them as "
                            f"param_types=(...), e.g. param_types=('float32*', 'int32')")
        else:
            self.types = tuple(declared[i] for i in range(count[0]))
        self.launch = _make_launcher(self.handle, name, self.types)
        self._blocks = {}  # shared_mem -> the occupancy-best block size

    def block_for(self, shared_mem):
        block = self._blocks.get(shared_mem)
        if block is None:
            grid, dims = ffi.new("hk_dim3 *"), ffi.new("hk_dim3 *")
            check(lib.hk_kernel_suggest_launch(self.handle, 1, _size(shared_mem, "shared_mem"), grid, dims))
            block = self._blocks[shared_mem] = dims.x
        return block

    def launch_n(self, n, args, shared_mem, stream):
        block = self.block_for(shared_mem)
        if n > 0:
            self.launch((n + block - 1) // block, block, args, shared_mem, stream)
        else:  # nothing to launch; the arguments are still checked
            _pack_checked(self.name, self.types, struct.Struct(_layout(self.types)[0]).pack, args)

    def attributes(self):
        attributes = ffi.new("hk_kernel_attributes *")
        check(lib.hk_kernel_get_attributes(self.handle, attributes))
        return {name: getattr(attributes, name) for name, _ in ffi.typeof("hk_kernel_attributes").fields}


_modules = {}  # (source, options, device) -> _Module: each source compiles once per device
_modules_lock = threading.Lock()


def _cached_module(source, options, name, device):
    """The module of `source` on `device`, compiled (as file `name`) on first use."""
    key = (source, options, device)
    module = _modules.get(key)
    if module is None:
        with _modules_lock:
            module = _modules.get(key)
            if module is None:
                module = _modules[key] = _Module(Program(source, None, options, name))
    return module


class RawKernel:
    """Kernel `name` of HIP `source`, compiled and loaded on first use on each
    device (compiled once per source, options and device; the disk cache spares
    even that in a new process). Call it as k(grid, block, args, shared_mem=0,
    stream=None): grid and block are an int or a tuple of up to 3 ints, args a
    tuple. param_types: the parameter types when the source cannot tell
    (NumPy dtypes, C type names, 'float32*' or 'ptr' for pointers)."""

    def __init__(self, source, name, options=(), param_types=None, *, _module=None):
        _c_string(source, "source")
        _c_string(name, "kernel name")
        self.source, self.name, self.options = source, name, _options(options)
        self._param_types = None if param_types is None else tuple(_arg_type(t) for t in param_types)
        self._module = _module  # set by RawModule.get_function: one module, one device
        self._file = name + ".hip"  # the source's name in compiler messages
        self._kernels = {}  # device -> _BoundKernel
        self._launch = self._first_launch

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        """Launch on `grid` x `block` threads (ints or tuples of up to 3 ints)
        with `args` (a tuple), `shared_mem` bytes of dynamic shared memory, on
        `stream` (None: the default stream). Asynchronous."""
        return self._launch(grid, block, args, shared_mem, stream)

    def _bound(self):
        """This kernel on the current device, compiled and loaded if need be."""
        device = _current_device()
        bound = self._kernels.get(device)
        if bound is None:
            if self._module is None:
                module = _cached_module(self.source, self.options, self._file, device)
            elif self._module.device == device:
                module = self._module
            else:
                raise ValueError(f"kernel {self.name} belongs to a RawModule loaded on device "
                                 f"{self._module.device} but the current device is {device}; load the "
                                 f"module on each device, or use hipkit.RawKernel, which does")
            bound = self._kernels[device] = module.kernel(self.name, self._param_types)
        return bound

    def _first_launch(self, grid, block, args, shared_mem, stream):
        bound = self._bound()
        if not _array_module()._several_devices:  # one device: from now on a call is the generated launcher
            self._launch, self._handle = bound.launch, bound.handle
            self._handles = _handle_int(bound.handle)
            if type(self) is RawKernel:
                self.__class__ = _fast_class(bound.types)
        else:  # several: the native launcher takes the current device's entry of _handles
            self._launch = self._launch_on_current_device
            if _native is not None and type(self) is RawKernel:
                self._handles = [0] * device_count()
                self._handles[bound.module.device] = _handle_int(bound.handle)
                self.__class__ = _fast_class(bound.types)
        return bound.launch(grid, block, args, shared_mem, stream)

    def _launch_on_current_device(self, grid, block, args, shared_mem, stream):
        bound = self._bound()
        handles = getattr(self, "_handles", None)
        if isinstance(handles, list) and bound.module.device < len(handles):
            handles[bound.module.device] = _handle_int(bound.handle)  # the native launcher's next time
        return bound.launch(grid, block, args, shared_mem, stream)

    def launch_n(self, n, args, shared_mem=0, stream=None):
        """Launch over n items (1-D) with the block size of best occupancy and
        the grid that covers n; n == 0 checks the arguments and launches nothing."""
        self._bound().launch_n(_size(n, "n"), args, shared_mem, stream)

    @property
    def param_types(self):
        """The parameter types, as names: ('pointer', 'int32', ...)."""
        return tuple(_ARG[t][0] for t in self._bound().types)

    @property
    def attributes(self):
        """hk_kernel_attributes on the current device, as a dict."""
        return self._bound().attributes()

    @property
    def program(self):
        """The compiled Program loaded on the current device (.cached, .log, .binary)."""
        return self._bound().module.program

    def __repr__(self):
        return f"<hipkit.RawKernel {self.name}>"


class RawModule:
    """HIP `source`, compiled (for `target`, or the current device's) and
    loaded on the current device. get_function(name) gives its kernels."""

    def __init__(self, source, options=(), name="module.hip", target=None):
        self.program = Program(source, target, options, name)
        self._module = _Module(self.program)
        self.source, self.options, self.name = source, self.program.options, name
        self._functions = {}

    def get_function(self, name, param_types=None):
        key = (name, None if param_types is None else tuple(param_types))
        function = self._functions.get(key)
        if function is None:
            function = RawKernel(self.source, name, self.options, param_types, _module=self._module)
            function._bound()  # a missing kernel is reported now, not at the first call
            self._functions[key] = function
        return function

    device = property(lambda self: Device._of(self._module.device), doc="the hipkit.Device it is loaded on")

    def __repr__(self):
        return f"<hipkit.RawModule {self.name} on device {self._module.device}>"


# ------------------------------------------------------------- templates

# NumPy name -> (C type, numpy dtype, hk_arg_type)
_TEMPLATE_TYPES = {
    "bool": ("bool", np.bool_, _BOOL),
    "int8": ("signed char", np.int8, lib.HK_ARG_INT8),
    "uint8": ("unsigned char", np.uint8, lib.HK_ARG_UINT8),
    "int16": ("short", np.int16, lib.HK_ARG_INT16),
    "uint16": ("unsigned short", np.uint16, lib.HK_ARG_UINT16),
    "int32": ("int", np.int32, lib.HK_ARG_INT32),
    "uint32": ("unsigned int", np.uint32, lib.HK_ARG_UINT32),
    "int64": ("long long", np.int64, lib.HK_ARG_INT64),
    "uint64": ("unsigned long long", np.uint64, lib.HK_ARG_UINT64),
    "float32": ("float", np.float32, _F32),
    "float64": ("double", np.float64, _F64),
}
_MAX_NDIM = 8
# For identities and operations: the run-time compilers have no <math.h> macros.
_TEMPLATE_HEAD = """#if !defined(INFINITY) && defined(__CUDACC__)
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#elif !defined(INFINITY)
#define INFINITY __builtin_huge_valf()
#define NAN __builtin_nanf("")
#endif
"""
_BLOCK = 256  # template block size: a multiple of 32 and of 64
_SINGLE_BLOCK_ITEMS = 8192  # reductions up to this size take one block (32 items a thread)
_MAX_PARTIALS = 1024  # blocks of a larger reduction: enough to fill the GPU
_partials = {}  # device -> the most blocks a larger reduction takes there


def _max_partials(device):
    """_MAX_PARTIALS on a GPU; on the CPU device, whose cores run one block at a time, four blocks a
    core and one (more would only add the cost of their block-wide reductions; an odd count keeps
    the grid-stride loop's stride off powers of two, whose accesses crowd into a few cache sets)."""
    most = _partials.get(device)
    if most is None:
        info = ffi.new("hk_device_info *")
        check(lib.hk_device_get_info(device, info))
        most = _partials[device] = (_MAX_PARTIALS if info.kind == lib.HK_DEVICE_KIND_GPU
                                    else max(1, min(_MAX_PARTIALS, 4 * info.multiprocessor_count + 1)))
    return most
_I64 = lib.HK_ARG_INT64


class _Param:
    def __init__(self, text, what, reserved):
        words = text.split()
        self.raw = bool(words) and words[0] == "raw"
        if self.raw:
            words = words[1:]
        if len(words) != 2:
            raise ValueError(f"{what}: {text.strip()!r} is not '<type> <name>' (or 'raw <type> <name>')")
        typename, self.name = words
        if typename not in _TEMPLATE_TYPES:
            raise ValueError(f"{what}: type {typename!r} of {self.name} is not one of "
                             f"{', '.join(_TEMPLATE_TYPES)}")
        self.ctype, dtype, self.arg_type = _TEMPLATE_TYPES[typename]
        self.dtype = np.dtype(dtype)
        self.hk_dtype = _HK_DTYPE.get(self.dtype)  # None: no hipkit array has this dtype
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", self.name) or self.name in reserved:
            raise ValueError(f"{what}: {self.name!r} cannot name a parameter (use a C identifier not "
                             f"starting with '_', other than {', '.join(sorted(reserved))})")


def _parse_params(text, what, reserved):
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str such as 'float32 x, float32 y'")
    params = [_Param(part, what, reserved) for part in text.split(",") if part.strip()]
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: a parameter name appears twice in {text!r}")
    return params


def _check_array_arg(kernel_name, param, value):
    """'array' or 'scalar' for one input argument, refusing what cannot be passed."""
    if isinstance(value, ndarray):
        if value.dtype != param.dtype:
            raise TypeError(f"{kernel_name}: {param.name} is {param.dtype} but a {value.dtype} array was "
                            f"given (no implicit conversion)")
        return "array"
    if param.raw:
        raise TypeError(f"{kernel_name}: raw parameter {param.name} needs a hipkit.ndarray, "
                        f"got {type(value).__name__}")
    if isinstance(value, np.ndarray) and value.ndim > 0:
        raise TypeError(f"{kernel_name}: {param.name} is a numpy.ndarray, in host memory; {_HOST_ARRAY_ADVICE}")
    return "scalar"


def _collapse(shape, input_shapes):
    """Broadcast layout: the output shape with size-1 dimensions dropped and
    neighbours merged where every input allows, and each input's element
    strides over it (0 along broadcast dimensions)."""
    ndim = len(shape)
    strides = []
    for s in input_shapes:
        s = (1,) * (ndim - len(s)) + tuple(s)
        step, st = 1, [0] * ndim
        for d in range(ndim - 1, -1, -1):
            st[d] = 0 if s[d] == 1 else step
            step *= s[d]
        strides.append(st)
    dims = [d for d in range(ndim) if shape[d] != 1]
    out_dims = [shape[d] for d in dims]
    out_strides = [[st[d] for d in dims] for st in strides]
    j = len(out_dims) - 2
    while j >= 0:  # merge j and j+1 when every input walks them as one dimension
        if all(st[j] == st[j + 1] * out_dims[j + 1] for st in out_strides):
            out_dims[j] *= out_dims[j + 1]
            del out_dims[j + 1]
            for st in out_strides:
                del st[j]  # the merged dimension steps as the inner one did
        j -= 1
    return out_dims, out_strides


def _contiguous(dims):
    strides, step = [0] * len(dims), 1
    for d in range(len(dims) - 1, -1, -1):
        strides[d] = step
        step *= dims[d]
    return strides


class _Plan:
    """How one combination of argument shapes runs: the generated kernel and
    the extra launch arguments (sizes and strides for broadcast inputs)."""

    def __init__(self, kernel, extra):
        self.kernel, self.extra = kernel, extra


class _Template:
    """What ElementwiseKernel and ReductionKernel share: parameter parsing,
    argument classification, broadcasting and per-shape kernel caching."""

    _reserved = ("i", "n")  # the loop's index and count

    def __init__(self, in_params, out_params, name, preamble, options):
        self.in_params = _parse_params(in_params, f"{name}: in_params", self._reserved)
        self.out_params = _parse_params(out_params, f"{name}: out_params", self._reserved)
        names = [p.name for p in self.in_params + self.out_params]
        if len(set(names)) != len(names):
            raise ValueError(f"{name}: an input and an output have the same name")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"kernel name {name!r} is not a C identifier")
        self.name, self.preamble, self.options = name, preamble, _options(options)
        self._plans = {}  # argument shapes -> _Plan
        self._shapes = {}  # argument and output shapes -> the loop's shape
        self._kernels = {}  # (source, kernel name) -> RawKernel

    def _raw_kernel(self, source, name, types):
        key = (source, name)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = RawKernel(source, name, self.options)
            kernel._param_types, kernel._file = tuple(types), self.name + ".hip"
        return kernel

    def _key(self, args, outs):
        """What the generated kernel depends on: each input's shape (arrays) or
        kind ('scalar', 'raw'), checked, and the shape of the loop."""
        descs = []
        for param, value in zip(self.in_params, args):
            if value.__class__ is ndarray and value._hk_dtype == param.hk_dtype and not param.raw:
                descs.append(value.shape)  # the common case, checked cheaply
            else:
                kind = _check_array_arg(self.name, param, value)
                descs.append("raw" if param.raw else value.shape if kind == "array" else kind)
        descs = tuple(descs)
        out_shapes = tuple(o.shape if o.__class__ is ndarray else None for o in outs)
        shape = self._shapes.get((descs, out_shapes))
        if shape is None:
            shapes = [d for d in descs if isinstance(d, tuple)] + [s for s in out_shapes if s is not None]
            try:
                shape = np.broadcast_shapes(*shapes) if shapes else ()
            except ValueError:
                raise ValueError(f"{self.name}: shapes {', '.join(map(str, shapes))} cannot be broadcast "
                                 f"together") from None
            if len(shape) > _MAX_NDIM:
                raise ValueError(f"{self.name}: at most {_MAX_NDIM} dimensions, got {shape}")
            if len(self._shapes) >= 1024:
                self._shapes.clear()
            self._shapes[(descs, out_shapes)] = shape
        return descs, shape

    def _plan_for(self, key):
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._plan(*key)
        return plan

    def source_for(self, *inputs):
        """The HIP source generated for inputs described as shapes (tuples, for
        arrays) or None (numbers; raw inputs take anything): what a call with
        such arguments compiles, e.g. to compile it for a target without a GPU."""
        if len(inputs) != len(self.in_params):
            raise TypeError(f"{self.name}: describe each of the {len(self.in_params)} inputs")
        descs = tuple("raw" if p.raw else "scalar" if d is None else tuple(d)
                      for p, d in zip(self.in_params, inputs))
        shape = np.broadcast_shapes(*[d for d in descs if isinstance(d, tuple)])
        kernel = self._plan(descs, shape).kernel
        return (kernel if isinstance(kernel, RawKernel) else kernel[0]).source

    def _layout(self, descs, shape):
        """Each input's role in the loop ('same' as the output, 'bcast',
        'scalar', 'raw'), the collapsed dimensions and the broadcast strides."""
        dims, strides = _collapse(shape, [d for d in descs if isinstance(d, tuple)])
        roles, extra, it = [], [], iter(strides)
        contiguous = _contiguous(dims)
        for d in descs:
            if not isinstance(d, tuple):
                roles.append(d)
                continue
            st = next(it)
            if st == contiguous:
                roles.append("same")
            else:
                roles.append("bcast")
                extra.extend(st)
        if "bcast" in roles:
            extra = list(dims[1:]) + extra
        else:
            dims = []
        return tuple(roles), len(dims), extra

    def _loop_body(self, roles, ndim):
        """Declarations of the input variables for index i."""
        lines, bcast = [], [p.name for p, r in zip(self.in_params, roles) if r == "bcast"]
        if bcast:
            lines.append("        long long " + ", ".join(f"_o_{b} = 0" for b in bcast) + ";")
            lines.append("        { long long _r = i, _c;")
            for d in range(ndim - 1, 0, -1):
                lines.append(f"          _c = _r % _d{d}; _r /= _d{d};")
                lines.extend(f"          _o_{b} += _c * _s_{b}_{d};" for b in bcast)
            lines.extend(f"          _o_{b} += _r * _s_{b}_0;" for b in bcast)
            lines.append("        }")
        for p, r in zip(self.in_params, roles):
            if r == "same":
                lines.append(f"        const {p.ctype} {p.name} = _in_{p.name}[i];")
            elif r == "bcast":
                lines.append(f"        const {p.ctype} {p.name} = _in_{p.name}[_o_{p.name}];")
        return "\n".join(lines)

    def _input_params(self, roles):
        """The kernel's input parameters (C text, hk_arg_type)."""
        params = []
        for p, r in zip(self.in_params, roles):
            if r == "scalar":
                params.append((f"{p.ctype} {p.name}", p.arg_type))
            elif r == "raw":
                params.append((f"const {p.ctype} *{p.name}", _POINTER))
            else:
                params.append((f"const {p.ctype} *_in_{p.name}", _POINTER))
        return params

    def _shape_params(self, roles, ndim):
        params = [(f"long long _d{d}", _I64) for d in range(1, ndim)]
        for p, r in zip(self.in_params, roles):
            if r == "bcast":
                params.extend((f"long long _s_{p.name}_{d}", _I64) for d in range(ndim))
        return params

    def _head(self):
        return f"#include <hipkit_device.h>\n{_TEMPLATE_HEAD}{self.preamble}\n"



def _contiguous_inputs(template, args):
    """The generated kernels index arrays as C-contiguous: strided views are
    gathered into contiguous copies first (outputs are refused by _check_out)."""
    for a in args:
        if a.__class__ is ndarray and not a._contiguous:
            return tuple(a.copy() if a.__class__ is ndarray and not a._contiguous and not p.raw else a
                         for a, p in zip(args, template.in_params))
    return args


def _split_call(template, args, out):
    n_in, n_out = len(template.in_params), len(template.out_params)
    if len(args) == n_in + n_out and n_out:
        if out is not None:
            raise TypeError(f"{template.name}: the outputs are given twice (positionally and as out=)")
        return _contiguous_inputs(template, args[:n_in]), list(args[n_in:])
    if len(args) != n_in:
        raise TypeError(f"{template.name} takes {n_in} input{'s' * (n_in != 1)}"
                        f"{f' (and optionally {n_out} output' + 's' * (n_out != 1) + ')' if n_out else ''}"
                        f" but {len(args)} argument{'s' * (len(args) != 1)} were given")
    args = _contiguous_inputs(template, args)
    if out is None:
        return args, [None] * n_out
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(outs) != n_out:
        raise TypeError(f"{template.name}: out must give {n_out} array{'s' * (n_out != 1)}")
    return args, outs


def _check_out(template, param, out, shape):
    if out.__class__ is ndarray and out._hk_dtype == param.hk_dtype and out.shape == shape and out._contiguous:
        return
    if isinstance(out, ndarray) and not out._contiguous:
        raise ValueError(f"{template.name}: output {param.name} must be C-contiguous (a strided view cannot be "
                         f"written by a generated kernel); pass a fresh array and copy it into the view")
    if not isinstance(out, ndarray):
        raise TypeError(f"{template.name}: output {param.name} must be a hipkit.ndarray, got {type(out).__name__}")
    if out.dtype != param.dtype or out.shape != tuple(shape):
        raise ValueError(f"{template.name}: output {param.name} must have shape {tuple(shape)} and dtype "
                         f"{param.dtype}, got {out.shape} and {out.dtype}")


_FAST_ELEMENTWISE = """
def __call__(self, *args, out=None, stream=None):
    if out is None:
        if len(args) == {n_all}:
            {ins}, {outs}, = args
        elif len(args) == {n_in}:
            {ins}, = args
            {outs_none}
        else:
            return self._call(args, out, stream)
    elif {n_out} == 1 and len(args) == {n_in} and out.__class__ is ndarray:
        {ins}, = args
        o0 = out
    else:
        return self._call(args, out, stream)
    if {inputs_odd}:
        return self._call(args, out, stream)
    shape = a0.shape
    if {shapes_differ}:
        return self._call(args, out, stream)
    plans = self._fast_plans.get(current_device())
    entry = plans.get(shape) if plans is not None else None
    if entry is None:
        return self._call(args, out, stream)
    if {outputs_odd}:
        return self._call(args, out, stream)
    {make_outputs}
    launch, block, n = entry
    launch((n + block - 1) // block, block, ({ins}, {outs}, n), 0, stream)
    return {result}
"""

_fast_elementwise_classes = {}  # (input dtypes, output dtypes) -> ElementwiseKernel subclass


def _fast_elementwise_class(in_dtypes, out_dtypes):
    """An ElementwiseKernel subclass whose __call__ handles the common call in
    one frame for inputs of `in_dtypes` (hk_dtype codes) and outputs of
    `out_dtypes` ((hk_dtype, numpy dtype) pairs); anything else goes to _call,
    which runs every case and raises the errors."""
    cls = _fast_elementwise_classes.get((in_dtypes, out_dtypes))
    if cls is not None:
        return cls
    ins = [f"a{k}" for k in range(len(in_dtypes))]
    outs = [f"o{k}" for k in range(len(out_dtypes))]
    namespace = {"ndarray": ndarray, "current_device": _current_device, "empty": ndarray._empty}
    for k, d in enumerate(in_dtypes):
        namespace[f"I{k}"] = d
    for k, (d, np_dtype) in enumerate(out_dtypes):
        namespace[f"O{k}"], namespace[f"D{k}"] = d, np_dtype
    source = _FAST_ELEMENTWISE.format(
        n_all=len(ins) + len(outs), n_in=len(ins), n_out=len(outs), ins=", ".join(ins), outs=", ".join(outs),
        outs_none=" = ".join(outs) + " = None",
        inputs_odd=" or ".join(f"{a}.__class__ is not ndarray or {a}._hk_dtype != I{k} or not {a}._contiguous"
                               for k, a in enumerate(ins)),
        shapes_differ=" or ".join([f"{a}.shape != shape" for a in ins[1:]] or ["False"]),
        outputs_odd=" or ".join(f"({o} is not None and ({o}.__class__ is not ndarray or {o}._hk_dtype != O{k} "
                                f"or not {o}._contiguous or {o}.shape != shape))" for k, o in enumerate(outs)),
        make_outputs="\n    ".join(f"if {o} is None:\n        {o} = empty(shape, D{k})" for k, o in enumerate(outs)),
        result=outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")")
    exec(source, namespace)
    call = namespace["__call__"]
    call.__qualname__ = "ElementwiseKernel.__call__"
    call.__doc__ = ElementwiseKernel.__call__.__doc__
    cls = _fast_elementwise_classes[(in_dtypes, out_dtypes)] = type("ElementwiseKernel", (ElementwiseKernel,), {
        "__call__": call, "__module__": ElementwiseKernel.__module__, "__doc__": ElementwiseKernel.__doc__})
    return cls


class ElementwiseKernel(_Template):
    """A kernel from one line of C++, applied element by element, as CuPy's:

        axpy2 = hipkit.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                         "z = x * 2 + y", "axpy2")
        z = axpy2(x, y)                  # or axpy2(x, y, z), axpy2(x, y, out=z)

    Inputs are hipkit arrays, broadcast together as NumPy does, or numbers
    (passed as the declared type, checked as RawKernel checks them); 'raw'
    inputs are passed as pointers, indexed by the operation itself. In the
    operation, each input name is its element, each output name a reference to
    its element, `i` the element's index and `n` their count. Types: bool,
    int8 ... uint64, float32, float64 (arrays: float32, float64, int32, int64)."""

    def __init__(self, in_params, out_params, operation, name, preamble="", options=()):
        super().__init__(in_params, out_params, name, preamble, options)
        if not self.out_params:
            raise ValueError(f"{name}: an elementwise kernel needs at least one output")
        self.operation = operation
        # The common call (array inputs of the declared dtypes, all of one
        # shape, C-contiguous; outputs given alike or made) goes through a
        # __call__ generated for this parameter list, which finds the launch
        # in _fast_plans: device -> shape -> (launcher, block, n). _call
        # handles every call and fills _fast_plans.
        self._fast_plans = {}
        if type(self) is ElementwiseKernel and self.in_params and not any(p.raw for p in self.in_params):
            # (a user's subclass keeps its own class and takes _call every time)
            self.__class__ = _fast_elementwise_class(tuple(p.hk_dtype for p in self.in_params),
                                                     tuple((p.hk_dtype, p.dtype) for p in self.out_params))

    def __call__(self, *args, out=None, stream=None):
        return self._call(args, out, stream)

    def _call(self, args, out, stream):
        inputs, outs = _split_call(self, args, out)
        key = self._key(inputs, outs)
        shape = key[1]
        for i, (param, o) in enumerate(zip(self.out_params, outs)):
            if o is None:
                outs[i] = ndarray._empty(shape, param.dtype)
            else:
                _check_out(self, param, o, shape)
        n = math.prod(shape)
        if n:
            plan = self._plan_for(key)
            bound = plan.kernel._bound()
            block = bound.block_for(0)
            bound.launch((n + block - 1) // block, block, (*inputs, *outs, n, *plan.extra), 0, stream)
            if not plan.extra and all(d == shape for d in key[0]):  # the generated __call__'s case
                plans = self._fast_plans.setdefault(_current_device(), {})
                if len(plans) >= 256:
                    plans.clear()
                plans[shape] = (bound.launch, block, n)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _plan(self, descs, shape):
        roles, ndim, extra = self._layout(descs, shape)
        params = self._input_params(roles)
        params += [(f"{p.ctype} *_out_{p.name}", _POINTER) for p in self.out_params]
        params += [("long long n", _I64)] + self._shape_params(roles, ndim)
        outputs = "\n".join(f"        {p.ctype} &{p.name} = _out_{p.name}[i];" for p in self.out_params)
        source = (f"{self._head()}"
                  f'extern "C" __global__ void {self.name}({", ".join(text for text, _ in params)})\n'
                  f"{{\n"
                  f"    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride()) {{\n"
                  f"{self._loop_body(roles, ndim)}\n{outputs}\n"
                  f"        {self.operation};\n"
                  f"    }}\n}}\n")
        if len(params) > lib.HK_KERNEL_MAX_PARAMS:
            raise ValueError(f"{self.name}: too many broadcast inputs over {ndim} dimensions "
                             f"({len(params)} kernel parameters; at most {lib.HK_KERNEL_MAX_PARAMS})")
        return _Plan(self._raw_kernel(source, self.name, [t for _, t in params]), extra)

    def __repr__(self):
        return f"<hipkit.ElementwiseKernel {self.name}>"


class ReductionKernel(_Template):
    """A reduction from a few lines of C++, as CuPy's:

        l2 = hipkit.ReductionKernel("float32 x", "float32 y", "x * x", "a + b",
                                    "y = sqrt(a)", "0", "l2norm")
        l2(x).get()   # a 0-d array

    map_expr gives each element's value (from the inputs, broadcast together),
    reduce_expr combines two values `a` and `b` (any associative and
    commutative operation: a + b, max(a, b)), post_map_expr writes the output
    from the result `a` (`n` is the number of elements reduced), identity is
    the value of an empty reduction. reduce_type: the type of a and b
    (default: the output's). Reduces over every element (axis=None)."""

    _reserved = ("i", "n", "a", "b")  # a, b: the values being combined

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name,
                 reduce_type=None, preamble="", options=()):
        super().__init__(in_params, out_params, name, preamble, options)
        if len(self.out_params) != 1 or self.out_params[0].raw:
            raise ValueError(f"{name}: a reduction has exactly one output, not raw")
        if identity is None:
            raise ValueError(f"{name}: identity is required (the value of an empty reduction)")
        if reduce_type is None:
            reduce_type = self.out_params[0].dtype.name
        if reduce_type not in _TEMPLATE_TYPES:
            raise ValueError(f"{name}: reduce_type {reduce_type!r} is not one of {', '.join(_TEMPLATE_TYPES)}")
        self.reduce_ctype, dtype, _ = _TEMPLATE_TYPES[reduce_type]
        self.reduce_dtype = np.dtype(dtype)
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = str(identity)

    def __call__(self, *args, out=None, axis=None, stream=None):
        """The reduction of the inputs (broadcast together) into a 0-d array,
        or into `out` (a 0-d hipkit.ndarray of the output's dtype)."""
        if axis is not None:
            raise NotImplementedError(f"{self.name}: only full reductions (axis=None) are supported so far")
        inputs, outs = _split_call(self, args, out)
        key = self._key(inputs, [])
        param, result = self.out_params[0], outs[0]
        if result is None:
            result = ndarray._empty((), param.dtype)
        else:
            _check_out(self, param, result, ())
        n = math.prod(key[1])
        plan = self._plan_for(key)
        single, partial, final = plan.kernel
        if n <= _SINGLE_BLOCK_ITEMS:  # one block does it all: one launch
            single(1, _BLOCK, (*inputs, result, n, *plan.extra), 0, stream)
            return result
        blocks = min((n + _BLOCK - 1) // _BLOCK, _max_partials(_current_device()))
        # One partial result per block, in stream order on `stream`, so the
        # pool cannot hand the buffer out again before `final` has read it.
        handle, box = _stream_handle(stream), ffi.new("void **")
        check(lib.hk_malloc_async(box, blocks * self.reduce_dtype.itemsize, handle))
        try:
            partials = _Pointer(int(ffi.cast("uintptr_t", box[0])))
            partial(blocks, _BLOCK, (*inputs, partials, n, *plan.extra), 0, stream)
            final(1, _BLOCK, (partials, blocks, result, n), 0, stream)
        finally:
            lib.hk_free_async(box[0], handle)
        return result

    def _plan(self, descs, shape):
        roles, ndim, extra = self._layout(descs, shape)
        rt, name, identity = self.reduce_ctype, self.name, f"({self.reduce_ctype})({self.identity})"
        out = self.out_params[0]
        inputs, sizes = self._input_params(roles), [("long long n", _I64)] + self._shape_params(roles, ndim)
        output = [(f"{out.ctype} *_out_{out.name}", _POINTER)]
        single_params = inputs + output + sizes
        partial_params = inputs + [(f"{rt} *_partials", _POINTER)] + sizes
        final_params = [(f"const {rt} *_partials", _POINTER), ("long long _count", _I64)] + output + sizes[:1]
        if len(single_params) > lib.HK_KERNEL_MAX_PARAMS:
            raise ValueError(f"{name}: too many broadcast inputs over {ndim} dimensions")
        signature = lambda params: ", ".join(text for text, _ in params)
        # Each thread reduces its grid-stride share of the elements into _acc.
        accumulate = f"""    __shared__ {rt} _scratch[32];
    {rt} _acc = {identity};
    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride()) {{
{self._loop_body(roles, ndim)}
        _acc = _hk_reduce_{name}(_acc, ({rt})({self.map_expr}));
    }}
    _acc = _hk_block_reduce_{name}(_acc, _scratch);"""
        finish = f"""    if (threadIdx.x == 0) {{
        const {rt} a = _acc;
        {out.ctype} &{out.name} = _out_{out.name}[0];
        {self.post_map_expr};
    }}"""
        source = f"""{self._head()}
__device__ __forceinline__ {rt} _hk_reduce_{name}({rt} a, {rt} b) {{ return ({self.reduce_expr}); }}

/* Warp, then block: the lane count is the device's (32 or 64), never assumed.
 * The block is a whole number of warps; the result is valid in thread 0. */
__device__ __forceinline__ {rt} _hk_block_reduce_{name}({rt} v, {rt} *scratch)
{{
    for (int d = warpSize / 2; d > 0; d /= 2)
        v = _hk_reduce_{name}(v, hk_shfl_down(v, d));
    const int warps = (int)((blockDim.x + warpSize - 1) / warpSize);
    if (hk_lane() == 0)
        scratch[hk_warp_index()] = v;
    __syncthreads();
    if (hk_warp_index() == 0) {{
        v = hk_lane() < warps ? scratch[hk_lane()] : {identity};
        for (int d = warpSize / 2; d > 0; d /= 2)
            v = _hk_reduce_{name}(v, hk_shfl_down(v, d));
    }}
    return v;
}}

/* Small inputs: one block, one launch. */
extern "C" __global__ void {name}_single({signature(single_params)})
{{
{accumulate}
{finish}
}}

/* Large inputs: a partial result per block, then one block combines them. */
extern "C" __global__ void {name}_partial({signature(partial_params)})
{{
{accumulate}
    if (threadIdx.x == 0)
        _partials[blockIdx.x] = _acc;
}}

extern "C" __global__ void {name}_final({signature(final_params)})
{{
    __shared__ {rt} _scratch[32];
    {rt} _acc = {identity};
    for (long long j = threadIdx.x; j < _count; j += blockDim.x)
        _acc = _hk_reduce_{name}(_acc, _partials[j]);
    _acc = _hk_block_reduce_{name}(_acc, _scratch);
{finish}
}}
"""
        kernels = tuple(self._raw_kernel(source, f"{name}_{part}", [t for _, t in params])
                        for part, params in (("single", single_params), ("partial", partial_params),
                                             ("final", final_params)))
        return _Plan(kernels, extra)

    def __repr__(self):
        return f"<hipkit.ReductionKernel {self.name}>"
