"""Run-time compilation: hipkit.kernel.compile() and the Program it returns
(the run-time compiler's binary and log for one target, whether it came from
the disk cache), the checks on source text, names and compiler options, the
default target, the disk cache's folder and the compiler's version."""
import os

from .._ffi import ffi, lib
from ..device import _Exit, platform
from ..errors import check


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
