"""View arithmetic for hipkit.ndarray: the logic layer, not yet wired in.

Pure functions on the three numbers that describe a strided view in the C
API's `hk_array`: `shape`, `strides` and `offset`, where strides and offset
count ELEMENTS (not bytes; a stride may be negative or 0) and offset is the
element offset of the view's first element from its allocation's start. They
compute what NumPy computes for the same operation (which view, or which
error), so hipkit.ndarray can build views (basic indexing, reshape,
transpose, broadcasting, ...) without a GPU round trip. Nothing here touches
memory or imports the cffi module, so it is tested on any machine.

Errors are NumPy's: same exception types (IndexError, ValueError, TypeError,
numpy.exceptions.AxisError) and messages worded like NumPy's. One addition:
hipkit arrays have at most HK_MAX_DIMS = 32 dimensions (the array API's
minimum; NumPy allows 64), and a result with more raises ValueError.
"""
import operator

import numpy as np
from numpy.exceptions import AxisError

from . import _native

__all__ = [
    "MAX_DIMS", "broadcast_shapes", "broadcast_strides", "is_basic_index", "basic_index",
    "resolve_reshape", "reshape_view", "transpose", "swapaxes", "squeeze", "expand_dims",
    "normalize_axis", "is_c_contiguous", "contiguous_strides", "extent",
]

MAX_DIMS = _native.MAX_DIMS  # HK_MAX_DIMS in hipkit.h: the size of hk_array's shape[]/strides[]


def _check_ndim(ndim):
    if ndim > MAX_DIMS:
        raise ValueError(f"hipkit arrays have at most {MAX_DIMS} dimensions, this one would have {ndim}")


def _as_shape(shape, what="shape"):
    """A tuple of non-negative Python ints (accepts one int, like NumPy)."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    shape = tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed in {what} {shape}")
    _check_ndim(len(shape))
    return shape


def _as_view(shape, strides):
    shape = _as_shape(shape)
    strides = tuple(operator.index(s) for s in strides)
    if len(strides) != len(shape):
        raise ValueError(f"strides {strides} do not match shape {shape}: need one stride per dimension")
    return shape, strides


def _size(shape):
    size = 1
    for n in shape:
        size *= n
    return size


# --------------------------------------------------------------- axes

def _normalize_one(axis, ndim):
    axis = operator.index(axis)  # TypeError for floats, as NumPy
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)  # "axis 3 is out of bounds for array of dimension 2"
    return axis % ndim


def normalize_axis(axis, ndim, allow_duplicate=False):
    """An axis (int) or axes (tuple/list) made non-negative, checked against
    `ndim`: AxisError when out of range, ValueError("repeated axis") for a
    duplicate unless `allow_duplicate`. An int gives an int, a sequence a tuple."""
    if isinstance(axis, (tuple, list)):
        axes = tuple(_normalize_one(a, ndim) for a in axis)
        if not allow_duplicate and len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        return axes
    return _normalize_one(axis, ndim)


# --------------------------------------------------------------- contiguity and extent

def contiguous_strides(shape):
    """C-order strides in elements. A 0-length dimension counts as 1, as in
    NumPy's reshape (so (2, 0, 3) gives (3, 3, 1), never a zero stride)."""
    shape = _as_shape(shape)
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def is_c_contiguous(shape, strides):
    """NumPy's C_CONTIGUOUS flag: empty arrays are contiguous, and the stride
    of a length-1 dimension does not matter (it is never used)."""
    shape, strides = _as_view(shape, strides)
    return _native.is_c_contiguous(shape, strides)  # the rule the arrays use (native/array.c)


def extent(shape, strides, offset):
    """(first, last_exclusive): the element offsets a view touches lie in
    [first, last_exclusive). Empty views touch nothing: (offset, offset)."""
    shape, strides = _as_view(shape, strides)
    if 0 in shape:
        return (offset, offset)
    lo = hi = offset
    for n, s in zip(shape, strides):
        reach = (n - 1) * s
        if reach < 0:
            lo += reach
        else:
            hi += reach
    return (lo, hi + 1)


# --------------------------------------------------------------- broadcasting

def broadcast_shapes(*shapes):
    """NumPy's broadcast_shapes: align at the right, a 1 stretches to the other length."""
    shapes = [_as_shape(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for i, shape in enumerate(shapes):
        for k, n in enumerate(shape, start=ndim - len(shape)):
            if n == result[k] or n == 1:
                continue
            if result[k] == 1:
                result[k] = n
                continue
            # Name the first argument that set this dimension, as NumPy does.
            j = next(j for j, s in enumerate(shapes[:i])
                     if len(s) >= ndim - k and s[k - ndim + len(s)] == result[k])
            raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch "
                             f"is between arg {j} with shape {shapes[j]} and arg {i} with shape {shape}.")
    return tuple(result)


def broadcast_strides(shape, strides, target_shape):
    """Strides of the view `shape`/`strides` broadcast to `target_shape`
    (np.broadcast_to): new leading dimensions and stretched 1s get stride 0."""
    shape, strides = _as_view(shape, strides)
    target = _as_shape(target_shape)
    lead = len(target) - len(shape)
    ok = lead >= 0 and all(n == t or n == 1 for n, t in zip(shape, target[lead:]))
    if not ok:
        raise ValueError(f"cannot broadcast an array of shape {shape} to shape {target}")
    # Length-1 input dimensions get stride 0 even where the target keeps them
    # at 1: np.broadcast_to does the same (the stride is never used there).
    return (0,) * lead + tuple(0 if n == 1 else s for n, s in zip(shape, strides))


# --------------------------------------------------------------- basic indexing

_INDEX_TYPE_MESSAGE = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                       "and integer or boolean arrays are valid indices")


