"""The fast launch path: a launch function generated for each kernel
signature, one call into the native launcher (hipkit._native, from
bindings/python/native/launch.c) or struct.pack and hk_kernel_launch_packed, which
hands anything it does not handle to the checked path of _args."""
import struct

from .._ffi import ffi, lib
from ..device import _size, _stream_handle
from ..errors import check
from ._args import _BOOL, _DIMS, _POINTER, _dim3, _layout, _pack_checked

try:  # the native launcher (bindings/python/native/launch.c); without it, the struct.pack path
    from .. import _native
except ImportError:  # pragma: no cover - a build without the extension
    _native = None  # type: ignore[assignment]


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


# With the native launcher (native/launch.c) a call is one C function that packs and
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
