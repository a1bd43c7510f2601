"""nonzero, flatnonzero, where(condition) and x[mask] against NumPy on fresh random data: awkward sizes
(empty, one, around the kernels' 4096-element tiles, about 10^6), N-d masks, non-contiguous views,
non-bool inputs, on the current device and on the CPU device."""
import numpy as np
import pytest

import hipkit

SIZES = [0, 1, 31, 33, 4095, 4096, 4097, 8193, 1000003]
SHAPES = [(7, 11), (3, 5, 4), (1, 1), (2, 0, 3), (64, 65), (2, 3, 1, 4, 5, 1, 2, 3)]
PLACES = [None, "cpu"]  # the current device (a GPU when there is one), and the CPU device


def random_mask(rng, shape, fill):
    if fill == "none":
        return np.zeros(shape, bool)
    if fill == "all":
        return np.ones(shape, bool)
    return rng.random(shape) < rng.uniform(0.05, 0.95)


def assert_rows(got, want):
    """nonzero's tuple: as many int64 rows as NumPy's, equal element for element."""
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == np.int64 and g.shape == w.shape
        np.testing.assert_array_equal(g.get(), w)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("fill", ["none", "all", "random"])
def test_flat_masks_match_numpy(rng, place, n, fill):
    host = random_mask(rng, (n,), fill)
    mask = hipkit.asarray(host, device=place)
    assert_rows(hipkit.nonzero(mask), np.nonzero(host))
    got = hipkit.flatnonzero(mask)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.get(), np.flatnonzero(host))


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fill", ["none", "all", "random"])
def test_nd_masks_give_one_row_per_dimension(rng, place, shape, fill):
    host = random_mask(rng, shape, fill)
    mask = hipkit.asarray(host, device=place)
    got = hipkit.nonzero(mask)
    assert_rows(got, np.nonzero(host))
    np.testing.assert_array_equal(hipkit.flatnonzero(mask).get(), np.flatnonzero(host))
    assert_rows(hipkit.where(mask), np.where(host))
    assert_rows(mask.nonzero(), host.nonzero())


@pytest.mark.parametrize("place", PLACES)
def test_views_of_masks(rng, place):
    host = rng.random((37, 129)) < 0.4
    mask = hipkit.asarray(host, device=place)
    for key in (np.s_[:, ::2], np.s_[::-1], np.s_[3:, 5:100], np.s_[::3, ::-7], np.s_[:, 1:]):
        assert_rows(hipkit.nonzero(mask[key]), np.nonzero(host[key]))
        np.testing.assert_array_equal(hipkit.flatnonzero(mask[key]).get(), np.flatnonzero(host[key]))
    assert_rows(hipkit.nonzero(mask.T), np.nonzero(host.T))
    flat = hipkit.asarray(rng.random(10007) < 0.5, device=place)
    assert_rows(hipkit.nonzero(flat[3:]), np.nonzero(flat.get()[3:]))  # a contiguous mask off 16-byte alignment


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float32, np.float64, np.complex64, np.uint16])
def test_non_bool_inputs_count_their_non_zero_elements(rng, place, dtype):
    host = (rng.integers(-2, 3, (13, 301)) * (rng.random((13, 301)) < 0.5)).astype(dtype)
    x = hipkit.asarray(host, device=place)
    assert_rows(hipkit.nonzero(x), np.nonzero(host))
    np.testing.assert_array_equal(hipkit.flatnonzero(x).get(), np.flatnonzero(host))


@pytest.mark.parametrize("place", PLACES)
def test_rows_are_views_of_one_array(rng, place):
    mask = hipkit.asarray(rng.random((5, 6, 7)) < 0.5, device=place)
    rows = hipkit.nonzero(mask)
    assert all(r.device == mask.device for r in rows)
    a = rows[0].copy()  # independent of the others
    np.testing.assert_array_equal(a.get(), rows[0].get())


def test_zero_dimensional_input():
    with pytest.raises(ValueError):
        hipkit.nonzero(hipkit.asarray(np.array(True)))
    np.testing.assert_array_equal(hipkit.flatnonzero(hipkit.asarray(np.array(3))).get(), np.flatnonzero(np.array(3)))
    np.testing.assert_array_equal(hipkit.flatnonzero(hipkit.asarray(np.array(0))).get(), np.flatnonzero(np.array(0)))


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.float16, np.int16, np.float32, np.int64, np.complex64,
                                   np.complex128])
@pytest.mark.parametrize("n", [0, 1, 4097, 100003])
def test_mask_select_matches_numpy(rng, place, dtype, n):
    host = (rng.standard_normal(n) * 100).astype(dtype) if np.dtype(dtype).kind != "b" else rng.random(n) < 0.5
    if np.dtype(dtype).kind == "c":
        host = host + 1j * rng.standard_normal(n).astype(dtype)
    keep = rng.random(n) < 0.3
    x, k = hipkit.asarray(host, device=place), hipkit.asarray(keep, device=place)
    got = x[k]
    assert got.dtype == host.dtype and got.shape == host[keep].shape
    np.testing.assert_array_equal(got.get(), host[keep])
    if n > 2:  # views of both
        np.testing.assert_array_equal(x[::-2][k[::-2]].get(), host[::-2][keep[::-2]])


@pytest.mark.parametrize("place", PLACES)
def test_leading_axes_masks_and_assignment_use_the_positions(rng, place):
    host = rng.standard_normal((6, 7, 3)).astype(np.float32)
    keep = rng.random((6, 7)) < 0.5
    x, k = hipkit.asarray(host, device=place), hipkit.asarray(keep, device=place)
    np.testing.assert_array_equal(x[k].get(), host[keep])  # x's leading axes taken at the mask's positions
    y = x.copy()
    y[k] = -1.0
    expected = host.copy()
    expected[keep] = -1.0
    np.testing.assert_array_equal(y.get(), expected)
