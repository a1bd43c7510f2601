"""Advanced assignment, x[key] = value with integer or boolean array indices (issue 5), through the C
library's hk_put (the scatter that inverts hk_take).

Supported, as NumPy does it: any mix of basic indices (ints, slices, `...`, None) and integer arrays
(hipkit arrays, NumPy arrays, lists; broadcast together) and boolean masks (each turned into its
nonzero() indices, which waits for the GPU), with NumPy's placement of the broadcast index dimensions
(where the first array index was when the array indices are adjacent, else first). value is
converted to x's dtype (Python scalars as NEP 50 says: an int out of x's range raises OverflowError)
and broadcast to the indexing result's shape. Indices out of range raise IndexError, and then
nothing is written. Duplicate indices: which value lands is unspecified, as in NumPy.

One integer array index becomes one hk_put along its axis (the RAISE check waits for the GPU); several
are bounds-checked (with reductions, which wait for the GPU), combined into C-order positions of the
sliced view and put flat. A full-shape mask with a scalar or one-element value is a `where` (no wait).
"""
import builtins
import re

import numpy as np

from . import _layout
from ._ffi import lib
from .array import _check_device, _desc, _on_data, _overlaps, asarray, ndarray
from .device import _stream_handle
from .errors import InvalidArgumentError, check

_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)
_MODES = {"raise": lib.HK_TAKE_RAISE, "wrap": lib.HK_TAKE_WRAP, "clip": lib.HK_TAKE_CLIP}
_OUT_OF_BOUNDS = re.compile(r"index -?\d+ is out of bounds for axis \d+ with size \d+")


def put_raw(out, values, indices, axis, mode, stream=None):
    """hk_put(values, indices, axis (or lib.HK_PUT_FLAT), out, mode): values already in out's dtype and
    shape (any view, broadcast included), indices int64. Copies whatever overlaps out first."""
    _check_device("put", out, values, indices)
    if _overlaps(out, values):
        values = values.copy(stream=stream)
    if _overlaps(out, indices):
        indices = indices.copy(stream=stream)
    try:
        check(lib.hk_put(_desc(values), _desc(indices), axis, _desc(out), mode, _stream_handle(stream)))
    except InvalidArgumentError as error:
        found = _OUT_OF_BOUNDS.search(str(error))
        if found:
            raise IndexError(found.group(0)) from None
        raise


def _is_mask(item):
    if isinstance(item, (ndarray, np.ndarray)):
        return np.dtype(item.dtype) == _BOOL
    return isinstance(item, list) and len(item) > 0 and builtins.all(
        isinstance(i, (bool, np.bool_)) for i in item)


def _is_index_array(item):
    return isinstance(item, (ndarray, np.ndarray, list))


def _device_indices(item):
    """An int64 device array from an integer index array (hipkit, NumPy or a list)."""
    if isinstance(item, ndarray):
        if item.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        return item if item.dtype == _INT64 else item.astype(_INT64)
    host = np.asarray(item)
    if host.dtype.kind not in "iu" and host.size:
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return asarray(host.astype(np.int64))


