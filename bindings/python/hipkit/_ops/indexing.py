"""Indexing: take (hk_take), nonzero and flatnonzero, where (x where a condition is true, y elsewhere: its
common calls in C, hipkit._native.ufunc; with only a condition, nonzero), x[key] for an integer or boolean
array index (a gather: take) and advanced assignment, x[key] = value with integer or boolean array
indices (issue 5), and numpy.put, through the C library's hk_put (the scatter that inverts hk_take).

Advanced assignment supports, as NumPy does it: any mix of basic indices (ints, slices, `...`, None) and
integer arrays (hipkit arrays, NumPy arrays, lists; broadcast together) and boolean masks (each turned into
its nonzero() indices, which waits for the GPU), with NumPy's placement of the broadcast index dimensions
(where the first array index was when the array indices are adjacent, else first). value is
converted to x's dtype (Python scalars as NEP 50 says: an int out of x's range raises OverflowError)
and broadcast to the indexing result's shape. Indices out of range raise IndexError, and then
nothing is written. Duplicate indices: which value lands is unspecified, as in NumPy.

Reading, x[key], takes the same keys: one array index is one hk_take along its axis; several (the array
API 2024.12's integer array indexing) are combined into C-order positions of the sliced view, as below,
and gathered flat.

One integer array index becomes one hk_put along its axis (the RAISE check waits for the GPU); several
are bounds-checked (with reductions, which wait for the GPU), combined into C-order positions of the
sliced view and put flat. A full-shape mask with a scalar or one-element value is a `where` (no wait).

Installs ndarray's take, put and nonzero methods and the advanced paths of its indexing (_advanced_get,
_advanced_set, which ndarray's _getitem_slow and __setitem__ call).
"""
import builtins
import math
import re

import numpy as np

from .. import _layout
from .._ffi import ffi, lib
from ..array import _check_device, _copy_into, _desc, _on_data, _overlaps, arange, asarray, ndarray
from ..device import _stream_handle
from ..errors import InvalidArgumentError, check
from ._base import _BOOL, _INT64, _array_arg
from .elementwise import _OPS, _fast, _ufunc_general, add, multiply, not_equal, remainder
from .reduce import max as _max, min as _min

_NULL = ffi.NULL
_TAKE_MODES = {"raise": lib.HK_TAKE_RAISE, "wrap": lib.HK_TAKE_WRAP, "clip": lib.HK_TAKE_CLIP}


def _indices(name, indices):
    if isinstance(indices, ndarray):
        if indices.dtype.kind not in "iu":
            raise IndexError(f"{name}: arrays used as indices must be of integer (or boolean) type")
        return indices if indices.dtype == _INT64 else indices.astype(_INT64)
    host = np.asarray(indices)
    if host.dtype.kind not in "iu" and host.size:
        raise IndexError(f"{name}: arrays used as indices must be of integer (or boolean) type")
    return asarray(host.astype(np.int64))


@_on_data
def take(a, indices, axis=None, out=None, mode="raise", *, stream=None):
    """numpy.take: elements of `a` at `indices` along `axis` (None: the
    flattened array). mode 'raise' (the default) waits for the GPU to learn
    whether an index was out of range (IndexError); 'wrap' and 'clip' do not."""
    a = _array_arg("take", a)
    if mode not in _TAKE_MODES:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    idx = _indices("take", indices)
    if axis is None:
        a, axis = a.ravel(), 0
    axis = _layout.normalize_axis(axis, builtins.max(a.ndim, 1)) if a.ndim else _layout.normalize_axis(axis, 1)
    if a.ndim == 0:
        a = a.reshape(1)
    shape = a.shape[:axis] + idx.shape + a.shape[axis + 1:]
    _layout._check_ndim(len(shape))
    if out is not None and (not isinstance(out, ndarray) or out.shape != shape or out.dtype != a.dtype):
        raise ValueError(f"take: out must be a hipkit.ndarray of shape {shape} and dtype {a.dtype}")
    _check_device("take", a, idx, *([out] if out is not None else []))
    target = out if out is not None and not _overlaps(out, a) and not _overlaps(out, idx) else \
        ndarray._empty(shape, a.dtype)
    try:
        check(lib.hk_take(_desc(a), _desc(idx), axis, _desc(target), _TAKE_MODES[mode], _stream_handle(stream)))
    except InvalidArgumentError as error:
        if "out of" in str(error) or "bounds" in str(error):
            raise IndexError(str(error)) from None
        raise
    if out is not None and target is not out:
        _copy_into(out, target, stream)
        return out
    return target