def _is_bool(obj):
    return isinstance(obj, (bool, np.bool_))


def _is_integer(obj):
    """An integer index: int, numpy integer, or anything with __index__ except
    bools (a bool index is a mask in NumPy) and arrays (0-d integer arrays
    index like arrays in NumPy: they copy)."""
    if _is_bool(obj) or isinstance(obj, np.ndarray):
        return False
    if isinstance(obj, (int, np.integer)):
        return True
    return hasattr(type(obj), "__index__") and not _is_array_like(obj)


def _is_array_like(obj):
    if isinstance(obj, np.generic):
        return False  # NumPy scalars have __array__ but index as scalars
    return (isinstance(obj, (list, np.ndarray)) or hasattr(obj, "__array__")
            or hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__"))


def _key_tuple(key):
    # NumPy treats only a real tuple as several indices; a list is an index array.
    return key if isinstance(key, tuple) else (key,)


def is_basic_index(key):
    """False when `key` holds an advanced index (an integer or boolean array,
    a list, a bool): the array must route it to gather / mask code. True
    otherwise, including for invalid keys (a float), which basic_index then
    rejects with NumPy's IndexError."""
    for item in _key_tuple(key):
        if _is_bool(item) or _is_array_like(item):
            return False
    return True


def basic_index(shape, strides, offset, key):
    """(shape, strides, offset) of the view `view[key]` for a basic `key`:
    ints (negative from the end), slices, `...`, None (np.newaxis) and
    tuples of these. Mirrors NumPy's mapping.c, including its error order:
    every item is parsed first (bad types, a second `...`), then the count
    is checked (too many indices), then items are applied left to right
    (an int out of range, a zero slice step). Like NumPy, an empty slice
    keeps the original stride and does not move the offset."""
    shape, strides = _as_view(shape, strides)
    items = _key_tuple(key)

    # Parse: classify every item before touching any dimension.
    kinds = []
    for item in items:
        if item is None:
            kinds.append("new")
        elif item is Ellipsis:
            if "ellipsis" in kinds:
                raise IndexError("an index can only have a single ellipsis ('...')")
            kinds.append("ellipsis")
        elif isinstance(item, slice):
            kinds.append("slice")
        elif _is_integer(item):
            kinds.append("int")
        elif _is_bool(item) or _is_array_like(item):
            raise TypeError("basic_index got an advanced index (array, list or bool); "
                            "check is_basic_index(key) first")
        else:
            raise IndexError(_INDEX_TYPE_MESSAGE)

    used = sum(k in ("int", "slice") for k in kinds)
    if used > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {used} were indexed")
    if "ellipsis" not in kinds:
        items, kinds = items + (Ellipsis,), kinds + ["ellipsis"]  # trailing dims are kept whole

    new_shape, new_strides, dim = [], [], 0
    for item, kind in zip(items, kinds):
        if kind == "new":
            new_shape.append(1)
            new_strides.append(0)  # NumPy gives inserted axes stride 0
        elif kind == "ellipsis":
            fill = len(shape) - used
            new_shape.extend(shape[dim:dim + fill])
            new_strides.extend(strides[dim:dim + fill])
            dim += fill
        elif kind == "int":
            i, n = operator.index(item), shape[dim]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
            offset += (i % n) * strides[dim]
            dim += 1
        else:
            # slice.indices raises NumPy's TypeError (float bounds) and ValueError (step 0).
            start, stop, step = item.indices(shape[dim])
            length = len(range(start, stop, step))
            if length == 0:
                start, step = 0, 1  # NumPy: an empty slice points at the start, stride unchanged
            offset += start * strides[dim]
            new_shape.append(length)
            new_strides.append(strides[dim] * step)
            dim += 1
    _check_ndim(len(new_shape))
    return tuple(new_shape), tuple(new_strides), offset


# --------------------------------------------------------------- reshape

def resolve_reshape(size, new_shape):
    """`new_shape` with its unknown dimension (-1) filled in, checked against
    `size` elements; ValueError as NumPy's otherwise. As in NumPy, any
    negative length counts as the unknown one."""
    if isinstance(new_shape, (int, np.integer)) and not _is_bool(new_shape):
        new_shape = (new_shape,)
    new_shape = tuple(operator.index(n) for n in new_shape)
    unknown = [i for i, n in enumerate(new_shape) if n < 0]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = _size(n for n in new_shape if n >= 0)
    mismatch = ValueError(f"cannot reshape array of size {size} into shape {new_shape}")
    if unknown:
        if known == 0 or size % known:
            raise mismatch
        new_shape = new_shape[:unknown[0]] + (size // known,) + new_shape[unknown[0] + 1:]
    elif known != size:
        raise mismatch
    _check_ndim(len(new_shape))
    return new_shape


def reshape_view(shape, strides, offset, new_shape):
    """Strides of `view.reshape(new_shape)` (C order) when NumPy would make
    it a view, else None (NumPy would copy). The offset never changes; the
    resolved shape is resolve_reshape(size, new_shape). Follows NumPy's
    PyArray_Newshape: the same shape keeps its strides; a C-contiguous view
    gets contiguous strides; otherwise _attempt_nocopy_reshape decides."""
    shape, strides = _as_view(shape, strides)
    del offset  # part of the signature for symmetry; a reshape view starts where the array does
    if isinstance(new_shape, (int, np.integer)) and not _is_bool(new_shape):
        new_shape = (new_shape,)
    new_shape = tuple(operator.index(n) for n in new_shape)
    if new_shape == shape:  # checked before -1 is resolved, as in NumPy
        return strides
    new_shape = resolve_reshape(_size(shape), new_shape)
    if is_c_contiguous(shape, strides):
        return contiguous_strides(new_shape)
    return _attempt_nocopy_reshape(shape, strides, new_shape)


def _attempt_nocopy_reshape(shape, strides, new_shape):
    """NumPy's shape.c algorithm (C order): walk old and new dimensions in
    groups of equal product; each old group must be contiguous within
    itself to be split into the new group. Length-1 old dimensions are
    dropped (their strides are meaningless). Only reached for non-empty,
    non-contiguous views, so every length here is >= 1."""
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    olddims = [n for n, _ in old]
    oldstrides = [s for _, s in old]
    newstrides = [0] * len(new_shape)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new_shape) and oi < len(olddims):
        np_, op = new_shape[ni], olddims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new_shape[nj]  # trailing 1s of the new shape are handled below
                nj += 1
            else:
                op *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):  # the old group must be contiguous to merge
            if oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                return None
        newstrides[nj - 1] = oldstrides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            newstrides[nk - 1] = newstrides[nk] * new_shape[nk]
        ni, oi = nj, oj
        nj, oj = nj + 1, oj + 1
    last = newstrides[ni - 1] if ni >= 1 else 1
    for nk in range(ni, len(new_shape)):
        newstrides[nk] = last
    return tuple(newstrides)


