"""ElementwiseKernel and ReductionKernel: parsing, broadcasting plans and the
generated source (no GPU needed), and results against NumPy on the current device
when it runs user kernels, else on a GPU (the user_kernels marker, conftest.py)."""
import numpy as np
import pytest

import hipkit
from hipkit import kernel

TARGET = kernel.default_target()

AXPY2 = ("float32 x, float32 y", "float32 z", "z = x * 2 + y", "axpy2")


# ------------------------------------------------------ parsing (no GPU)

@pytest.mark.parametrize("in_params, out_params, match", [
    ("float32 x, float16 y", "float32 z", "float16"),
    ("float32 x y", "float32 z", "<type> <name>"),
    ("float32", "float32 z", "<type> <name>"),
    ("float32 i", "float32 z", "cannot name"),
    ("float32 n", "float32 z", "cannot name"),
    ("float32 _x", "float32 z", "cannot name"),
    ("float32 x, float32 x", "float32 z", "twice"),
    ("float32 x", "float32 x", "same name"),
    ("float32 x", "", "at least one output"),
])
def test_bad_parameter_lists_are_refused(in_params, out_params, match):
    with pytest.raises(ValueError, match=match):
        hipkit.ElementwiseKernel(in_params, out_params, "z = x", "k")


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="identifier"):
        hipkit.ElementwiseKernel("float32 x", "float32 z", "z = x", "not a name")
    with pytest.raises(ValueError, match="cannot name"):
        hipkit.ReductionKernel("float32 a", "float32 y", "a", "a + b", "y = a", "0", "r")
    with pytest.raises(ValueError, match="reduce_type"):
        hipkit.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "r", reduce_type="float16")
    with pytest.raises(ValueError, match="exactly one output"):
        hipkit.ReductionKernel("float32 x", "float32 y, float32 z", "x", "a + b", "y = a", "0", "r")


# ---------------------------------------------- broadcasting plans (no GPU)

def emulate_offsets(ew, descs, shape):
    """Each input's element offset for every output index, computed as the
    generated kernel computes it, from the plan's roles, sizes and strides."""
    roles, ndim, extra = ew._layout(descs, shape)
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    dims = [None] + list(extra[:max(ndim - 1, 0)])
    strides = iter(np.array(extra[max(ndim - 1, 0):], dtype=np.int64).reshape(-1, ndim) if ndim else [])
    offsets = []
    for role in roles:
        if role == "same":
            offsets.append(i)
        elif role == "bcast":
            s, r, off = next(strides), i.copy(), np.zeros(n, np.int64)
            for d in range(ndim - 1, 0, -1):
                off += (r % dims[d]) * s[d]
                r //= dims[d]
            offsets.append(off + r * s[0])
        else:
            offsets.append(None)
    return roles, offsets


@pytest.mark.parametrize("shapes", [
    [(5,), (5,)], [(3, 4), (4,)], [(3, 4), (3, 1)], [(2, 1, 4), (3, 1)], [(5, 1), (1, 6)], [(), (7,)],
    [(1,), (9,)], [(2, 3, 4, 5), (3, 1, 5)], [(1, 3, 1), (2, 1, 4)], [(4, 1, 1, 3), (1, 1, 2, 3)],
    [(2, 3), (1, 2, 3)], [(2, 1, 3, 1, 2, 1, 2, 2), (2, 2, 3, 1, 2, 2, 1, 2)],
])
def test_broadcast_offsets_match_numpy(shapes):
    ew = hipkit.ElementwiseKernel(*AXPY2)
    shape = np.broadcast_shapes(*shapes)
    roles, offsets = emulate_offsets(ew, tuple(shapes), shape)
    for s, role, off in zip(shapes, roles, offsets):
        expected = np.broadcast_to(np.arange(int(np.prod(s))).reshape(s), shape).ravel()
        np.testing.assert_array_equal(off, expected)
        assert (role == "same") == (int(np.prod(s)) == int(np.prod(shape)))


