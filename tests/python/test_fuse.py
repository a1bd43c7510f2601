"""hipkit.fuse / hipkit.vectorize: scalar Python functions applied element by element as one kernel, against
NumPy on fresh random data: the dense path (contiguous arrays of one shape), broadcasting, strided views,
Python numbers weak (NumPy 2), integer and mixed dtypes, out=, empty arrays, a 10-operation chain, device
functions and math inside, and the refusals (with the Python line)."""
import math

import numpy as np
import pytest

import hipkit

pytestmark = pytest.mark.user_kernels


@hipkit.fuse
def axpbyc(a, x, y, b, c):
    return a * x + y * b - c


@hipkit.fuse
def chain10(x, y):
    return ((((x * 1.5 + y) * 0.5 - x) / (y * y + 1.0)) + hipkit.sin(x) - math.exp(-y * y) + x * y) * 2.0 - 1.0


@hipkit.jit(device=True)
def relu(v):
    return v if v > 0 else 0.0


@hipkit.vectorize
def leaky(x, slope):
    return relu(x) + slope * min(x, 0.0)


@pytest.mark.parametrize("n", [1, 7, 1000, 4097, 1 << 20])
def test_dense_chain_matches_numpy(rng, n):
    x, y, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    got = axpbyc(2.0, hipkit.asarray(x), hipkit.asarray(y), 3.0, hipkit.asarray(c))
    assert got.dtype == np.float32  # Python numbers are weak
    np.testing.assert_allclose(got.get(), 2.0 * x + y * 3.0 - c, rtol=1e-6, atol=1e-6)
    want = ((((x * 1.5 + y) * 0.5 - x) / (y * y + 1.0)) + np.sin(x) - np.exp(-y * y) + x * y) * 2.0 - 1.0
    np.testing.assert_allclose(chain10(hipkit.asarray(x), hipkit.asarray(y)).get(), want, rtol=2e-5, atol=2e-5)


def test_broadcasting_views_and_out(rng):
    x = rng.standard_normal((33, 17))
    y = rng.standard_normal(17)
    c = rng.standard_normal((33, 1))
    dx, dy, dc = hipkit.asarray(x), hipkit.asarray(y), hipkit.asarray(c)
    np.testing.assert_allclose(axpbyc(0.5, dx, dy, -2, dc).get(), 0.5 * x + y * -2 - c, rtol=1e-12)
    # strided views take the general path
    np.testing.assert_allclose(axpbyc(1.0, dx[:32:2], dx[1::2], 1.0, dx[:32:2, ::-1]).get(),
                               x[:32:2] + x[1::2] - x[:32:2, ::-1], rtol=1e-12)
    out = hipkit.full((33, 17), np.nan)
    assert axpbyc(1.0, dx, dy, 1.0, dc, out=out) is out
    np.testing.assert_allclose(out.get(), x + y - c, rtol=1e-12)
    with pytest.raises(ValueError, match="out must be a hipkit array of shape"):
        axpbyc(1.0, dx, dy, 1.0, dc, out=hipkit.zeros(3))
    empty = axpbyc(1.0, hipkit.zeros((0, 4)), 2.0, 3.0, 1.0)
    assert empty.shape == (0, 4)


def test_integer_and_mixed_dtypes(rng):
    a = rng.integers(-100, 100, 1001).astype(np.int32)
    b = rng.integers(-100, 100, 1001).astype(np.int64)
    got = axpbyc(3, hipkit.asarray(a), hipkit.asarray(b), 2, 7)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.get(), 3 * a + b * 2 - 7)
    f = rng.standard_normal(1001).astype(np.float32)
    got = axpbyc(1, hipkit.asarray(a), hipkit.asarray(f), 1, 0)  # int32 with float32: float64 (NumPy)
    assert got.dtype == np.result_type(np.int32, np.float32)
    np.testing.assert_allclose(got.get(), a + f.astype(np.float64), rtol=1e-12)


def test_vectorize_with_a_device_function(rng):
    x = rng.standard_normal(5000)
    np.testing.assert_allclose(leaky(hipkit.asarray(x), 0.1).get(), np.maximum(x, 0) + 0.1 * np.minimum(x, 0),
                               rtol=1e-12)


@hipkit.fuse
def not_elementwise(x):
    return hipkit.sum(x)  # refused: a reduction


@hipkit.fuse
def returns_nothing(x):
    y = x * 2  # noqa: F841  refused: no return


def test_refusals():
    x = hipkit.zeros(4)
    with pytest.raises(hipkit.JitError, match=r"test_fuse.py:\d+: in not_elementwise: hipkit.sum cannot be called"):
        not_elementwise(x)
    with pytest.raises(hipkit.JitError, match="must return a number"):
        returns_nothing(x)
    with pytest.raises(TypeError, match="NumPy array"):
        axpbyc(1.0, np.zeros(3), x, 1.0, x)
    with pytest.raises(TypeError, match="at least one hipkit array"):
        axpbyc(1.0, 2.0, 3.0, 4.0, 5.0)


@hipkit.reduce(identity=0)
def add_reduce(a, b):
    return a + b


@hipkit.reduce(identity=-math.inf)
def max_reduce(a, b):
    return a if a > b else b


@hipkit.reduce(identity=1)
def mul_mod(a, b):
    return (a * b) % 1000003


@pytest.mark.parametrize("n", [0, 1, 255, 256, 8193, 1 << 20])
def test_reduce_matches_numpy(rng, n):
    x = rng.standard_normal(n)
    got = add_reduce(hipkit.asarray(x))
    assert got.shape == () and got.dtype == np.float64
    np.testing.assert_allclose(float(got), x.sum(), rtol=1e-9, atol=1e-9)
    assert float(max_reduce(hipkit.asarray(x))) == (x.max() if n else -np.inf)
    xi = rng.integers(1, 1000, n)
    want = 1
    for v in xi.tolist():
        want = want * v % 1000003
    assert int(mul_mod(hipkit.asarray(xi))) == want


def test_reduce_refusals():
    with pytest.raises(TypeError, match="needs identity="):
        hipkit.reduce(lambda a, b: a + b)
    with pytest.raises(TypeError, match="reduces a hipkit array"):
        add_reduce(np.zeros(3))