@_on_data
def nonzero(a):
    """The indices of the non-zero elements, one int64 array per dimension, computed on the device.
    Waits for the device to count them: the result's size depends on the data. The arrays are the rows
    of one (a.ndim, count) array, filled by one compaction of the mask (hk_mask_positions)."""
    a = _array_arg("nonzero", a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
                         "instead.")
    rows = _positions(_flags(a), a.ndim)
    return tuple(rows[d] for d in range(a.ndim))


def _flags(a):
    """a as a bool mask: itself when bool, else a != 0."""
    return a if a.dtype == _BOOL else not_equal(a, 0)


def _positions(mask, k):
    """hk_mask_positions into a new (k, count) int64 array: k == mask.ndim gives the coordinates of the
    true elements (one row per dimension), k == 1 their flat C-order positions. Waits for the device to
    count them (hk_mask_count)."""
    count = ffi.new("int64_t *")
    check(lib.hk_mask_count(_desc(mask), count, _NULL))
    out = ndarray._empty((k, count[0]), _INT64)
    if count[0] and k:
        check(lib.hk_mask_positions(_desc(mask), _desc(out), _NULL))
    return out


def _select(a, mask):
    """a[mask] for a bool mask of a's shape: the selected elements in C order, 1-d, computed on the device
    (hk_mask_select), only their count read back (hk_mask_count, which waits for the device)."""
    count = ffi.new("int64_t *")
    check(lib.hk_mask_count(_desc(mask), count, _NULL))
    out = ndarray._empty((count[0],), a.dtype)
    if count[0]:
        check(lib.hk_mask_select(_desc(a), _desc(mask), _desc(out), _NULL))
    return out


def _flat_nonzero(a):
    """The flat C-order positions of a's non-zero elements (int64, 1-d), computed on the device."""
    return _positions(_flags(a), 1)[0]


@_on_data
def flatnonzero(a):
    """The flat positions of the non-zero elements of a (int64). Waits for the device to count them."""
    return _flat_nonzero(_array_arg("flatnonzero", a))


