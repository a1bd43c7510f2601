"""Devices (the GPUs, then the CPU device), streams, events and the memory pool: each class wraps
one C handle and frees it deterministically (close() or `with`), or when collected."""
import atexit
import typing
import numbers

from ._ffi import ffi, lib
from ._native import settle as _settle  # lazy mode's pending ops run before any wait (hipkit._lazy)
from .errors import InvalidDeviceError, NoDeviceError, check


def _out(ctype, call, *args):
    """Call a C function whose last argument is an out-pointer; return the value."""
    box = ffi.new(ctype + " *")
    check(call(*args, box))
    return box[0]


def version() -> str:
    major, minor, patch = ffi.new("int *"), ffi.new("int *"), ffi.new("int *")
    check(lib.hk_version(major, minor, patch))
    return f"{major[0]}.{minor[0]}.{patch[0]}"


def platform() -> str:
    """"nvidia" or "amd": the vendor this build of the library targets."""
    return ffi.string(lib.hk_platform_name(_out("hk_platform", lib.hk_platform_get))).decode()


def runtime_version() -> int:
    """Version number of the vendor runtime (e.g. 13000 for CUDA 13.0)."""
    return _out("int", lib.hk_runtime_version)


def device_count() -> int:
    """Number of devices: the GPUs visible plus the CPU device, so at least 1.
    Devices are numbered GPUs first (0 .. gpu_count() - 1), then the CPU device."""
    return _out("int", lib.hk_device_count)


def gpu_count() -> int:
    """Number of GPUs visible (devices 0 .. gpu_count() - 1); 0 on a machine
    without a GPU or a driver, where the CPU device is device 0."""
    return _out("int", lib.hk_gpu_count)


def _device_id(device):
    """None means the current device; accept a Device, an int or "cpu"/"gpu"."""
    if device is None:
        return _out("int", lib.hk_device_get)
    if isinstance(device, Device):
        return device.id
    return Device(device).id


def _index(value, what):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{what} must be an integer, got {type(value).__name__}")
    return value.__index__()


def _size(value, what):
    value = _index(value, what)
    if value < 0:
        raise ValueError(f"{what} must not be negative, got {value}")
    return value


def _info_property(field):
    return property(lambda self: self.info()[field], doc=f"hk_device_info.{field}")


_table = None  # (kind, name) of every device, from hk_device_get_info: the numbering is fixed per process


def _devices():
    global _table
    if _table is None:
        info = ffi.new("hk_device_info *")
        table = []
        for ordinal in range(device_count()):
            check(lib.hk_device_get_info(ordinal, info))
            table.append((ffi.string(lib.hk_device_kind_name(info.kind)).decode(),
                          ffi.string(info.name).decode(errors="replace")))
        _table = tuple(table)
    return _table


def _listing():
    """ "0 (gpu: NVIDIA H200), 1 (cpu: CPU: ...)": every device, for error messages."""
    return ", ".join(f"{i} ({kind}: {name})" for i, (kind, name) in enumerate(_devices()))


def _ordinal(spec):
    """The device number `spec` names: an int, "cpu", "gpu" (the first GPU) or "gpu:N" (the N-th)."""
    devices = _devices()
    if isinstance(spec, str):
        text = spec.strip().lower()
        gpus = sum(kind == "gpu" for kind, _ in devices)
        if text == "cpu":
            return next(i for i, (kind, _) in enumerate(devices) if kind == "cpu")
        if text == "gpu" or text.startswith("gpu:") and text[4:].isdigit():
            which = int(text[4:]) if text != "gpu" else 0
            if gpus == 0:
                raise NoDeviceError(f"hipkit.Device({spec!r}): this machine has no GPU (hk_gpu_count() is 0: no "
                                    f"GPU or no driver, {platform()} build); the CPU device is hipkit.Device('cpu')")
            if which >= gpus:
                raise InvalidDeviceError(f"hipkit.Device({spec!r}): this machine has {gpus} GPU(s), 'gpu:0' .. "
                                         f"'gpu:{gpus - 1}'")
            return which
        raise InvalidDeviceError(f"hipkit.Device({spec!r}): a device is 'cpu', 'gpu', 'gpu:N' or a device number "
                                 f"(here: {_listing()})")
    ordinal = _index(spec, "device (a device number, 'cpu' or 'gpu')")
    if not 0 <= ordinal < len(devices):
        raise InvalidDeviceError(f"hipkit.Device({ordinal}): no such device; this machine has {len(devices)}: "
                                 f"{_listing()}")
    return ordinal


