"""Lazy mode: elementwise expressions recorded as a graph and run as one generated kernel when a result is
needed, instead of one kernel (and one pass over memory) per operator.

    with hipkit.lazy():
        d = a * x + y * b - c      # recorded: d has its shape and dtype, its value is pending
        e = hipkit.sqrt(d) * 2.0
    # leaving the block runs what is pending: here two fused kernels (d is still referenced, so it is
    # written; the temporaries a * x, y * b, ... never are)

What is recorded: the op table's elementwise functions and operators (hipkit.add, a + b, hipkit.sin(x), -x,
...) called with hipkit arrays and numbers, without out= or stream=, in a thread where lazy mode is on
(`with hipkit.lazy():`, or every thread after hipkit.set_lazy(True) or with HIPKIT_LAZY=1 in the
environment). A recorded op returns a new array at once (its memory taken from the pool), whose value
is pending.

When pending work runs: before anything else reads or writes array data, so results and their order are
the eager ones. The binding's C entries (reductions, scans, sorts, matmul, copies, astype, get(), item(),
indexing that reads data, assignment, kernel launches, concatenate, elementwise ops that are not recorded:
out=, stream=, in-place operators) check one flag first (hkp_settle, bindings/python/native/native.h);
every Python path reaches memory through an array's ._data or .ptr (DLPack, __cuda_array_interface__,
the cffi calls), whose getters check it too; synchronize(), Stream/Event query, record and synchronize
do; leaving a `with hipkit.lazy():` block does; and so does recording a graph of more than _LIMIT ops.
hipkit.lazy.flush() runs it by hand.

What is fused: the part of an expression whose ops compute in float32 or float64 — + - * / ** , negative,
absolute, square, reciprocal, the comparisons, isnan/isinf/isfinite and the math functions that
@hipkit.jit knows (sqrt, exp, log, sin, arctan2, hypot, ...) — when every array in it is C-contiguous and
of the result's shape (numbers are kernel arguments, so a loop over scalar values reuses one kernel).
Each value still referenced by the program is written; values referenced only inside the graph are not.
Everything else (integer arithmetic, maximum/minimum, broadcasting arrays, strided views, complex,
float16) runs op by op through the eager kernels: always the eager result, only not fused. Fused float
arithmetic may differ from the eager kernels in the last bit: the compiler contracts a * b + c into one
fused multiply-add.

Compile latency: the first time an expression (its ops and its operands' dtypes) is seen, it runs op by
op while its kernel compiles on a background thread; from the next time on the kernel runs.
hipkit.lazy(background=False) compiles in the calling thread instead (tests, benchmarks).

Why it is not the default: recording costs a few microseconds of Python per op, more than the eager C
path, so a small-array loop gets slower; the README says so with the measured figures.
"""
import atexit
import linecache
import os
import threading
import weakref

import numpy as np

from . import _native
from .array import _current_device, _on, empty as _empty, ndarray
from ._ops import elementwise as _elementwise
from .kernel._fuse import Fused, _scalar_type

__all__ = ["lazy", "set_lazy"]

_LIMIT = 64  # pending ops at most: then the graph runs (one kernel's parameters, compile time)
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_BOOL = np.dtype(np.bool_)

_ROWS = {row.op: row for row in _elementwise._OPS.values()}
_FUNCTIONS = {row.op: getattr(_elementwise, row.name) for row in _ROWS.values() if row.arity < 3}

# How a fused op reads as a line of the @hipkit.jit subset ({0}, {1}: its operands, already cast to the
# loop dtype); ops not listed run eagerly.
_TEMPLATES = {"add": "({0} + {1})", "subtract": "({0} - {1})", "multiply": "({0} * {1})", "divide": "({0} / {1})",
              "power": "({0} ** {1})", "equal": "({0} == {1})", "not_equal": "({0} != {1})", "less": "({0} < {1})",
              "less_equal": "({0} <= {1})", "greater": "({0} > {1})", "greater_equal": "({0} >= {1})",
              "negative": "(-{0})", "absolute": "abs({0})", "square": "({0} * {0})", "reciprocal": "(1.0 / {0})"}
for _name in ("exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh",
              "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "erf", "floor", "ceil", "trunc",
              "isnan", "isinf", "isfinite"):
    _TEMPLATES[_name] = f"hipkit.{_name}({{0}})"
for _name in ("arctan2", "hypot", "copysign", "fmod"):
    _TEMPLATES[_name] = f"hipkit.{_name}({{0}}, {{1}})"
del _name


class _Node:
    """One recorded op: its op code, operands (_Node, ndarray or number), the array it returns (a weak
    reference: once the program drops it, the value lives only inside the graph), its dtypes and shape."""
    __slots__ = ("op", "args", "ref", "loop", "dtype", "shape")

    def __init__(self, op, args, out, loop, dtype, shape):
        self.op, self.args, self.ref, self.loop, self.dtype, self.shape = op, args, weakref.ref(out), loop, dtype, shape


class _Local(threading.local):
    def __init__(self):
        self.stack = []         # this thread's `with lazy(...)` blocks, innermost last: (enabled, background)
        self.busy = False       # running the graph: ops run eagerly
        self.background = False  # a compile thread: it never runs another thread's graph