def where(condition, x=None, y=None, /, *, out=None, stream=None):
    """x where condition is true, y elsewhere (broadcast); with only a
    condition, NumPy's nonzero(condition) (waits for the GPU)."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return _ufunc_general(_OPS["where"], (condition, x, y), out, stream)


where = _fast(_OPS["where"], 0, where)  # where(condition, x, y) in C (native/elementwise.c)


def _split_key(key):
    """(basic part with the advanced index replaced by ':', axis of the advanced index, the index) for a key
    with exactly one advanced (array or list) index; None otherwise."""
    items = key if isinstance(key, tuple) else (key,)
    advanced = [i for i, item in enumerate(items) if isinstance(item, (ndarray, np.ndarray, list))
                or type(item) is bool or isinstance(item, np.bool_)]
    if len(advanced) != 1:
        return None
    pos = advanced[0]
    if builtins.any(item is Ellipsis or item is None for item in items[:pos]):
        return None
    basic = items[:pos] + (slice(None),) + items[pos + 1:]
    return basic, pos, items[pos]


def _zero_d_bool(key):
    """The value of a 0-d boolean index used alone (True, np.True_, a 0-d bool array, or one in a 1-tuple),
    else None. A hipkit array's value is read back: it decides the result's size."""
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, (bool, np.bool_)):
        return bool(key)
    if isinstance(key, (ndarray, np.ndarray)) and key.ndim == 0 and np.dtype(key.dtype) == _BOOL:
        return bool(key.item())
    return None


@_on_data
def _advanced_get(x, key):
    """x[key] for one integer or boolean array index (the rest basic): a gather (take). A boolean array
    alone may have any number of dimensions up to x's, matching x's leading axes (the array API's boolean
    indexing): 0-d, x[True] (a new axis of 1) and x[False] (of 0); otherwise x's leading axes flattened into
    one and taken at the mask's nonzero positions."""
    flag = _zero_d_bool(key)
    if flag is not None:
        return x[None].copy() if flag else ndarray._empty((0,) + x.shape, x.dtype)
    if isinstance(key, (ndarray, np.ndarray)) and np.dtype(key.dtype) == _BOOL and 0 in key.shape and \
            key.ndim <= x.ndim and builtins.all(k in (n, 0) for k, n in zip(key.shape, x.shape)):
        # an empty mask selects nothing: the array API lets each of its extents be x's or 0
        return ndarray._empty((0,) + x.shape[key.ndim:], x.dtype)
    if isinstance(key, (ndarray, np.ndarray)) and np.dtype(key.dtype) == _BOOL and key.shape == x.shape \
            and x.ndim:
        mask = key if isinstance(key, ndarray) else asarray(key)
        _check_device("boolean indexing", x, mask)
        return _select(x, mask)
    if isinstance(key, (ndarray, np.ndarray)) and np.dtype(key.dtype) == _BOOL and 1 < key.ndim < x.ndim:
        if key.shape != x.shape[:key.ndim]:
            raise IndexError(f"boolean index of shape {key.shape} did not match the leading axes of the indexed "
                             f"array, of shape {x.shape}")
        mask = key if isinstance(key, ndarray) else asarray(key)
        _check_device("boolean indexing", x, mask)
        rows = x.reshape((-1,) + x.shape[key.ndim:])
        return take(rows, _flat_nonzero(mask), axis=0, mode="clip")
    split = _split_key(key)
    if split is None:
        return _advanced_get_general(x, key)
    basic, axis, index = split
    view = x[basic]
    if isinstance(index, (ndarray, np.ndarray)) and np.dtype(index.dtype) == _BOOL or \
            isinstance(index, list) and index and builtins.all(type(i) is bool for i in index):
        mask = index if isinstance(index, ndarray) else asarray(np.asarray(index, dtype=bool))
        if mask.ndim != 1 or mask.shape[0] != view.shape[axis]:
            raise IndexError(f"boolean index did not match indexed array along axis {axis}; size of axis is "
                             f"{view.shape[axis]} but size of corresponding boolean axis is {mask.shape[-1]}")
        index = flatnonzero(mask)
    # Integers before the advanced index removed axes: count them.
    items = basic if isinstance(basic, tuple) else (basic,)
    removed = builtins.sum(1 for item in items[:axis] if not isinstance(item, slice))
    return take(view, index, axis=axis - removed)


# ---------------------------------------------------------------- advanced assignment and put

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
    low, high = int(_min(ix).item()), int(_max(ix).item())
    if low >= -size and high < size:
        return
    host = ix.get().ravel()
    bad = host[(host < -size) | (host >= size)][0]
    raise IndexError(f"index {int(bad)} is out of bounds for axis {axis} with size {size}")


def advanced_set(x, key, value):
    """x[key] = value for keys with integer or boolean arrays (see the module's docstring)."""
    flag = _zero_d_bool(key)
    if flag is not None:  # x[True] = value sets every element, x[False] = value none (value checked either way)
        values = _broadcast_value(_value_array(value, x.dtype), (int(flag),) + x.shape)
        if flag:
            x[...] = values[0]
        return
    items = key if isinstance(key, tuple) else (key,)
    # A mask of x's shape with one value: a where, without waiting for the GPU.
    if len(items) == 1 and isinstance(items[0], ndarray) and items[0].dtype == _BOOL and \
            items[0].shape == x.shape and x.ndim and (not isinstance(value, ndarray) or value.size == 1):
        one = _value_array(value, x.dtype)
        if one.size == 1:
            where(items[0], one.reshape(()), x, out=x)
            return
        value = one
    view, entries, arrays, index_shape, result, tags = _index_plan(x, key)
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
    flat = _flat_positions(view, entries, arrays, index_shape, tags)
    if flat.shape != values.shape:  # the terms did not cover every dimension (extents of 1)
        flat = flat._broadcast_to(values.shape)
    put_raw(view, values, flat, lib.HK_PUT_FLAT, lib.HK_TAKE_WRAP)


