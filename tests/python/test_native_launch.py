"""The native launcher (hipkit._native, native/launch.c) must pack exactly what the checked
Python path packs, and hand everything it does not handle back (-1 / None)
rather than guess. Runs on any device: packing is host work, and a launch with an
invented kernel handle stops at the library's handle check."""
import os
import struct

import numpy as np
import pytest

import hipkit
from hipkit import kernel
from hipkit._ffi import lib

from hipkit import _native as _launch  # the launcher lives in the C core (native/launch.c)

INTS = [lib.HK_ARG_INT8, lib.HK_ARG_UINT8, lib.HK_ARG_INT16, lib.HK_ARG_UINT16, lib.HK_ARG_INT32,
        lib.HK_ARG_UINT32, lib.HK_ARG_INT64, lib.HK_ARG_UINT64]
ALL = INTS + [lib.HK_ARG_POINTER, lib.HK_ARG_FLOAT32, lib.HK_ARG_FLOAT64, lib.HK_ARG_BOOL]


def value_for(t, rng):
    """A Python value of the kind the native path handles, in range for t."""
    if t == lib.HK_ARG_POINTER:
        return [None, int(rng.integers(0, 2**63)), kernel._Pointer(int(rng.integers(0, 2**48)))][rng.integers(3)]
    if t == lib.HK_ARG_BOOL:
        return bool(rng.integers(2))
    if t in (lib.HK_ARG_FLOAT32, lib.HK_ARG_FLOAT64):
        return [float(rng.standard_normal() * 1e3), int(rng.integers(-1000, 1000)), float("nan"), float("-inf")][
            rng.integers(4)]
    _, _, _, smallest, largest = kernel._ARG[t]
    return [smallest, largest, int(rng.integers(smallest, largest, endpoint=True, dtype=np.int64))
            if largest < 2**63 else int(rng.integers(0, 2**63)), 0][rng.integers(4)]


def checked_bytes(types, args):
    fmt, _ = kernel._layout(types)
    return kernel._pack_checked("k", types, struct.Struct(fmt).pack, args)


def test_native_packing_equals_the_checked_path_on_random_signatures():
    seed = int.from_bytes(os.urandom(4), "little")
    rng = np.random.default_rng(seed)
    for _ in range(2000):
        types = tuple(int(rng.choice(ALL)) for _ in range(rng.integers(0, 9)))
        args = tuple(value_for(t, rng) for t in types)
        got = _launch.pack(bytes(types), args)
        assert got == checked_bytes(types, args), f"seed {seed}: {types} {args}"


@pytest.mark.parametrize("t, value", [
    (lib.HK_ARG_INT8, 128), (lib.HK_ARG_UINT8, -1), (lib.HK_ARG_INT32, 2**31), (lib.HK_ARG_UINT32, 2**32),
    (lib.HK_ARG_INT64, 2**63), (lib.HK_ARG_UINT64, 2**64), (lib.HK_ARG_UINT64, -1),
    (lib.HK_ARG_INT32, 1.5), (lib.HK_ARG_FLOAT32, 1e39), (lib.HK_ARG_FLOAT64, 10**400),
    (lib.HK_ARG_POINTER, -1), (lib.HK_ARG_POINTER, 2**64), (lib.HK_ARG_POINTER, 1.0),
    (lib.HK_ARG_POINTER, np.zeros(3)), (lib.HK_ARG_BOOL, 2), (lib.HK_ARG_INT32, "3"),
])
def test_values_the_checked_path_refuses_are_handed_back(t, value):
    assert _launch.pack(bytes([t]), (value,)) is None
    with pytest.raises((TypeError, OverflowError)):
        checked_bytes((t,), (value,))


@pytest.mark.parametrize("t, value", [
    (lib.HK_ARG_INT32, np.int32(3)), (lib.HK_ARG_INT32, True), (lib.HK_ARG_BOOL, 1), (lib.HK_ARG_FLOAT32, np.float32(2)),
])
def test_values_only_the_checked_path_converts_are_handed_back(t, value):
    assert _launch.pack(bytes([t]), (value,)) is None  # numpy scalars, bools as ints: the checked path's job
    checked_bytes((t,), (value,))


def test_wrong_counts_and_shapes_are_handed_back():
    types = bytes([lib.HK_ARG_INT32, lib.HK_ARG_INT32])
    assert _launch.pack(types, (1,)) is None
    assert _launch.pack(types, (1, 2, 3)) is None
    assert _launch.pack(types, {1, 2}) is None
    assert _launch.launch(12345, 0, 32, (1, 2), types, 0, None) == -1  # grid 0
    assert _launch.launch(12345, (1, 2, 3, 4), 32, (1, 2), types, 0, None) == -1
    assert _launch.launch(12345, 1, 2**32, (1, 2), types, 0, None) == -1


def test_a_handled_launch_reaches_the_library():
    types = bytes([lib.HK_ARG_POINTER, lib.HK_ARG_INT32])
    # An invented kernel handle: packing succeeded, the library refused the handle.
    assert _launch.launch(0x7777, (4, 2), (32, 4, 1), (None, 7), types, 0, None) == lib.HK_ERROR_INVALID_HANDLE


class _FakeStream:
    def __init__(self, handle):
        self._hk_stream = handle


def test_kernel_per_device_and_stream_forms():
    """Several devices: the kernel is a list indexed by the current device (0 here);
    a missing or 0 entry is handed back (the checked path loads the kernel
    there). The stream is None or an object with an int _hk_stream."""
    with hipkit.Device(0):
        _per_device_and_stream_forms()


def _per_device_and_stream_forms():
    types = bytes([lib.HK_ARG_INT32])
    assert _launch.launch([0x7777], 1, 1, (1,), types, 0, None) == lib.HK_ERROR_INVALID_HANDLE
    assert _launch.launch([0x7777, 0], 1, 1, (1,), types, 0, None) == lib.HK_ERROR_INVALID_HANDLE
    assert _launch.launch([0], 1, 1, (1,), types, 0, None) == -1  # not loaded on device 0
    assert _launch.launch([], 1, 1, (1,), types, 0, None) == -1
    assert _launch.launch((0x7777,), 1, 1, (1,), types, 0, None) == -1  # only int or list
    assert _launch.launch([None], 1, 1, (1,), types, 0, None) == -1
    # an invented stream handle reaches the library, which refuses it (kernel first, also invented)
    assert _launch.launch(0x7777, 1, 1, (1,), types, 0, _FakeStream(0x1000001)) == lib.HK_ERROR_INVALID_HANDLE
    assert _launch.launch(0x7777, 1, 1, (1,), types, 0, 0) == -1  # a bare int is not a stream
    assert _launch.launch(0x7777, 1, 1, (1,), types, 0, object()) == -1
    assert _launch.launch(0x7777, 1, 1, (1,), types, 0, _FakeStream("x")) == -1
    assert _launch.launch(0x7777, 1, 1, (1,), types, 0, _FakeStream(0)) == -1
