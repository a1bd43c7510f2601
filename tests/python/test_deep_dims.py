"""Arrays of 9 to 32 dimensions (HK_MAX_DIMS) against NumPy: creation and reshape, views (transposes and
slices whose dimensions do not merge, deeper than a kernel layout's 8), elementwise ops with
broadcasting, reductions over any axes, scans, sorting, take, boolean masks, nonzero, matmul with deep
batches, setting through views, and the limit itself (33 dimensions refused with a sentence).
Op-semantics tests: they run on the current device (a GPU, else the CPU device)."""
import numpy as np
import pytest

import hipkit

# 10 dimensions of 2 and 3 (7776 elements): read reversed (a full transpose) none of them merge.
SHAPE = (2, 3, 2, 3, 2, 3, 2, 3, 2, 3)


def _pair(rng, shape=SHAPE, dtype=np.float32):
    host = rng.standard_normal(shape).astype(dtype)
    return host, hipkit.asarray(host)


def test_the_limit_is_32_dimensions():
    assert hipkit.__array_namespace_info__().capabilities()["max dimensions"] == 32
    x = hipkit.zeros((1,) * 32)
    assert x.ndim == 32 and x.shape == (1,) * 32
    with pytest.raises(ValueError, match="at most 32 dimensions"):
        hipkit.zeros((1,) * 33)
    with pytest.raises(ValueError, match="at most 32 dimensions"):
        x[None]
    with pytest.raises(ValueError, match="at most 32 dimensions"):
        hipkit.reshape(hipkit.zeros(1), (1,) * 33)


@pytest.mark.parametrize("ndim", [9, 16, 32])
def test_reshape_and_round_trip(rng, ndim):
    shape = tuple(int(e) for e in rng.integers(1, 3, ndim))
    host = rng.standard_normal(shape).astype(np.float32)
    x = hipkit.asarray(host)
    assert x.shape == shape
    np.testing.assert_array_equal(x.get(), host)
    flat = hipkit.reshape(x, (-1,))
    np.testing.assert_array_equal(hipkit.reshape(flat, shape).get(), host)
    # a 9-dimension reshape of a 1-d array (the array API suite's test_reshape)
    y = hipkit.reshape(hipkit.arange(16), (2, 2, 1, 2, 1, 1, 2, 1, 1))
    np.testing.assert_array_equal(y.get(), np.arange(16).reshape(2, 2, 1, 2, 1, 1, 2, 1, 1))


def test_transposed_views_in_elementwise_ops(rng):
    a, da = _pair(rng)
    b, db = _pair(rng)
    at, dat = a.T, da.T
    np.testing.assert_array_equal((dat + db.T).get(), at + b.T)
    np.testing.assert_array_equal((dat * 2.5 - 1).get(), at * np.float32(2.5) - 1)
    np.testing.assert_allclose(hipkit.sin(dat).get(), np.sin(at), rtol=1e-6, atol=1e-7)
    # broadcasting a deep view against a shallower array
    c = rng.standard_normal(SHAPE[::-1][-3:]).astype(np.float32)
    np.testing.assert_array_equal((dat + hipkit.asarray(c)).get(), at + c)
    # every other element of 9 dimensions of 4
    big = rng.standard_normal((4,) * 9).astype(np.float32)
    dbig = hipkit.asarray(big)
    key = (slice(None, None, 2),) * 9
    np.testing.assert_array_equal((dbig[key] * 3).get(), big[key] * 3)
    # writing through a deep view leaves everything between its elements alone
    dbig[key] = 0.0
    big[key] = 0.0
    np.testing.assert_array_equal(dbig.get(), big)
    # astype of a deep view
    np.testing.assert_array_equal(dat.astype(hipkit.float64).get(), at.astype(np.float64))


@pytest.mark.parametrize("axis", [None, 0, 3, (0, 2, 4, 6, 8), (1, 9), -1])
def test_reductions_over_deep_views(rng, axis):
    a, da = _pair(rng)
    at, dat = a.T, da.T
    np.testing.assert_allclose(hipkit.sum(dat, axis=axis).get(), np.sum(at, axis=axis, dtype=np.float64),
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(hipkit.max(dat, axis=axis).get(), np.max(at, axis=axis))
    np.testing.assert_allclose(hipkit.var(dat, axis=axis, correction=1).get(), np.var(at, axis=axis, ddof=1),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(hipkit.mean(dat, axis=axis, keepdims=True).get(),
                               np.mean(at, axis=axis, keepdims=True), rtol=1e-5, atol=1e-6)
    if axis is None or isinstance(axis, int):
        np.testing.assert_array_equal(hipkit.argmax(dat, axis=axis).get(), np.argmax(at, axis=axis))


def test_scans_sorts_and_take_on_deep_views(rng):
    a, da = _pair(rng)
    at, dat = a.T, da.T
    np.testing.assert_allclose(hipkit.cumulative_sum(dat, axis=0).get(), np.cumsum(at, axis=0), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(hipkit.cumulative_sum(dat, axis=4).get(), np.cumsum(at, axis=4), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_array_equal(hipkit.sort(dat, axis=-1).get(), np.sort(at, axis=-1))
    np.testing.assert_array_equal(hipkit.argsort(dat, axis=-1, stable=True).get(),
                                  np.argsort(at, axis=-1, kind="stable"))
    np.testing.assert_array_equal(hipkit.sort(dat, axis=2).get(), np.sort(at, axis=2))
    idx = np.array([1, 0, -1, 2])
    np.testing.assert_array_equal(hipkit.take(dat, hipkit.asarray(idx), axis=0).get(), np.take(at, idx, axis=0))


def test_masks_and_nonzero_on_deep_views(rng):
    a, da = _pair(rng)
    at, dat = a.T, da.T
    mask = at > 0.3
    dmask = dat > 0.3
    np.testing.assert_array_equal(dat[dmask].get(), at[mask])
    got = hipkit.nonzero(dmask)
    want = np.nonzero(mask)
    assert len(got) == len(want) == 10
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.get(), w)
    np.testing.assert_array_equal(hipkit.count_nonzero(dmask).get(), np.count_nonzero(mask))
    np.testing.assert_array_equal(hipkit.where(dmask, dat, 0.0).get(), np.where(mask, at, np.float32(0)))


def test_matmul_with_a_deep_batch(rng):
    a = rng.standard_normal((2,) * 8 + (3, 4)).astype(np.float32)
    b = rng.standard_normal((2,) * 8 + (4, 5)).astype(np.float32)
    da, db = hipkit.asarray(a), hipkit.asarray(b)
    # batch dims transposed: they cannot merge
    perm = tuple(range(7, -1, -1)) + (8, 9)
    got = hipkit.matmul(hipkit.permute_dims(da, perm), db).get()
    np.testing.assert_allclose(got, np.matmul(a.transpose(perm), b), rtol=1e-5, atol=1e-5)
