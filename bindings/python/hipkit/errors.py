"""hipkit's exceptions, and check(): every hk_status that is not HK_SUCCESS
becomes one of them, carrying the library's own sentence (hk_last_error())."""
from ._ffi import ffi, lib


class HipkitError(Exception):
    """Base of every error the hipkit library reports; `status` is the hk_status."""

    status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status

    @property
    def status_name(self):
        return ffi.string(lib.hk_status_name(self.status)).decode() if self.status is not None else None


# Built-in bases as well, so `except MemoryError` or `except ValueError`
# does what a Python programmer expects.
class InvalidArgumentError(HipkitError, ValueError): status = lib.HK_ERROR_INVALID_ARGUMENT
class NoDeviceError(HipkitError): status = lib.HK_ERROR_NO_DEVICE
class InvalidDeviceError(HipkitError, ValueError): status = lib.HK_ERROR_INVALID_DEVICE
class OutOfMemoryError(HipkitError, MemoryError): status = lib.HK_ERROR_OUT_OF_MEMORY
class InvalidHandleError(HipkitError): status = lib.HK_ERROR_INVALID_HANDLE
class NotReadyError(HipkitError): status = lib.HK_ERROR_NOT_READY
class NotSupportedError(HipkitError): status = lib.HK_ERROR_NOT_SUPPORTED
class LaunchError(HipkitError): status = lib.HK_ERROR_LAUNCH_FAILED
class RuntimeGPUError(HipkitError): status = lib.HK_ERROR_RUNTIME
class InternalError(HipkitError): status = lib.HK_ERROR_INTERNAL
class CompileError(HipkitError): status = lib.HK_ERROR_COMPILE

_BY_STATUS = {cls.status: cls for cls in HipkitError.__subclasses__()}


_SUCCESS = lib.HK_SUCCESS  # a module constant: reading lib.X costs more, on every call


def check(status):
    """Raise the exception for a failed hk_status; do nothing on HK_SUCCESS."""
    if status != _SUCCESS:
        message = ffi.string(lib.hk_last_error()).decode(errors="replace")
        name = ffi.string(lib.hk_status_name(status)).decode()
        raise _BY_STATUS.get(status, HipkitError)(message or name, status)