# --------------------------------------------------------------- axis permutations

def transpose(shape, strides, axes=None):
    """(shape, strides) with the axes permuted (reversed when axes is None)."""
    shape, strides = _as_view(shape, strides)
    ndim = len(shape)
    if axes is None:
        axes = tuple(range(ndim - 1, -1, -1))
    else:
        axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)  # a.transpose(0) on 1-d
        if len(axes) != ndim:
            raise ValueError("axes don't match array")
        axes = tuple(_normalize_one(a, ndim) for a in axes)
        if len(set(axes)) != ndim:
            raise ValueError("repeated axis in transpose")
    return tuple(shape[a] for a in axes), tuple(strides[a] for a in axes)


def swapaxes(shape, strides, axis1, axis2):
    shape, strides = _as_view(shape, strides)
    a, b = _normalize_one(axis1, len(shape)), _normalize_one(axis2, len(shape))
    order = list(range(len(shape)))
    order[a], order[b] = b, a
    return transpose(shape, strides, order)


def squeeze(shape, strides, axis=None):
    """(shape, strides) without the length-1 axes (all, or those in `axis`);
    the other strides are kept, as NumPy's squeeze is a plain view."""
    shape, strides = _as_view(shape, strides)
    if axis is None:
        drop = {i for i, n in enumerate(shape) if n == 1}
    elif not shape and not isinstance(axis, (tuple, list)) and operator.index(axis) in (0, -1):
        return (), ()  # NumPy accepts axis 0 or -1 (not a tuple) on a 0-d array
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        axes = [_normalize_one(a, len(shape)) for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        if any(shape[a] != 1 for a in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        drop = set(axes)
    keep = [i for i in range(len(shape)) if i not in drop]
    return tuple(shape[i] for i in keep), tuple(strides[i] for i in keep)


def expand_dims(shape, strides, axis):
    """(shape, strides) with length-1 axes inserted at `axis` (int or tuple,
    positions in the result). NumPy implements expand_dims as a reshape, so
    the strides are reshape_view's (always a view)."""
    shape, strides = _as_view(shape, strides)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out_ndim = len(shape) + len(axes)
    axes = normalize_axis(tuple(axes), out_ndim)
    _check_ndim(out_ndim)
    it = iter(shape)
    new_shape = tuple(1 if i in axes else next(it) for i in range(out_ndim))
    return new_shape, reshape_view(shape, strides, 0, new_shape)
