"""hipkit.random against a NumPy Philox4x32-10 written here from hipkit.h's
definition of which bits each element gets (itself checked against Random123's
known answers): uniforms bit for bit, normals to a few ulps; reproducibility,
stream continuation, moments, dtypes and argument checks."""
import numpy as np
import pytest

import hipkit

# ------------------------------------------------------------ the reference

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_LOW32 = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)
_PI = np.longdouble("3.14159265358979323846264338327950288")


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 on arrays of counters (uint64 arrays holding 32-bit
    words); k0, k1 are Python ints. Returns the four output words."""
    c0, c1, c2, c3 = (np.asarray(c, np.uint64) & _LOW32 for c in (c0, c1, c2, c3))
    for round_ in range(10):
        if round_:
            k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
        p0, p1 = _M0 * c0, _M1 * c2  # 32 x 32 bits: exact in uint64
        c0, c1, c2, c3 = ((p1 >> _32) ^ c1 ^ np.uint64(k0), p1 & _LOW32,
                          (p0 >> _32) ^ c3 ^ np.uint64(k1), p0 & _LOW32)
    return c0, c1, c2, c3


SUBSTREAM = {("uniform", np.float32): 0, ("uniform", np.float64): 1,
             ("normal", np.float32): 2, ("normal", np.float64): 3}


def block_words(seed, kind, dtype, offset, n):
    """For positions offset + i (i < n): the 4 x n words of each one's block,
    and its number k in the block."""
    per_block = 16 // np.dtype(dtype).itemsize
    i = np.arange(n, dtype=np.uint64)
    head = np.uint64(offset % per_block)
    block = np.uint64(offset // per_block) + (head + i) // np.uint64(per_block)
    k = ((head + i) % np.uint64(per_block)).astype(np.intp)
    words = np.stack(philox4x32_10(block & _LOW32, block >> _32, np.full(n, SUBSTREAM[kind, dtype], np.uint64),
                                   np.zeros(n, np.uint64), seed & 0xFFFFFFFF, seed >> 32))
    return words, k


def pick(words, row):
    return words[row, np.arange(words.shape[1])]


def uniform_bits(words, k, dtype):
    """The exact uniforms in [0, 1): U32(w_k), or U64(w_2k, w_2k+1)."""
    if dtype == np.float32:
        return (pick(words, k) >> np.uint64(8)).astype(np.float32) * np.float32(2.0**-24)
    lo, hi = pick(words, 2 * k), pick(words, 2 * k + 1)
    return (((hi << _32) | lo) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def reference_uniform(seed, offset, n, dtype):
    words, k = block_words(seed, "uniform", dtype, offset, n)
    return uniform_bits(words, k, dtype)


def reference_normal(seed, offset, n, dtype):
    """z computed in long double from the kernel's exact uniforms, and the radius r."""
    words, k = block_words(seed, "normal", dtype, offset, n)
    if dtype == np.float32:
        m = k // 2
        u1 = ((pick(words, 2 * m) >> np.uint64(8)) + np.uint64(1)).astype(np.float32) * np.float32(2.0**-24)
        u2 = (pick(words, 2 * m + 1) >> np.uint64(8)).astype(np.float32) * np.float32(2.0**-24)
    else:
        u1 = ((((words[1] << _32) | words[0]) >> np.uint64(11)) + np.uint64(1)).astype(np.float64) * 2.0**-53
        u2 = (((words[3] << _32) | words[2]) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    u1, u2 = u1.astype(np.longdouble), u2.astype(np.longdouble)
    r = np.sqrt(-2 * np.log(u1))
    angle = 2 * _PI * u2
    z = np.where(k % 2 == 0, r * np.cos(angle), r * np.sin(angle))
    return z, r


def assert_normals_close(got, z, r, dtype, loc=0.0, scale=1.0):
    eps = np.finfo(dtype).eps
    expected = np.longdouble(dtype(loc)) + np.longdouble(dtype(scale)) * z
    tolerance = 8 * eps * abs(dtype(scale)) * r + 2 * eps * np.abs(expected) + np.finfo(dtype).tiny
    bad = np.flatnonzero(~(np.abs(got.astype(np.longdouble) - expected) <= tolerance))
    assert bad.size == 0, f"{bad.size} elements off, first {bad[:5]}: got {got[bad[:5]]}, expected {expected[bad[:5]]}"


# ------------------------------------------------ the reference, known answers

@pytest.mark.parametrize("counter, key, expected", [
    ((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((0xffffffff,) * 4, (0xffffffff, 0xffffffff), (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
])
def test_reference_philox_matches_random123_known_answers(counter, key, expected):
    got = philox4x32_10(*([np.uint64(c)] for c in counter), *key)
    assert tuple(int(w[0]) for w in got) == expected


def test_reference_uniforms_span_the_half_open_unit_interval():
    words = np.array([[0, 0xFFFFFFFF]] * 4, np.uint64)  # two blocks: all zero bits, all one bits
    assert list(uniform_bits(words, np.array([0, 1]), np.float32)) == [0.0, np.float32(1 - 2.0**-24)]
    assert list(uniform_bits(words, np.array([0, 1]), np.float64)) == [0.0, 1 - 2.0**-53]
    words = np.array([[0], [0x80000000], [0], [0]], np.uint64)  # the high word holds the high bits
    assert uniform_bits(words, np.array([0]), np.float64)[0] == 0.5


# ----------------------------------------------- on the current device: the numbers

SIZES = [1, 7, 1000003]
SKIPS = [0, 1, 3, 5]  # numbers drawn first, so the draw under test starts at that offset
FLOATS = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("skip", SKIPS)
@pytest.mark.parametrize("n", SIZES)
def test_random_matches_the_reference_bit_for_bit(rng, dtype, n, skip):
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    generator = hipkit.random.default_rng(seed)
    generator.random(skip, dtype=dtype)
    got = generator.random(n, dtype=dtype).get()
    assert got.dtype == dtype and got.shape == (n,)
    expected = reference_uniform(seed, skip, n, dtype)
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), expected.view(f"u{got.itemsize}"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_with_a_power_of_two_span_is_bit_exact(rng, dtype):
    # fma(8, u, -2) is exact here, so plain NumPy arithmetic gives the same bits.
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    got = hipkit.random.default_rng(seed).uniform(-2, 6, size=1000003, dtype=dtype).get()
    expected = reference_uniform(seed, 0, 1000003, dtype) * dtype(8) + dtype(-2)
    assert expected.dtype == dtype
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), expected.view(f"u{got.itemsize}"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_with_any_bounds_is_within_an_ulp_and_inside(rng, dtype):
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    low, high = sorted(rng.uniform(-100, 100, 2))
    got = hipkit.random.default_rng(seed).uniform(low, high, size=100003, dtype=dtype).get()
    lo, hi = dtype(low), dtype(high)
    exact = (np.longdouble(hi) - np.longdouble(lo)) * reference_uniform(seed, 0, 100003, dtype) + np.longdouble(lo)
    # high - low is rounded to the dtype first, and the fma once more.
    span_error = abs(np.longdouble(hi - lo) - (np.longdouble(hi) - np.longdouble(lo)))
    # The reference itself rounds in long double (64-bit mantissa on x86, not
    # exact): where low + span * u cancels to near 0, that rounding, not the
    # kernel's, dominates, so allow a few of its units on the operands' scale.
    reference_error = 8 * np.finfo(np.longdouble).eps * (abs(np.longdouble(hi)) + abs(np.longdouble(lo)))
    assert np.all(np.abs(got - exact) <= np.spacing(np.abs(got)) + span_error + reference_error)
    assert np.all((got >= lo) & (got <= hi))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("skip", SKIPS)
def test_normal_matches_the_reference(rng, dtype, skip):
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    generator = hipkit.random.default_rng(seed)
    generator.standard_normal(skip, dtype=dtype)
    got = generator.normal(3.0, 2.0, size=1000003, dtype=dtype).get()
    assert got.dtype == dtype
    z, r = reference_normal(seed, skip, 1000003, dtype)
    assert_normals_close(got, z, r, dtype, 3.0, 2.0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_moments_match_the_distribution(rng, dtype):
    n, loc, scale = 1_000_000, -1.5, 2.5
    x = hipkit.random.default_rng(int(rng.integers(0, 2**63))).normal(loc, scale, n, dtype=dtype).get()
    x = x.astype(np.float64)
    assert abs(x.mean() - loc) < 5 * scale / np.sqrt(n)
    assert abs(x.var(ddof=1) - scale**2) < 5 * scale**2 * np.sqrt(2 / (n - 1))


def test_the_same_seed_repeats_and_other_seeds_differ(rng):
    seed = int(rng.integers(0, 2**63))
    first = hipkit.random.default_rng(seed).random(1000).get()
    assert np.array_equal(first, hipkit.random.default_rng(seed).random(1000).get())
    for other in (seed ^ 1, seed ^ (1 << 63)):
        assert np.count_nonzero(first == hipkit.random.default_rng(other).random(1000).get()) < 5


@pytest.mark.parametrize("method", ["random", "standard_normal", "uniform", "normal"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_successive_draws_continue_the_stream(rng, method, dtype):
    seed = int(rng.integers(0, 2**64, dtype=np.uint64))
    whole = getattr(hipkit.random.default_rng(seed), method)(size=1009, dtype=dtype).get()
    generator = hipkit.random.default_rng(seed)
    parts = [getattr(generator, method)(size=size, dtype=dtype).get().ravel() for size in (3, (2, 5), None, 995)]
    assert generator.offset == 1009
    np.testing.assert_array_equal(np.concatenate(parts), whole)


def test_shapes_and_dtypes():
    generator = hipkit.random.default_rng(5)
    assert generator.random().shape == () and generator.random().dtype == np.float64
    for size, shape in [(4, (4,)), ((2, 3), (2, 3)), ((), ()), (0, (0,)), ((3, 0), (3, 0))]:
        for dtype in FLOATS:
            x = generator.normal(size=size, dtype=dtype)
            assert isinstance(x, hipkit.ndarray) and x.shape == shape and x.dtype == dtype
    x = generator.uniform(1.0, 1.0, size=100, dtype=np.float32).get()
    assert np.all(x == 1.0)


def test_draws_run_on_a_stream():
    with hipkit.Stream() as stream:
        x = hipkit.random.default_rng(77).random(1000003, dtype=np.float32, stream=stream)
        got = x.get(stream)
    np.testing.assert_array_equal(got, reference_uniform(77, 0, 1000003, np.float32))


# ---------------------------------------------- any machine: the generator

def test_offset_counts_the_numbers_drawn_and_empty_draws_draw_nothing():
    generator = hipkit.random.default_rng(1)
    assert (generator.seed, generator.offset) == (1, 0)
    generator.random(0)
    generator.normal(size=(3, 0), dtype=np.float32)
    assert generator.offset == 0


def test_seed_none_draws_a_fresh_seed():
    seeds = {hipkit.random.default_rng().seed for _ in range(8)}
    assert len(seeds) == 8 and all(0 <= s < 2**64 for s in seeds)


def test_default_rng_passes_a_generator_through():
    generator = hipkit.random.Generator(3)
    assert hipkit.random.default_rng(generator) is generator
    assert hipkit.random.default_rng(np.uint64(2**64 - 1)).seed == 2**64 - 1


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (2**64, ValueError), (1.5, TypeError),
                                         ("7", TypeError), (True, TypeError)])
def test_bad_seeds_are_refused(seed, error):
    with pytest.raises(error, match="seed"):
        hipkit.random.default_rng(seed)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.bool_])
def test_dtypes_other_than_float32_and_float64_are_refused(dtype):
    with pytest.raises(TypeError, match="float32 or float64"):
        hipkit.random.default_rng(0).random(0, dtype=dtype)


# size=0 needs no device memory, and the library checks the parameters anyway.
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("call, words", [
    (lambda g, dt: g.uniform(2.0, 1.0, 0, dt), "greater than high"),
    (lambda g, dt: g.uniform(np.nan, 1.0, 0, dt), "low"),
    (lambda g, dt: g.uniform(0.0, np.inf, 0, dt), "high"),
    (lambda g, dt: g.normal(0.0, -1.0, 0, dt), "negative"),
    (lambda g, dt: g.normal(np.nan, 1.0, 0, dt), "mean"),
    (lambda g, dt: g.normal(0.0, -np.inf, 0, dt), "stddev"),
])
def test_bad_parameters_are_refused_without_advancing(dtype, call, words):
    generator = hipkit.random.default_rng(0)
    with pytest.raises(hipkit.InvalidArgumentError, match=words):
        call(generator, dtype)
    assert generator.offset == 0


def test_float32_parameters_must_fit_float32():
    with pytest.raises(ValueError, match="float32"):
        hipkit.random.default_rng(0).uniform(0, 1e39, 0, np.float32)
    hipkit.random.default_rng(0).uniform(0, 1e39, 0, np.float64)


@pytest.mark.parametrize("value", [np.zeros(3), [1.0], "1", None, True])
def test_parameters_must_be_real_numbers(value):
    with pytest.raises(TypeError, match="real number"):
        hipkit.random.default_rng(0).normal(value, 1.0, 0)


def test_negative_sizes_are_refused():
    with pytest.raises(ValueError, match="negative"):
        hipkit.random.default_rng(0).random(-1)