def test_equal_shapes_need_no_index_math():
    source = hipkit.ElementwiseKernel(*AXPY2).source_for((3, 4), (3, 4))
    assert "_in_x[i]" in source and "_in_y[i]" in source and "%" not in source


def test_scalars_and_raw_inputs_are_parameters():
    ew = hipkit.ElementwiseKernel("float32 x, raw float32 t, int32 k", "float32 z", "z = x * k + t[0]", "mix")
    source = ew.source_for((5,), None, None)
    assert "const float *t" in source and "int k" in source and "const float x = _in_x[i];" in source


def test_source_is_cached_per_shape_signature():
    ew = hipkit.ElementwiseKernel(*AXPY2)
    assert ew.source_for((3, 4), (4,)) == ew.source_for((5, 6), (6,))  # same plan: broadcast over 2 dims
    assert ew.source_for((3, 4), (3, 4)) != ew.source_for((3, 4), (4,))


# ----------------------------------------- generated source compiles (no GPU)

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shapes", [[(5,), (5,)], [(3, 4), (4,)], [(2, 1, 4), (3, 1)], [(5,), None]])
def test_elementwise_source_compiles(dtype, shapes):
    ew = hipkit.ElementwiseKernel(f"{dtype} x, {dtype} y", f"{dtype} z, float64 w", "z = x * 2 + y; w = x",
                                  f"ew_{dtype}")
    program = kernel.compile(ew.source_for(*shapes), TARGET, name=f"ew_{dtype}.hip")
    assert len(program.binary) > 100


@pytest.mark.parametrize("dtype, reduce_expr, identity", [
    ("float32", "a + b", "0"), ("float64", "max(a, b)", "-INFINITY"), ("int32", "min(a, b)", "2147483647"),
    ("int64", "a + b", "0"), ("float32", "a > b ? a : b", "-INFINITY"),
])
def test_reduction_source_compiles(dtype, reduce_expr, identity):
    r = hipkit.ReductionKernel(f"{dtype} x, {dtype} w", f"{dtype} y", "x * w", reduce_expr, "y = a", identity,
                               f"r_{dtype}")
    for shapes in ([(7,), (7,)], [(3, 4), (4,)], [(9,), None]):
        assert len(kernel.compile(r.source_for(*shapes), TARGET).binary) > 100


def test_an_error_in_the_operation_is_a_compile_error():
    ew = hipkit.ElementwiseKernel("float32 x", "float32 z", "z = x +* 2", "oops")
    with pytest.raises(hipkit.CompileError, match="oops.hip"):
        kernel.compile(ew.source_for((3,)), TARGET, name="oops.hip")


# ---------------------------------------- argument checks (no GPU needed)