def _parse(x, key):
    """The key as a list of entries in key order: ("new",) for None, ("slice", s, axis), ("int", i, axis)
    and ("array", int64 device array, axis, known to be in range and not negative), every axis of x
    covered once (masks expanded into their nonzero() arrays, `...` and the missing trailing axes into
    slices)."""
    items = list(key) if isinstance(key, tuple) else [key]
    consumed = 0
    for item in items:
        if item is None or item is Ellipsis:
            continue
        if _is_mask(item):
            consumed += np.ndim(item) if not isinstance(item, ndarray) else item.ndim
        else:
            consumed += 1
    if builtins.sum(item is Ellipsis for item in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but {consumed} were "
                         f"indexed")
    entries, axis = [], 0
    for item in items + ([] if builtins.any(i is Ellipsis for i in items) else [Ellipsis]):
        if item is None:
            entries.append(("new",))
        elif item is Ellipsis:
            for _ in range(x.ndim - consumed):
                entries.append(("slice", slice(None), axis))
                axis += 1
        elif isinstance(item, slice):
            entries.append(("slice", item, axis))
            axis += 1
        elif _is_mask(item):
            mask = item if isinstance(item, ndarray) else asarray(np.asarray(item, dtype=bool))
            if mask.ndim == 0:
                raise NotImplementedError("hipkit assignment takes no 0-d boolean index (x[True] = v); "
                                          "supported: integer arrays, boolean masks of 1 or more dimensions, "
                                          "ints, slices, ... and None")
            for k in range(mask.ndim):
                if mask.shape[k] != x.shape[axis + k]:
                    raise IndexError(f"boolean index did not match indexed array along axis {axis + k}; size "
                                     f"of axis is {x.shape[axis + k]} but size of corresponding boolean axis "
                                     f"is {mask.shape[k]}")
            from .ops import nonzero
            for k, ix in enumerate(nonzero(mask)):
                entries.append(("array", ix, axis + k, True))  # in range by construction
            axis += mask.ndim
        elif _is_index_array(item):
            entries.append(("array", _device_indices(item), axis, False))
            axis += 1
        elif _layout._is_integer(item) or isinstance(item, np.integer):
            entries.append(("int", int(item), axis))
            axis += 1
        elif isinstance(item, (bool, np.bool_)):
            raise NotImplementedError("hipkit assignment takes no scalar boolean index (x[True] = v); "
                                      "supported: integer arrays, boolean masks of 1 or more dimensions, "
                                      "ints, slices, ... and None")
        else:
            raise IndexError(_layout._INDEX_TYPE_MESSAGE)
    return entries


def _value_array(value, dtype):
    """value as a hipkit array of `dtype` (NumPy's assignment casting; NEP 50 for Python scalars)."""
    if isinstance(value, ndarray):
        return value if value.dtype == dtype else value.astype(dtype)
    if type(value) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype}")
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        host = value
    else:
        host = np.asarray(value, dtype=dtype)
    if host.dtype == object:
        raise TypeError(f"cannot assign a {type(value).__name__} to a hipkit.ndarray")
    with np.errstate(all="ignore"):
        return asarray(np.asarray(host).astype(dtype))


def _shape_text(shape):
    """NumPy's spelling of a shape in its messages: (2,5), (3,)."""
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _broadcast_value(value, shape):
    """value broadcast (a view) to the indexing result's shape, NumPy's way (leading 1s dropped)."""
    while value.ndim > len(shape) and value.shape[0] == 1:
        value = value.reshape(value.shape[1:])
    try:
        if _layout.broadcast_shapes(value.shape, shape) != tuple(shape):
            raise ValueError
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {_shape_text(value.shape)} could not be "
                         f"broadcast to indexing result of shape {_shape_text(shape)}") from None
    return value._broadcast_to(tuple(shape))


def _check_bounds(ix, size, axis):
    """IndexError naming the first index (C order) outside [-size, size); waits for the GPU."""
    if not ix.size:
        return
    from .ops import max as _max, min as _min
    low, high = int(_min(ix).item()), int(_max(ix).item())
    if low >= -size and high < size:
        return
    host = ix.get().ravel()
    bad = host[(host < -size) | (host >= size)][0]
    raise IndexError(f"index {int(bad)} is out of bounds for axis {axis} with size {size}")


