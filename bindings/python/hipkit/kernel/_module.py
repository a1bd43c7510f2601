"""RawModule and RawKernel: programs loaded on a device (_Module), their
kernels with parameter types and launchers (_BoundKernel), the module cache
(each source compiles once per device), and the RawKernel subclasses whose
__call__ is the generated launcher itself."""
import struct
import sys as _sys
import threading

from .._ffi import ffi, lib
from ..array import _current_device, ndarray
from ..device import Device, _Exit, _size, device_count
from ..errors import check
from ._args import _ARG, _arg_type, _layout, _pack_checked
from ._compile import Program, _c_string, _options
from ._launcher import _generate, _generate_native, _handle_int, _make_launcher, _native


def _array_module():
    """hipkit.array the module (the package's `array` attribute is the function)."""
    return _sys.modules[ndarray.__module__]


_fast_classes: dict = {}  # (parameter types, call) -> RawKernel subclass


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


_modules: dict = {}  # (source, options, device) -> _Module: each source compiles once per device
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