_local = _Local()
_lock = threading.RLock()
_pending: list = []    # recorded nodes, in program order
_by_id: dict = {}      # id(pending array) -> its node (checked against node.ref: ids are reused)
# outside any block: (record, compile in the background), set_lazy's (HIPKIT_LAZY=1 at import)
_default = [os.environ.get("HIPKIT_LAZY", "").strip().lower() in ("1", "true", "yes", "on"), True]
_recording = [0]  # threads recording (the C flag): with the default on, 1 more
_fused: dict = {}      # source of an expression's function -> Fused
_kernels: dict = {}    # (source, argument kinds) -> "ready", "compiling" or "failed"
_threads: list = []    # compile threads still running (joined at exit)
_RULES: dict = {}     # (op, operand kinds) -> (loop dtype, result dtype), _loop_dtypes' answer
_stats = {"recorded": 0, "fused": 0, "eager": 0, "compiles": 0, "flushes": 0}
_READY, _COMPILING, _FAILED = "ready", "compiling", "failed"


def _publish():
    _native.lazy_state(_recording[0] + (1 if _default[0] else 0), 1 if _pending else 0)


def _record(op, *operands):
    """Called by the elementwise C path (bindings/python/native/elementwise.c) for each call it would run
    while some thread records: the op's pending result, or NotImplemented for the eager path."""
    local = _local
    if local.busy or not (local.stack[-1][0] if local.stack else _default[0]):
        return NotImplemented
    device = _current_device()
    key, shapes = [op], []
    for x in operands:
        if isinstance(x, ndarray):
            if x._device != device:
                return NotImplemented
            shapes.append(x.shape)
            key.append(x._hk_dtype)
        elif type(x) in (bool, int, float, complex):
            key.append(type(x))
        elif isinstance(x, np.generic) and x.dtype.kind in "biufc":
            key.append(x.dtype)
        else:
            return NotImplemented
    if not shapes:
        return NotImplemented
    key = tuple(key)
    rule = _RULES.get(key)
    try:
        if rule is None:
            rule = _RULES[key] = _elementwise._loop_dtypes(_ROWS[op], list(operands))
        elif int in key:  # the value of a Python int must fit the loop's dtype (NumPy 2's OverflowError)
            _elementwise._loop_dtypes(_ROWS[op], list(operands))
        shape = shapes[0] if len(shapes) == 1 or all(s == shapes[0] for s in shapes) else \
            tuple(np.broadcast_shapes(*shapes))
    except Exception:  # the eager path raises NumPy's error (or handles what is exact, int8 < 300)
        return NotImplemented
    loop, dtype = rule
    if 0 in shape:
        return NotImplemented
    args = []
    for x in operands:
        node = _by_id.get(id(x)) if isinstance(x, ndarray) else None
        args.append(node if node is not None and node.ref() is x else x)
    out = _empty(shape, dtype)
    with _lock:
        node = _Node(op, tuple(args), out, loop, dtype, shape)
        _pending.append(node)
        _by_id[id(out)] = node
        _stats["recorded"] += 1
        if len(_pending) == 1:
            _publish()
        if len(_pending) >= _LIMIT:
            flush()
    return out


def flush() -> None:
    """Runs every recorded op whose result the program still holds (and what those need)."""
    local = _local
    if local.background or local.busy:  # not this thread's to run now: the flag stays up
        if _pending:
            _publish()
        return
    with _lock:
        if not _pending:
            _publish()
            return
        nodes = _pending[:]
        _pending.clear()
        _by_id.clear()
        _publish()
        _stats["flushes"] += 1
        local.busy = True
        try:
            _run(nodes)
        finally:
            local.busy = False


def _run(nodes):
    done = {}  # node -> the array holding its value
    for node in nodes:
        target = node.ref()
        if target is None:
            continue  # only inside the graph: computed where a live value needs it
        with _on(target._device):  # on the device it was recorded on, whichever thread runs it
            _materialise(node, target, done)
        done[node] = target


def _materialise(node, target, done):
    leaves, index = [], {}
    text, fusable, count = _expression(node, done, leaves, index)
    if fusable and count >= 2 and all(not isinstance(x, ndarray) or (x._contiguous and x.shape == target.shape)
                                      for x in leaves):
        kinds = tuple((x._hk_dtype, True) if isinstance(x, ndarray) else _scalar_type(x) for x in leaves)
        source = _source(text, len(leaves))
        key = (source, kinds)
        state = _kernels.get(key)
        if state is None:
            state = _compile(key, leaves, target)
        if state is _READY:
            try:
                _fused[source](*leaves, out=target)
                _stats["fused"] += 1
                return
            except Exception:  # never a wrong answer: this expression runs eagerly from now on
                _kernels[key] = _FAILED
    _eager(node, done, target)