def advanced_set(x, key, value):
    """x[key] = value for keys with integer or boolean arrays (see the module's docstring)."""
    from . import ops
    items = key if isinstance(key, tuple) else (key,)
    # A mask of x's shape with one value: a where, without waiting for the GPU.
    if len(items) == 1 and isinstance(items[0], ndarray) and items[0].dtype == _BOOL and \
            items[0].shape == x.shape and x.ndim and (not isinstance(value, ndarray) or value.size == 1):
        one = _value_array(value, x.dtype)
        if one.size == 1:
            ops.where(items[0], one.reshape(()), x, out=x)
            return
        value = one
    entries = _parse(x, key)
    # The basic part: every slice applied, array axes kept whole.
    view = x[tuple(e[1] if e[0] == "slice" else slice(None) for e in entries if e[0] != "new")]
    if not builtins.any(e[0] == "array" for e in entries):  # only ints and slices: basic after all
        raise AssertionError("advanced_set called with a basic key")
    # Integers among array indices are 0-d array indices (NumPy's rule): checked here.
    for k, e in enumerate(entries):
        if e[0] == "int":
            size = x.shape[e[2]]
            if not -size <= e[1] < size:
                raise IndexError(f"index {e[1]} is out of bounds for axis {e[2]} with size {size}")
            entries[k] = ("array", asarray(np.asarray(e[1] % size, dtype=np.int64)), e[2], True)
    arrays = [e for e in entries if e[0] == "array"]
    try:
        index_shape = _layout.broadcast_shapes(*(e[1].shape for e in arrays))
    except ValueError:
        shapes = " ".join(_shape_text(e[1].shape) for e in arrays)
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with shapes "
                         f"{shapes}") from None
    positions = [k for k, e in enumerate(entries) if e[0] == "array"]
    adjacent = positions[-1] - positions[0] == len(positions) - 1
    # The indexing result's dimensions (None axes included), each tagged by what made it.
    result, tags = [], []
    for k, e in enumerate(entries):
        if e[0] == "array":
            if k == positions[0] and adjacent:
                result.extend(index_shape)
                tags.extend(["index"] * len(index_shape))
            continue
        result.append(1 if e[0] == "new" else view.shape[e[2]])
        tags.append(e[0])
    if not adjacent:
        result[0:0] = index_shape
        tags[0:0] = ["index"] * len(index_shape)
    values = _broadcast_value(_value_array(value, x.dtype), result)
    if "new" in tags:  # drop the None axes (extent 1): the result in the view's axes
        values = values[tuple(0 if t == "new" else slice(None) for t in tags)]
        tags = [t for t in tags if t != "new"]
    if values.size == 0:
        for e in arrays:  # NumPy still checks the indices
            if not e[3]:
                _check_bounds(e[1], x.shape[e[2]], e[2])
        return
    if len(arrays) == 1:
        e = arrays[0]
        put_raw(view, values, e[1], e[2], lib.HK_TAKE_WRAP if e[3] else lib.HK_TAKE_RAISE)  # checked: no wait
        return
    # Several array indices: checked, normalised, and combined into C-order positions of the view:
    # the index dimensions' positions plus, along each slice dimension, that axis's positions.
    steps = _layout.contiguous_strides(view.shape)
    flat = None
    for e in arrays:
        ix = e[1]
        if not e[3]:
            _check_bounds(ix, view.shape[e[2]], e[2])
            ix = ops.remainder(ix, view.shape[e[2]])
        term = ops.multiply(ix, steps[e[2]])
        flat = term if flat is None else ops.add(flat, term)
    first = tags.index("index") if index_shape else len(tags)
    flat = flat.reshape((1,) * first + index_shape + (1,) * (len(tags) - first - len(index_shape)))
    slice_dims = [d for d, t in enumerate(tags) if t == "slice"]
    slice_axes = [e[2] for e in entries if e[0] == "slice"]
    for d, axis in zip(slice_dims, slice_axes):
        shape = [1] * len(tags)
        shape[d] = view.shape[axis]
        flat = ops.add(flat, ops.multiply(_arange(view.shape[axis]), steps[axis]).reshape(tuple(shape)))
    if flat.shape != values.shape:  # the terms did not cover every dimension (extents of 1)
        flat = flat._broadcast_to(values.shape)
    put_raw(view, values, flat, lib.HK_PUT_FLAT, lib.HK_TAKE_WRAP)


def _arange(n):
    from .array import arange
    return arange(n, dtype=np.int64)


@_on_data
def put(a, ind, v, mode="raise", *, stream=None):
    """numpy.put: a.flat[ind] = v, in place on `a` (any view; its C-order positions). v is converted
    to a's dtype and repeated as needed (NumPy's rule); mode 'raise' waits for the GPU to learn
    whether an index is out of range (IndexError, nothing written), 'wrap' and 'clip' do not."""
    if not isinstance(a, ndarray):
        raise TypeError(f"put() argument 1 must be a hipkit.ndarray, not {type(a).__name__}")
    if mode not in _MODES:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    idx = _device_indices(ind).ravel()
    values = _value_array(v, a.dtype).ravel()
    if idx.size == 0:
        return
    if a.size == 0:
        raise IndexError("cannot replace elements of an empty array")
    if values.size == 0:
        return
    if values.size != idx.size:  # repeated cyclically, as NumPy's put
        from .ops import take
        values = values.reshape(())._broadcast_to(idx.shape) if values.size == 1 else \
            take(values, _arange(idx.size), mode="wrap", stream=stream)
    put_raw(a, values, idx, lib.HK_PUT_FLAT, _MODES[mode], stream)
