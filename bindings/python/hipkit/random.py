"""hipkit.random: counter-based random numbers (Philox4x32-10) made on the device.

    rng = hipkit.random.default_rng(42)
    x = rng.normal(size=(1000, 3))              # float64 hipkit.ndarray
    u = rng.uniform(-1, 1, 10, dtype=np.float32)

A Generator is a seed and a position. Each draw of n numbers takes positions
[offset, offset + n) and advances the offset by n, so draws of 3 and then 5
numbers give exactly what one draw of 8 would (for the same kind: uniform or
normal, float32 or float64). Different kinds use disjoint Philox sub-streams,
so mixing them never reuses bits. The numbers depend only on (seed, offset),
never on the device (any GPU or the CPU device): hipkit.h (hk_random_uniform) defines
them bit for bit. Each draw takes device= (a hipkit.Device, a device number, "cpu" or
"gpu"; None: the current device).

size=None draws one number and returns it as a 0-d hipkit.ndarray (shape ()),
not as a Python float, so it stays on the device (.get() copies it back).
"""
import numbers
import os

import numpy as np

from ._ffi import lib
from .array import _scope, _shape, ndarray
from .device import _index, _stream_handle
from .errors import check

__all__ = ["Generator", "default_rng"]

_DTYPES = {np.dtype(np.float32), np.dtype(np.float64)}
_SEED_LIMIT = 2**64


def _float_dtype(dtype):
    dt = np.dtype(dtype)
    if dt not in _DTYPES:
        raise TypeError(f"random numbers come as float32 or float64, not {dt}")
    return dt


def _real(value, name):
    """A parameter as a Python float; the library checks its range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}"
                        + (" (arrays of parameters are not supported yet)"
                           if isinstance(value, (ndarray, np.ndarray, list, tuple)) else ""))
    return float(value)


def _seed(seed):
    if seed is None:
        return int.from_bytes(os.urandom(8), "little")
    seed = _index(seed, "seed")
    if not 0 <= seed < _SEED_LIMIT:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return seed


class Generator:
    """Random numbers from one Philox4x32-10 key (the 64-bit seed), drawn in
    order. Methods follow numpy.random.Generator's names and arguments, plus
    `dtype` (float32 or float64), `stream` and `device`; they return hipkit.ndarray."""

    def __init__(self, seed=None):
        self._seed = _seed(seed)
        self._offset = 0

    seed = property(lambda self: self._seed, doc="the 64-bit seed (Philox key)")
    offset = property(lambda self: self._offset, doc="numbers drawn so far: where the next draw starts")

    def _draw(self, call, a, b, size, dtype, stream, device):
        dt = _float_dtype(dtype)
        with _scope(device):
            out = ndarray._empty(() if size is None else _shape(size), dt)
            check(call(out._data, out._hk_dtype, out.size, self._seed, self._offset, a, b, _stream_handle(stream)))
        self._offset += out.size
        return out

    def random(self, size=None, dtype=np.float64, stream=None, *, device=None):
        """Uniform numbers in [0, 1)."""
        return self._draw(lib.hk_random_uniform, 0.0, 1.0, size, dtype, stream, device)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64, stream=None, *, device=None):
        """Uniform numbers in [low, high) (high itself may come out by rounding,
        as in NumPy). low <= high, both finite."""
        return self._draw(lib.hk_random_uniform, _real(low, "low"), _real(high, "high"), size, dtype, stream,
                          device)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64, stream=None, *, device=None):
        """Normal numbers with mean `loc` and standard deviation `scale` (>= 0)."""
        return self._draw(lib.hk_random_normal, _real(loc, "loc"), _real(scale, "scale"), size, dtype, stream,
                          device)

    def standard_normal(self, size=None, dtype=np.float64, stream=None, *, device=None):
        """Normal numbers with mean 0 and standard deviation 1."""
        return self._draw(lib.hk_random_normal, 0.0, 1.0, size, dtype, stream, device)

    def __repr__(self):
        return f"hipkit.random.Generator(seed={self._seed}, offset={self._offset})"


def default_rng(seed=None):
    """A Generator on `seed` (an integer in [0, 2**64); None: fresh from the
    operating system). A Generator passed in is returned as it is."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)