def test_a_subclass_keeps_its_class():
    """The generated call path replaces the class of plain ElementwiseKernels
    only; a user's subclass keeps its own (and its overrides)."""
    class Mine(hipkit.ElementwiseKernel):
        def describe(self):
            return "mine"
    k = Mine(*AXPY2)
    assert type(k) is Mine and k.describe() == "mine"
    plain = hipkit.ElementwiseKernel(*AXPY2)
    assert type(plain) is not hipkit.ElementwiseKernel and isinstance(plain, hipkit.ElementwiseKernel)
    assert type(plain) is type(hipkit.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a - b", "sub"))
    x, y = hipkit.empty((0, 3), np.float32), hipkit.empty((0, 1), np.float32)
    assert k(x, y).shape == (0, 3)


def test_empty_arrays_run_without_launching():
    ew = hipkit.ElementwiseKernel(*AXPY2)
    x, y = hipkit.empty((0, 3), np.float32), hipkit.empty((0, 1), np.float32)  # no device memory at all
    z = ew(x, y)
    assert z.shape == (0, 3) and z.dtype == np.float32
    assert ew(x, y, z) is z and ew(x, y, out=z) is z


@pytest.mark.parametrize("args, kwargs, error, match", [
    (lambda: (hipkit.empty(0, np.float64), hipkit.empty(0, np.float32)), {}, TypeError, "float32"),
    (lambda: (hipkit.empty(0, np.float32), hipkit.empty((0, 2), np.float32)), {}, ValueError, "broadcast"),
    (lambda: (hipkit.empty(0, np.float32),), {}, TypeError, "takes 2 inputs"),
    (lambda: (np.zeros(3, np.float32), hipkit.empty(0, np.float32)), {}, TypeError, "hipkit.asarray"),
    (lambda: (hipkit.empty(0, np.float32),) * 2, dict(out=hipkit.empty(0, np.float64)), ValueError, "dtype"),
    (lambda: (hipkit.empty((0, 3), np.float32),) * 2, dict(out=hipkit.empty((3, 0), np.float32)), ValueError,
     "broadcast"),
    (lambda: (hipkit.empty((2, 0), np.float32),) * 2, dict(out=hipkit.empty((0,), np.float32)), ValueError,
     "shape"),
    (lambda: (hipkit.empty(0, np.float32),) * 3, dict(out=hipkit.empty(0, np.float32)), TypeError, "twice"),
    (lambda: (hipkit.empty(0, np.float32),) * 2, dict(out=np.zeros(0, np.float32)), TypeError, "hipkit.ndarray"),
])
def test_template_arguments_are_checked(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        hipkit.ElementwiseKernel(*AXPY2)(*args(), **kwargs)


# ------------------------------------------------------------ launches

SIZES = [1, 7, 1000003]


def assert_close(got, expected):
    """Integers exactly; floats to a rounding, as the GPU may fuse a * b + c (FMA)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind == "f":
        rtol = 1e-6 if expected.dtype == np.float32 else 1e-15
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(got, expected)


def random_array(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-1000, 1000, shape).astype(dtype)


def poisoned(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return hipkit.asarray(np.full(shape, np.nan, dtype))
    return hipkit.asarray(np.full(shape, np.iinfo(dtype).min, dtype))


@pytest.mark.user_kernels
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_elementwise_matches_numpy(rng, n, dtype):
    name = np.dtype(dtype).name
    ew = hipkit.ElementwiseKernel(f"{name} x, {name} y", f"{name} z", "z = x * 3 - y", f"lin_{name}")
    x, y = random_array(rng, n, dtype), random_array(rng, n, dtype)
    z = poisoned(n, dtype)
    assert ew(hipkit.asarray(x), hipkit.asarray(y), z) is z
    assert_close(z.get(), x * dtype(3) - y)
    assert_close(ew(hipkit.asarray(x), hipkit.asarray(y)).get(), x * dtype(3) - y)


@pytest.mark.user_kernels
@pytest.mark.parametrize("shapes", [
    [(3, 4), (4,)], [(3, 4), (3, 1)], [(2, 1, 4), (3, 1)], [(5, 1), (1, 6)], [(), (7,)], [(1,), (1000003,)],
    [(1000, 1), (1, 1000)], [(2, 3, 4, 5), (3, 1, 5)], [(2, 1, 3, 1, 2, 1, 2, 2), (2, 2, 3, 1, 2, 2, 1, 2)],
])
def test_elementwise_broadcasts_as_numpy(rng, shapes):
    ew = hipkit.ElementwiseKernel(*AXPY2)
    x, y = (random_array(rng, s, np.float32) for s in shapes)
    expected = x * np.float32(2) + y
    out = poisoned(expected.shape, np.float32)
    ew(hipkit.asarray(x), hipkit.asarray(y), out=out)
    np.testing.assert_array_equal(out.get(), expected)
    np.testing.assert_array_equal(ew(hipkit.asarray(y), hipkit.asarray(x)).get(), y * np.float32(2) + x)


@pytest.mark.user_kernels
def test_scalar_arguments(rng):
    ew = hipkit.ElementwiseKernel("float32 x, float32 a, int32 k", "float32 z", "z = a * x + k", "scaled")
    x = random_array(rng, 1001, np.float32)
    assert_close(ew(hipkit.asarray(x), 1.5, 7).get(), np.float32(1.5) * x + np.float32(7))
    assert_close(ew(hipkit.asarray(x), np.float32(0.25), np.int64(-3)).get(), np.float32(0.25) * x - np.float32(3))
    with pytest.raises(OverflowError, match="int32"):
        ew(hipkit.asarray(x), 1.5, 2**40)
    with pytest.raises(TypeError, match="floating-point"):
        ew(hipkit.asarray(x), 1.5, 2.5)


@pytest.mark.user_kernels
def test_index_size_and_raw_inputs():
    ew = hipkit.ElementwiseKernel("raw float64 x", "float64 y, int64 k", "y = x[n - 1 - i]; k = i * 10 + n",
                                  "reverse")
    host = np.arange(1000, dtype=np.float64)
    y, k = poisoned(1000, np.float64), poisoned(1000, np.int64)
    ew(hipkit.asarray(host), y, k)
    np.testing.assert_array_equal(y.get(), host[::-1])
    np.testing.assert_array_equal(k.get(), np.arange(1000) * 10 + 1000)


@pytest.mark.user_kernels
def test_in_place_and_preamble(rng):
    ew = hipkit.ElementwiseKernel("float64 x", "float64 y", "y = square(x) + 1", "sq",
                                  preamble="__device__ double square(double v) { return v * v; }")
    host = random_array(rng, 5000, np.float64)
    x = hipkit.asarray(host)
    assert ew(x, x) is x
    assert_close(x.get(), host * host + 1)


@pytest.mark.user_kernels
def test_on_a_stream(rng):
    ew = hipkit.ElementwiseKernel(*AXPY2)
    x = random_array(rng, 1 << 20, np.float32)
    with hipkit.Stream() as stream:
        z = ew(hipkit.asarray(x), hipkit.asarray(x), stream=stream)
        np.testing.assert_array_equal(z.get(stream), x * np.float32(3))


def float_sum_tolerance(x):
    return 1e-5 * float(np.abs(x).sum(dtype=np.float64)) + 1e-6


@pytest.mark.user_kernels
@pytest.mark.parametrize("n", [0] + SIZES + [8192, 8193])
def test_reduction_sum_and_max(rng, n):
    total = hipkit.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "total")
    largest = hipkit.ReductionKernel("float32 x", "float32 y", "x", "max(a, b)", "y = a", "-INFINITY", "largest")
    host = random_array(rng, n, np.float32)
    x = hipkit.asarray(host)
    result = total(x)
    assert result.shape == () and result.dtype == np.float32
    assert float(result.get()) == pytest.approx(float(host.sum(dtype=np.float64)), abs=float_sum_tolerance(host))
    if n:
        assert largest(x).get() == host.max()
    else:
        assert largest(x).get() == -np.inf  # the identity


@pytest.mark.user_kernels
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_reductions_are_exact(rng, n, dtype):
    name = np.dtype(dtype).name
    info = np.iinfo(dtype)
    smallest = hipkit.ReductionKernel(f"{name} x", f"{name} y", "x", "min(a, b)", "y = a", str(info.max),
                                      f"smallest_{name}")
    total = hipkit.ReductionKernel(f"{name} x", "int64 y", "x", "a + b", "y = a", "0", f"total_{name}",
                                   reduce_type="int64")
    host = rng.integers(-10**6, 10**6, n).astype(dtype)
    x = hipkit.asarray(host)
    assert smallest(x).get() == host.min()
    assert total(x).get() == host.sum(dtype=np.int64)


@pytest.mark.user_kernels
def test_reduction_with_broadcast_inputs_and_post_map(rng):
    weighted_mean = hipkit.ReductionKernel("float64 x, float64 w", "float64 y", "x * w", "a + b", "y = a / n", "0",
                                           "weighted_mean")
    x, w = random_array(rng, (300, 77), np.float64), random_array(rng, (77,), np.float64)
    out = poisoned((), np.float64)
    assert weighted_mean(hipkit.asarray(x), hipkit.asarray(w), out) is out
    assert float(out.get()) == pytest.approx(float((x * w).mean()), rel=1e-9, abs=1e-12)
    l2 = hipkit.ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm",
                                reduce_type="float64")
    host = random_array(rng, 1000003, np.float32)
    assert float(l2(hipkit.asarray(host)).get()) == pytest.approx(float(np.linalg.norm(host.astype(np.float64))),
                                                                  rel=1e-6)


@pytest.mark.user_kernels
def test_reduction_axis_is_not_supported_yet():
    total = hipkit.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "total")
    with pytest.raises(NotImplementedError):
        total(hipkit.zeros((2, 2), np.float32), axis=0)


@pytest.mark.user_kernels
def test_repeated_calls_take_the_generated_path_and_still_check(rng):
    """After a first call of a shape, later calls of equal-shape contiguous
    arrays go through the generated __call__ (one frame): results, outputs
    and every refusal must stay what the full path gives."""
    ew = hipkit.ElementwiseKernel(*AXPY2)
    assert type(ew) is not hipkit.ElementwiseKernel and isinstance(ew, hipkit.ElementwiseKernel)
    shapes = [(7,), (3, 5), (7,), (1000,), (3, 5)]
    for _ in range(3):  # the first round fills the per-shape table, the next ones use it
        for shape in shapes:
            a = rng.standard_normal(shape).astype(np.float32)
            b = rng.standard_normal(shape).astype(np.float32)
            x, y = hipkit.asarray(a), hipkit.asarray(b)
            want = a * 2 + b
            np.testing.assert_allclose(ew(x, y).get(), want, rtol=1e-6)
            z = hipkit.full(shape, np.nan, np.float32)
            assert ew(x, y, out=z) is z
            np.testing.assert_allclose(z.get(), want, rtol=1e-6)
            z2 = hipkit.full(shape, np.nan, np.float32)
            assert ew(x, y, z2) is z2
            np.testing.assert_allclose(z2.get(), want, rtol=1e-6)
    assert all(any(shape in plans for plans in ew._fast_plans.values()) for shape in shapes)
    x, y = hipkit.asarray(np.arange(6, dtype=np.float32)), hipkit.asarray(np.ones(6, np.float32))
    np.testing.assert_array_equal(ew(x, y).get(), np.arange(6) * 2 + 1)
    with pytest.raises(TypeError, match="float64"):
        ew(x, hipkit.ones(6, np.float64))
    with pytest.raises(ValueError):
        ew(x, y, out=hipkit.empty(5, np.float32))
    with pytest.raises(ValueError):
        ew(x, y, out=hipkit.empty(6, np.float64))
    with pytest.raises(TypeError, match="twice"):
        ew(x, y, hipkit.empty(6, np.float32), out=hipkit.empty(6, np.float32))
    with pytest.raises(TypeError):
        ew(x)
    big = hipkit.asarray(np.arange(12, dtype=np.float32))
    np.testing.assert_array_equal(ew(big[::2], y).get(), np.arange(0, 12, 2) * 2 + 1)  # a strided view
    np.testing.assert_array_equal(ew(x, 3.0).get(), np.arange(6) * 2 + 3)  # a number
    np.testing.assert_array_equal(ew(x.reshape(2, 3), y[:3]).get(), (np.arange(6).reshape(2, 3) * 2 + 1))  # broadcast
    two = hipkit.ElementwiseKernel("int32 x", "int32 a, float64 b", "a = x + 1; b = x * 0.5", "two_outputs")
    xi = hipkit.asarray(np.arange(9, dtype=np.int32))
    for _ in range(2):
        a, b = two(xi)
        np.testing.assert_array_equal(a.get(), np.arange(9) + 1)
        np.testing.assert_array_equal(b.get(), np.arange(9) * 0.5)
        oa, ob = hipkit.empty(9, np.int32), hipkit.empty(9, np.float64)
        assert two(xi, oa, ob) == (oa, ob)
        np.testing.assert_array_equal(ob.get(), np.arange(9) * 0.5)
