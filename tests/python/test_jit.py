"""@hipkit.jit: kernels written in Python, translated to HIP C++ and run on the current device (a GPU or the
CPU device), checked against NumPy on fresh random data: the Numba-style vector add, a block-wise
reduction in shared memory with syncthreads, a histogram with atomics, a 2-D grid (a matrix transpose),
every construct of the subset (arithmetic with Python's //, % and **, comparisons, loops, math functions,
casts, strided and N-d arrays, device functions, local arrays), and every refusal, whose message names the
Python file and line."""
import math

import numpy as np
import pytest

import hipkit

pytestmark = pytest.mark.user_kernels
THIS = __file__


@hipkit.jit
def vector_add(a, b, c):
    idx = hipkit.grid(1)
    if idx < a.size:
        c[idx] = a[idx] + b[idx]


def test_vector_add_over_a_million(rng):
    n = 1_000_003
    a, b = rng.random(n).astype(np.float32), rng.random(n).astype(np.float32)
    da, db = hipkit.asarray(a), hipkit.asarray(b)
    dc = hipkit.full(n, np.nan, dtype=np.float32)
    threads = 256
    vector_add[(n + threads - 1) // threads, threads](da, db, dc)
    np.testing.assert_array_equal(dc.get(), a + b)
    dc.fill(np.nan)
    vector_add.forall(n)(da, db, dc)
    np.testing.assert_array_equal(dc.get(), a + b)
    # another dtype: another specialisation of the same function
    ia, ib = rng.integers(-100, 100, 1000), rng.integers(-100, 100, 1000)
    out = hipkit.zeros(1000, dtype=np.int64)
    vector_add.forall(1000)(hipkit.asarray(ia), hipkit.asarray(ib), out)
    np.testing.assert_array_equal(out.get(), ia + ib)


@hipkit.jit
def block_sum(x, partial):
    tile = hipkit.shared.array(256, hipkit.float32)
    t = hipkit.threadIdx.x
    i = hipkit.grid(1)
    tile[t] = x[i] if i < x.size else 0.0
    hipkit.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        hipkit.syncthreads()
        step //= 2
    if t == 0:
        partial[hipkit.blockIdx.x] = tile[0]


def test_shared_memory_reduction(rng):
    n = 100_000
    x = rng.random(n).astype(np.float32)
    blocks = (n + 255) // 256
    partial = hipkit.full(blocks, np.nan, dtype=np.float32)
    block_sum[blocks, 256](hipkit.asarray(x), partial)
    want = np.add.reduceat(np.pad(x, (0, blocks * 256 - n)).astype(np.float64), np.arange(0, blocks * 256, 256))
    np.testing.assert_allclose(partial.get(), want, rtol=1e-5)


@hipkit.jit
def histogram(values, bins, counts):
    i = hipkit.grid(1)
    stride = hipkit.gridsize(1)
    while i < values.size:
        b = int(values[i] * bins)
        if b >= bins:
            b = bins - 1
        hipkit.atomic.add(counts, b, 1)
        i += stride


def test_histogram_with_atomics(rng):
    x = rng.random(200_001)
    counts = hipkit.zeros(17, dtype=np.int32)
    histogram[64, 128](hipkit.asarray(x), 17, counts)
    want = np.bincount(np.minimum((x * 17).astype(np.int64), 16), minlength=17)
    np.testing.assert_array_equal(counts.get(), want)


@hipkit.jit
def transpose(a, out):
    x, y = hipkit.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


def test_two_d_grid_transpose(rng):
    a = rng.standard_normal((301, 177)).astype(np.float64)
    out = hipkit.full((177, 301), np.nan)
    transpose[((177 + 15) // 16, (301 + 15) // 16), (16, 16)](hipkit.asarray(a), out)
    np.testing.assert_array_equal(out.get(), a.T)
    # a strided (non-contiguous) view as the input: another specialisation, indexing by strides
    big = rng.standard_normal((602, 177))
    view = hipkit.asarray(big)[::2]
    out2 = hipkit.full((177, 301), np.nan)
    transpose[((177 + 15) // 16, (301 + 15) // 16), (16, 16)](view, out2)
    np.testing.assert_array_equal(out2.get(), big[::2].T)


@hipkit.jit(device=True)
def clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@hipkit.jit
def constructs(a, ints, out, iout, k):
    i = hipkit.grid(1)
    if i >= a.size:
        return
    v = a[i]
    acc = 0.0
    for j in range(3):
        acc += v * j
    for j in range(10, 0, -3):
        acc -= j
    m = ints[i]
    q = m // 7
    r = m % 7
    p = (m % 5) ** 2
    s = -m if m < 0 and not (m == -1) else m
    t = min(m, 3, k) + max(abs(m), 2)
    w = math.sqrt(abs(v)) + math.exp(-v * v) + hipkit.sin(v) + math.floor(v) + math.pi
    c = clamp(v, -0.5, 0.5)
    f = float(m) / 4
    e = 1 if 0 < v <= 0.5 else (2 if v > 0.5 else 3)
    out[i, 0] = acc
    out[i, 1] = w
    out[i, 2] = c
    out[i, 3] = f
    out[i, 4] = e
    out[i, 5] = hipkit.float32(v) * 2.0
    iout[i, 0] = q
    iout[i, 1] = r
    iout[i, 2] = p
    iout[i, 3] = s
    iout[i, 4] = t
    iout[i, 5] = (m & 12) | (m >> 2) ^ 1
    iout[i, -1] = len(a)


def test_every_construct_matches_numpy(rng):
    n = 1031
    a = rng.standard_normal(n)
    ints = rng.integers(-50, 50, n)
    out = hipkit.full((n, 6), np.nan)
    iout = hipkit.full((n, 7), -999, dtype=np.int64)
    constructs.forall(n)(hipkit.asarray(a), hipkit.asarray(ints), out, iout, 4)
    want = np.empty((n, 6))
    want[:, 0] = a * 3 - (10 + 7 + 4 + 1)
    want[:, 1] = np.sqrt(np.abs(a)) + np.exp(-a * a) + np.sin(a) + np.floor(a) + np.pi
    want[:, 2] = np.clip(a, -0.5, 0.5)
    want[:, 3] = ints / 4
    want[:, 4] = np.where((a > 0) & (a <= 0.5), 1, np.where(a > 0.5, 2, 3))
    want[:, 5] = a.astype(np.float32) * 2.0
    np.testing.assert_allclose(out.get(), want, rtol=1e-12, atol=1e-12)
    iw = np.empty((n, 7), np.int64)
    iw[:, 0] = ints // 7
    iw[:, 1] = ints % 7
    iw[:, 2] = (ints % 5) ** 2
    iw[:, 3] = np.where((ints < 0) & (ints != -1), -ints, ints)
    iw[:, 4] = np.minimum(np.minimum(ints, 3), 4) + np.maximum(np.abs(ints), 2)
    iw[:, 5] = (ints & 12) | (ints >> 2) ^ 1
    iw[:, 6] = n
    np.testing.assert_array_equal(iout.get(), iw)


@hipkit.jit
def three_d(a, out):
    i, j = hipkit.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        total = 0.0
        scratch = hipkit.local.array(4, hipkit.float64)
        for k in range(a.shape[2]):
            scratch[k % 4] = a[i, j, k]
            total += scratch[k % 4] * (k + 1)
        out[i, j] = total


def test_three_d_arrays_and_local_arrays(rng):
    a = rng.standard_normal((9, 13, 6))
    out = hipkit.full((9, 13), np.nan)
    three_d[(2, 4), (8, 4)](hipkit.asarray(a), out)
    np.testing.assert_allclose(out.get(), (a * np.arange(1, 7)).sum(axis=2), rtol=1e-12)


@hipkit.jit
def atomics(x, hi, lo, total):
    i = hipkit.grid(1)
    if i < x.size:
        hipkit.atomic.max(hi, 0, x[i])
        hipkit.atomic.min(lo, 0, x[i])
        hipkit.atomic.add(total, 0, 1)


def test_atomic_max_min_on_floats(rng):
    x = rng.standard_normal(5000).astype(np.float32)
    hi, lo = hipkit.full(1, -np.inf, dtype=np.float32), hipkit.full(1, np.inf, dtype=np.float32)
    total = hipkit.zeros(1, dtype=np.uint64)
    atomics.forall(x.size)(hipkit.asarray(x), hi, lo, total)
    assert hi.get()[0] == x.max() and lo.get()[0] == x.min() and total.get()[0] == x.size


def test_generated_source_and_specialisations():
    a = hipkit.zeros(4)
    src = vector_add.inspect_source(a, a, a)
    assert 'extern "C" __global__ void vector_add' in src and "#line" in src and "test_jit.py" in src
    assert vector_add.specialize(a, a, a) is vector_add.specialize(a, a, a)


# ---------------------------------------------------------------- refusals, with the Python line

def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return first + k
    raise AssertionError(text)


def _refused(fn, args, phrase, marker):
    with pytest.raises(hipkit.JitError) as info:
        fn.forall(1)(*args)
    message = str(info.value)
    assert phrase in message, message
    assert f"test_jit.py:{_line_of(fn.fn, marker)}:" in message, message


@hipkit.jit
def uses_a_list(a):
    xs = [1, 2, 3]  # refused: lists
    a[0] = xs[0]


@hipkit.jit
def uses_try(a):
    try:  # refused: try
        a[0] = 1
    except Exception:
        pass


@hipkit.jit
def slices(a):
    a[0:2] = 1  # refused: slices


@hipkit.jit
def wrong_index_count(a):
    a[0, 1] = 1  # refused: 2 indices of a 1-d array


@hipkit.jit
def float_index(a):
    a[1.5] = 1  # refused: a float index


@hipkit.jit
def unknown_name(a):
    a[0] = undefined_thing  # noqa: F821  refused: unknown name


@hipkit.jit
def calls_python(a):
    a[0] = print(1)  # refused: print


@hipkit.jit
def returns_value(a):
    return 1  # refused: kernels return nothing


@hipkit.jit
def changes_kind(a):
    x = 1
    x = a  # refused: a number then an array
    x[0] = 2


@hipkit.jit
def loops_over_array(a):
    for v in a:  # refused: for over an array
        pass


@hipkit.jit
def kw_range(a):
    for i in range(0, 10, 0):  # refused: zero step
        a[0] = i


@hipkit.jit
def shared_shape(a, n):
    s = hipkit.shared.array(n, hipkit.float32)  # refused: run-time shape
    s[0] = 1
    a[0] = s[0]


REFUSALS = [
    (uses_a_list, "lists are not supported", "refused: lists"),
    (uses_try, "'try' is not supported", "refused: try"),
    (slices, "slices are not supported", "refused: slices"),
    (wrong_index_count, "has 1 dimension; index it with 1 integer", "refused: 2 indices"),
    (float_index, "array indices are integers", "refused: a float index"),
    (unknown_name, "name undefined_thing is not defined", "refused: unknown name"),
    (calls_python, "print cannot be called in a jit function", "refused: print"),
    (returns_value, "a kernel returns nothing", "refused: kernels return"),
    (changes_kind, "a variable keeps one kind of value", "refused: a number then an array"),
    (loops_over_array, "for loops run over range(...) only", "refused: for over an array"),
    (kw_range, "step must not be zero", "refused: zero step"),
    (shared_shape, "must be known when the kernel is compiled", "refused: run-time shape"),
]


@pytest.mark.parametrize("fn, phrase, marker", REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_refusals_name_the_python_line(fn, phrase, marker):
    args = (hipkit.zeros(4),) if fn is not shared_shape else (hipkit.zeros(4), 3)
    _refused(fn, args, phrase, marker)


def test_launch_errors():
    a = hipkit.zeros(4)
    with pytest.raises(TypeError, match="launch it as vector_add\\[grid, block\\]"):
        vector_add(a, a, a)
    with pytest.raises(ValueError, match="kernel\\[grid, block\\]"):
        vector_add[1](a, a, a)
    with pytest.raises(TypeError, match="NumPy array"):
        vector_add.forall(4)(np.zeros(4), a, a)
    with pytest.raises(hipkit.JitError, match="takes 3 arguments but 2 were given"):
        vector_add.forall(4)(a, a)
    with pytest.raises(TypeError, match="is a device function"):
        clamp[1, 1](1.0, 0.0, 2.0)
    assert clamp(5.0, 0.0, 2.0) == 2.0  # plain Python outside kernels
    with pytest.raises(hipkit.JitError, match="only meaningful inside"):
        hipkit.grid(1)


def _generated_sources():
    """Every kernel above specialised for typical arguments: (name, C++)."""
    a32, a64, i64 = hipkit.zeros(8, dtype=np.float32), hipkit.zeros(8), hipkit.zeros(8, dtype=np.int64)
    cases = [(vector_add, (a32, a32, a32)), (block_sum, (a32, a32)),
             (histogram, (a64, 17, hipkit.zeros(17, dtype=np.int32))),
             (transpose, (hipkit.zeros((3, 4)), hipkit.zeros((4, 3)))),
             (transpose, (hipkit.zeros((6, 4))[::2], hipkit.zeros((4, 3)))),
             (constructs, (a64, i64, hipkit.zeros((8, 6)), hipkit.zeros((8, 7), dtype=np.int64), 4)),
             (three_d, (hipkit.zeros((2, 3, 4)), hipkit.zeros((2, 3)))),
             (atomics, (a32, a32, a32, hipkit.zeros(1, dtype=np.uint64))),
             (special_values, (a32, a32, hipkit.zeros(8, dtype=np.int32))),
             (special_values, (a64, a64, hipkit.zeros(8, dtype=np.int32)))]
    return [(fn.__name__, fn.inspect_source(*args)) for fn, args in cases]


TARGETS = {"nvidia": ("sm_75", "sm_90"), "amd": ("gfx90a", "gfx1030")}


@pytest.mark.parametrize("target", TARGETS[hipkit.platform()])
def test_generated_kernels_compile_for_each_vendor_target(target):
    """The generated C++ compiles for the build's vendor targets (AMD: wave64 gfx90a and wave32
    gfx1030) with its run-time compiler, whether or not such a GPU is here."""
    for name, source in _generated_sources():
        program = hipkit.kernel.compile(source, target, name=name + ".hip")
        assert program.target == target and len(program.binary) > 0, name


def test_the_example_runs():
    """examples/python_kernels.py (the README's example of this section) exits 0: its results match NumPy."""
    import os
    import subprocess
    import sys
    example = os.path.join(os.path.dirname(THIS), "..", "..", "examples", "python_kernels.py")
    done = subprocess.run([sys.executable, example], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "matches NumPy" in done.stdout


@hipkit.jit
def scale(x, k, out):
    i = hipkit.grid(1)
    if i < x.size:
        out[i] = x[i] * k / 2


def test_switching_specialisations_between_launches(rng):
    """The C launch tries the specialisation launched last; arguments of another (dtype, ndim, contiguity,
    an int where a float was) go by key to their own, every time."""
    xf = rng.standard_normal(1000)
    xi = rng.integers(-50, 50, 1000)
    big = rng.standard_normal(2000)
    cases = [(hipkit.asarray(xf), 3, xf * 3 / 2), (hipkit.asarray(xi), 3, xi * 3 / 2),
             (hipkit.asarray(xf), 2.5, xf * 2.5 / 2), (hipkit.asarray(big)[::2], 3, big[::2] * 3 / 2),
             (hipkit.asarray(xi), True, xi * 1 / 2), (hipkit.asarray(xf), 3, xf * 3 / 2)]
    for _ in range(2):
        for x, k, want in cases:
            out = hipkit.full(1000, np.nan)
            scale[4, 256](x, k, out)
            np.testing.assert_allclose(out.get(), want, rtol=1e-12, err_msg=f"{x.dtype} {type(k).__name__}")
    with pytest.raises(hipkit.JitError, match="takes 3 arguments but 2 were given"):
        scale[4, 256](hipkit.asarray(xf), 3)


@hipkit.jit
def special_values(x, out, flags):
    i = hipkit.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.inf if v > 1.0 else (-math.inf if v < -1.0 else (math.nan if v == 0.0 else v))
        flags[i] = 1 * math.isnan(out[i]) + 2 * math.isinf(out[i]) + 4 * math.isfinite(out[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_infinities_and_nans(dtype):
    x = np.array([2.0, -2.0, 0.0, 0.5, -0.25], dtype)
    out = hipkit.zeros(5, dtype=dtype)
    flags = hipkit.zeros(5, dtype=np.int32)
    special_values.forall(5)(hipkit.asarray(x), out, flags)
    np.testing.assert_array_equal(out.get(), np.array([np.inf, -np.inf, np.nan, 0.5, -0.25], dtype))
    np.testing.assert_array_equal(flags.get(), [2, 2, 1, 4, 4])


_CACHED_MODULE = """
import hipkit
SCALE = {scale}

@hipkit.jit
def scaled(x, n):
    i = hipkit.grid(1)
    if i < n:
        x[i] = x[i] * SCALE + 1.0
"""

_CACHED_CHILD = r"""
import importlib, sys
import numpy as np
import hipkit
from hipkit.kernel import _jit
hipkit.kernel.set_cache_dir(sys.argv[2])
sys.path.insert(0, sys.argv[1])
translated = []
emit = _jit._Translator.emit
def counting(self, *args):
    translated.append(1)
    return emit(self, *args)
_jit._Translator.emit = counting
module = importlib.import_module("cached_jit_module")
x = hipkit.asarray(np.arange(8, dtype=np.float32))
module.scaled.forall(8)(x, 8)
print(len(translated), x.get().tolist())
"""


def test_a_new_process_reuses_the_translation_and_a_changed_constant_does_not(tmp_path):
    """The translation's disk cache: the second process launching the same kernel translates nothing; a
    global constant changed in the source is another translation (the key holds the values it reads)."""
    import subprocess
    import sys
    cache = tmp_path / "cache"
    cache.mkdir()

    def run(scale):
        (tmp_path / "cached_jit_module.py").write_text(_CACHED_MODULE.format(scale=scale))
        done = subprocess.run([sys.executable, "-c", _CACHED_CHILD, str(tmp_path), str(cache)],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        count, values = done.stdout.split(" ", 1)
        return int(count), eval(values)  # noqa: S307 (a list of floats printed by the child)

    want = lambda s: [i * s + 1.0 for i in range(8)]  # noqa: E731
    assert run(2.0) == (1, want(2.0))
    assert run(2.0) == (0, want(2.0))  # from the cache: no translation
    assert len(list((cache / "jit").iterdir())) == 1
    assert run(3.0) == (1, want(3.0))  # SCALE changed: translated again, the right result
    assert run(3.0) == (0, want(3.0))
    # an entry whose key does not match (a damaged or colliding file) is translated again, not trusted
    for entry in (cache / "jit").iterdir():
        entry.write_text("not the key\n\0\npointer\nnot C++")
    assert run(3.0) == (1, want(3.0))