def _index_plan(x, key):
    """What a key with integer or boolean arrays selects (NumPy's advanced indexing, every combination):
    (view: x with every slice applied and the array axes whole, the parsed entries, the array entries,
    the broadcast shape of the index arrays, the indexing result's shape (None axes included) and a tag
    per result dimension: "index", "slice" or "new")."""
    entries = _parse(x, key)
    # The basic part: every slice applied, array axes kept whole.
    view = x[tuple(e[1] if e[0] == "slice" else slice(None) for e in entries if e[0] != "new")]
    if not builtins.any(e[0] == "array" for e in entries):  # only ints and slices: basic after all
        raise AssertionError("advanced indexing called with a basic key")
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
    return view, entries, arrays, index_shape, result, tags


def _flat_positions(view, entries, arrays, index_shape, tags):
    """The C-order positions in `view` of the elements several array indices select, one per result
    dimension (tags without "new"): the indices checked, normalised and combined, plus, along each slice
    dimension, that axis's positions."""
    steps = _layout.contiguous_strides(view.shape)
    flat = None
    for e in arrays:
        ix = e[1]
        if not e[3]:
            _check_bounds(ix, view.shape[e[2]], e[2])
            ix = remainder(ix, view.shape[e[2]])
        term = multiply(ix, steps[e[2]])
        flat = term if flat is None else add(flat, term)
    first = tags.index("index") if index_shape else len(tags)
    flat = flat.reshape((1,) * first + index_shape + (1,) * (len(tags) - first - len(index_shape)))
    slice_dims = [d for d, t in enumerate(tags) if t == "slice"]
    slice_axes = [e[2] for e in entries if e[0] == "slice"]
    for d, axis in zip(slice_dims, slice_axes):
        shape = [1] * len(tags)
        shape[d] = view.shape[axis]
        flat = add(flat, multiply(_arange(view.shape[axis]), steps[axis]).reshape(tuple(shape)))
    return flat


def _advanced_get_general(x, key):
    """x[key] for any mix of integer and boolean arrays, ints, slices, ... and None (NumPy's and the array
    API 2024.12's rules: the index arrays broadcast; their dimensions replace theirs when they are adjacent,
    else come first): a gather from a C-contiguous copy of the sliced view at the combined positions."""
    view, entries, arrays, index_shape, result, tags = _index_plan(x, key)
    kept = [t for t in tags if t != "new"]
    shape = tuple(n for n, t in zip(result, tags) if t != "new")
    if math.prod(shape) == 0:
        for e in arrays:  # NumPy still checks the indices
            if not e[3]:
                _check_bounds(e[1], x.shape[e[2]], e[2])
        return ndarray._empty(tuple(result), x.dtype)
    flat = _flat_positions(view, entries, arrays, index_shape, kept)
    if flat.shape != shape:
        flat = flat._broadcast_to(shape)
    source = view if view._contiguous else view.copy()
    return take(source.reshape(-1), flat.copy() if not flat._contiguous else flat, axis=0,
                mode="clip").reshape(tuple(result))


def _arange(n):
    return arange(n, dtype=np.int64)


@_on_data
def put(a, ind, v, mode="raise", *, stream=None):
    """numpy.put: a.flat[ind] = v, in place on `a` (any view; its C-order positions). v is converted
    to a's dtype and repeated as needed (NumPy's rule); mode 'raise' waits for the GPU to learn
    whether an index is out of range (IndexError, nothing written), 'wrap' and 'clip' do not."""
    if not isinstance(a, ndarray):
        raise TypeError(f"put() argument 1 must be a hipkit.ndarray, not {type(a).__name__}")
    if mode not in _TAKE_MODES:
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
        values = values.reshape(())._broadcast_to(idx.shape) if values.size == 1 else \
            take(values, _arange(idx.size), mode="wrap", stream=stream)
    put_raw(a, values, idx, lib.HK_PUT_FLAT, _TAKE_MODES[mode], stream)


@_on_data
def _advanced_set(x, key, value):
    """x[key] = value with integer or boolean array indices: a scatter (hk_put), see advanced_set."""
    advanced_set(x, key, value)


# ---------------------------------------------------------------- methods on ndarray

def _install_methods():
    """ndarray's take, put and nonzero, bound straight to the functions above, and the advanced paths of
    its indexing: _getitem_slow and __setitem__ (hipkit.array) hand an advanced key to _advanced_get and
    _advanced_set."""
    g = globals()
    for name in ("take", "put", "nonzero"):
        setattr(ndarray, name, g[name])
    ndarray._advanced_get, ndarray._advanced_set = _advanced_get, _advanced_set


_install_methods()