class Device:
    """One device: a GPU or the host CPU. Device(n) is device number n (GPUs first, then the CPU
    device), Device("cpu") the CPU device, Device("gpu") the first GPU ("gpu:N": the N-th); a
    number out of range or another name raises InvalidDeviceError, "gpu" without a GPU
    NoDeviceError. `with Device(...):` makes it the calling thread's current device and restores
    the previous one. Compares equal to another Device of the same number, and to the number."""

    def __init__(self, id=0):
        self.id = id.id if isinstance(id, Device) else _ordinal(id)
        self._previous = []  # a stack, so one Device can be entered re-entrantly

    @classmethod
    def _of(cls, ordinal):
        """Device number `ordinal`, known to exist (no checks)."""
        device = cls.__new__(cls)
        device.id, device._previous = ordinal, []
        return device

    @property
    def kind(self) -> str:
        """"gpu" or "cpu" (hk_device_info.kind)."""
        return _devices()[self.id][0]

    is_cpu = property(lambda self: self.kind == "cpu", doc="True for the CPU device")
    is_gpu = property(lambda self: self.kind == "gpu", doc="True for a GPU")

    def info(self) -> dict:
        """All of hk_device_info as a dict (free_memory is measured now; kind as "gpu"/"cpu")."""
        info = ffi.new("hk_device_info *")
        check(lib.hk_device_get_info(self.id, info))
        fields = {name: getattr(info, name) for name, _ in ffi.typeof("hk_device_info").fields}
        fields["name"] = ffi.string(info.name).decode(errors="replace")
        fields["arch"] = ffi.string(info.arch).decode(errors="replace")
        fields["kind"] = ffi.string(lib.hk_device_kind_name(info.kind)).decode()
        return fields

    name = _info_property("name")
    arch = _info_property("arch")
    multiprocessor_count = _info_property("multiprocessor_count")
    warp_size = _info_property("warp_size")
    max_threads_per_block = _info_property("max_threads_per_block")
    total_memory = _info_property("total_memory")
    free_memory = _info_property("free_memory")
    shared_memory_per_block = _info_property("shared_memory_per_block")
    l2_cache_size = _info_property("l2_cache_size")
    pci_bus_id = _info_property("pci_bus_id")

    @property
    def compute_capability(self) -> tuple[int, int]:
        info = self.info()
        return (info["compute_major"], info["compute_minor"])

    def synchronize(self) -> None:
        """Wait for all work on this device."""
        _settle()
        with self:
            check(lib.hk_device_synchronize())

    def __enter__(self):
        previous = _out("int", lib.hk_device_get)
        check(lib.hk_device_set(self.id))
        self._previous.append(previous)
        return self

    def __exit__(self, *exc):
        check(lib.hk_device_set(self._previous.pop()))

    def __eq__(self, other):
        if isinstance(other, Device):
            return other.id == self.id
        if isinstance(other, numbers.Integral) and not isinstance(other, bool):
            return int(other) == self.id
        return NotImplemented

    def __hash__(self):
        return hash(self.id)  # equal to its number, so hashed as the number

    def __repr__(self):
        return f"<hipkit.Device {self.id} ({self.kind})>"


def get_device() -> "Device":
    """The calling thread's current device."""
    return Device._of(_out("int", lib.hk_device_get))


class _Exit:
    """Set when the interpreter starts shutting down. From then on, objects being
    collected leave their memory and handles to the process exit instead of
    calling into a vendor runtime that may be tearing down itself."""

    started = False


atexit.register(setattr, _Exit, "started", True)