def _expression(node, done, leaves, index):
    """(text of node's value over leaves x0, x1, ...; whether every op in it fuses; how many ops)."""
    row = _ROWS[node.op]
    template = _TEMPLATES.get(row.name)
    fusable = template is not None and node.loop in _FLOATS and (node.dtype in _FLOATS or node.dtype == _BOOL)
    parts, count = [], 1
    for x in node.args:
        if isinstance(x, _Node) and x not in done:
            text, ok, n = _expression(x, done, leaves, index)
            fusable, count, dtype = fusable and ok, count + n, x.dtype
        else:
            value = done[x] if isinstance(x, _Node) else x
            key = id(value) if isinstance(value, ndarray) else None
            position = index.get(key) if key is not None else None
            if position is None:
                position = len(leaves)
                leaves.append(value)
                if key is not None:
                    index[key] = position
            text = f"x{position}"
            if isinstance(value, ndarray):
                dtype = value.dtype
            elif isinstance(value, np.generic):
                dtype = value.dtype
            elif type(value) is complex:
                fusable, dtype = False, None
            else:
                dtype = None  # a Python number: weak, it takes the other operand's type (NEP 50)
        if dtype is not None and dtype != node.loop:
            text = f"hipkit.{node.loop.name}({text})"
        parts.append(text)
    return (template.format(*parts) if template else ""), fusable, count


def _source(text, count):
    """The scalar function of an expression, made once per text (hipkit.fuse compiles it per operand kinds)."""
    source = f"def lazy_expression({', '.join(f'x{i}' for i in range(count))}):\n    return {text}\n"
    if source not in _fused:
        filename = f"<hipkit lazy expression {len(_fused)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # @jit reads it
        namespace = {"hipkit": _hipkit()}
        exec(compile(source, filename, "exec"), namespace)
        _fused[source] = Fused(namespace["lazy_expression"], name=f"lazy{len(_fused)}")
    return source


def _hipkit():
    import sys
    return sys.modules["hipkit"]


def _compile(key, leaves, target):
    """Starts compiling the kernel of `key` (on a background thread when the block asked for it); its state."""
    _kernels[key] = _COMPILING
    _stats["compiles"] += 1
    # one-element stand-ins of the same kinds: the first call of the Fused builds, compiles and loads them
    args = [ndarray._empty((1,), x.dtype) if isinstance(x, ndarray) else x for x in leaves]
    out = ndarray._empty((1,), target.dtype)
    device = target._device
    background = _local.stack[-1][1] if _local.stack else _default[1]
    if not background:
        _build(key, args, out, device)
        return _kernels[key]
    thread = threading.Thread(target=_build, args=(key, args, out, device), name="hipkit-lazy-compile")
    _threads.append(thread)
    thread.start()
    return _COMPILING


def _build(key, args, out, device):
    local = _local
    local.background = True
    try:
        with _on(device):
            _fused[key[0]](*args, out=out)
        _kernels[key] = _READY
    except Exception:
        _kernels[key] = _FAILED
    finally:
        local.background = False


def _eager(node, done, target):
    args = []
    for x in node.args:
        if isinstance(x, _Node):
            value = done.get(x)
            if value is None:
                value = done[x] = _eager(x, done, None)
            x = value
        args.append(x)
    _stats["eager"] += 1
    fn = _FUNCTIONS[node.op]
    return fn(*args) if target is None else fn(*args, out=target)


class lazy:
    """`with hipkit.lazy():` records elementwise expressions in this thread and runs them fused when a
    result is needed (see hipkit._lazy); leaving the block runs what is pending. lazy(False) turns it off
    inside a block; background=False compiles a new expression's kernel before running it instead of
    running it op by op meanwhile."""

    def __init__(self, enabled: bool = True, *, background: bool = True) -> None:
        self.enabled, self.background = bool(enabled), bool(background)

    def __enter__(self) -> "lazy":
        local = _local
        with _lock:
            was = bool(local.stack and local.stack[-1][0])
            local.stack.append((self.enabled, self.background))
            if self.enabled and not was:
                _recording[0] += 1
            _publish()
        return self

    def __exit__(self, *exc: object) -> None:
        local = _local
        flush()  # inside the block still: its background= holds
        with _lock:
            now = local.stack.pop()[0]
            was = bool(local.stack and local.stack[-1][0])
            if now and not was:
                _recording[0] -= 1
            _publish()

    flush = staticmethod(flush)

    @staticmethod
    def stats() -> dict:
        """Counts since the start: ops recorded, fused kernels run, ops run eagerly, kernels compiled,
        flushes."""
        return dict(_stats)

    @staticmethod
    def enabled_here() -> bool:
        """Whether this thread records now."""
        return bool(_local.stack[-1][0] if _local.stack else _default[0])


def set_lazy(enabled: bool, *, background: bool = True) -> None:
    """Lazy mode for every thread outside `with hipkit.lazy(...)` blocks (HIPKIT_LAZY=1 sets it at import)."""
    with _lock:
        _default[0], _default[1] = bool(enabled), bool(background)
        _publish()
    if not enabled:
        flush()


def _exit():  # what is pending is dropped with the process; a compile still running is waited for
    for thread in _threads:
        thread.join()


_native.lazy_configure(_record, flush)
_publish()
atexit.register(_exit)

for _public in (lazy, set_lazy):
    _public.__module__ = "hipkit"
del _public