class _Handle:
    """One C handle with deterministic release: close(), `with`, or collection."""

    _create: typing.Any = None
    _destroy: typing.Any = None
    _ctype: typing.Any = None
    _closed = True  # until created, so __del__ of a half-made object does nothing

    def __init__(self):
        self._handle = _out(self._ctype, self._create)
        self._closed = False

    def close(self) -> None:
        """Destroy the handle now. Closing twice does nothing; any other use
        afterwards raises InvalidHandleError (the library keeps track)."""
        if not self._closed:
            self._closed = True
            check(self._destroy(self._handle))

    def __del__(self, _exit=_Exit):  # a default argument survives module teardown
        # Never raises: the status is ignored, there is nobody to report it to.
        if not self._closed and not _exit.started:
            self._closed = True
            self._destroy(self._handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Stream(_Handle):
    """A stream on the current device. Ops take `stream=`; None is the default stream."""

    _create, _destroy, _ctype = lib.hk_stream_create, lib.hk_stream_destroy, "hk_stream"

    def __init__(self):
        super().__init__()
        self._hk_stream = int(ffi.cast("uintptr_t", self._handle))  # for the native launcher

    @property
    def device(self) -> "Device":
        return Device._of(_out("int", lib.hk_stream_get_device, self._handle))

    def synchronize(self) -> None:
        _settle()
        check(lib.hk_stream_synchronize(self._handle))

    def query(self) -> bool:
        """True when all work queued so far is done."""
        _settle()
        return _done(lib.hk_stream_query(self._handle))

    def wait_event(self, event: "Event") -> None:
        """Work queued on this stream from now on waits for `event`."""
        if not isinstance(event, Event):
            raise TypeError(f"wait_event needs a hipkit.Event, got {type(event).__name__}")
        check(lib.hk_stream_wait_event(self._handle, event._handle))

    def __repr__(self):
        return f"<hipkit.Stream {'closed' if self._closed else hex(int(ffi.cast('uintptr_t', self._handle)))}>"


class Event(_Handle):
    """A timing event on the current device: record(), then elapsed_ms(later)."""

    _create, _destroy, _ctype = lib.hk_event_create, lib.hk_event_destroy, "hk_event"

    def record(self, stream: "Stream | None" = None) -> "Event":
        """Record on `stream` (None: the default stream); returns self."""
        _settle()
        check(lib.hk_event_record(self._handle, _stream_handle(stream)))
        return self

    def synchronize(self) -> None:
        _settle()
        check(lib.hk_event_synchronize(self._handle))

    def query(self) -> bool:
        """True when the work recorded before this event is done."""
        _settle()
        return _done(lib.hk_event_query(self._handle))

    def elapsed_ms(self, end: "Event") -> float:
        """Milliseconds from this event to `end`; both recorded and completed."""
        if not isinstance(end, Event):
            raise TypeError(f"elapsed_ms needs a hipkit.Event, got {type(end).__name__}")
        milliseconds = ffi.new("float *")
        check(lib.hk_event_elapsed_ms(milliseconds, self._handle, end._handle))
        return milliseconds[0]

    def __repr__(self):
        return f"<hipkit.Event {'closed' if self._closed else 'open'}>"


def _done(status):
    if status == lib.HK_ERROR_NOT_READY:
        return False
    check(status)
    return True


def _stream_handle(stream):
    if stream is None:
        return ffi.NULL
    if not isinstance(stream, Stream):
        raise TypeError(f"stream must be a hipkit.Stream or None, got {type(stream).__name__}")
    return stream._handle


# ------------------------------------------------------------- memory pool

def pool_stats(device: "Device | int | str | None" = None) -> dict:
    """The device's pool counters (bytes_in_use, bytes_cached, limit, ...) as a dict."""
    stats = ffi.new("hk_pool_stats *")
    check(lib.hk_pool_get_stats(_device_id(device), stats))
    return {name: getattr(stats, name) for name, _ in ffi.typeof("hk_pool_stats").fields}


def set_pool_limit(bytes: int, device: "Device | int | str | None" = None) -> None:
    """Cap the memory the pool holds (in use + cached); 0 removes the cap."""
    check(lib.hk_pool_set_limit(_device_id(device), _size(bytes, "bytes")))


def trim_pool(keep_bytes: int = 0, device: "Device | int | str | None" = None) -> None:
    """Give cached blocks back until at most keep_bytes stay cached."""
    check(lib.hk_pool_trim(_device_id(device), _size(keep_bytes, "keep_bytes")))
