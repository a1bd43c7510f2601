// test_random.cpp: hk_random_uniform and hk_random_normal against a CPU
// Philox4x32-10 written here from hipkit.h's definition of which bits each
// element gets (itself checked against Random123's known answers): uniforms
// bit for bit, normals to a few units in the last place; the concatenation of
// calls whose offsets advance; moments; and the argument checks.
#include "common.h"

#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <type_traits>

namespace
{

using hktest::Dtype;

// ====================================================== the CPU reference

using Words = std::array<uint32_t, 4>;

Words philox4x32_10(Words c, uint32_t k0, uint32_t k1)
{
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const uint64_t p0 = uint64_t{0xD2511F53u} * c[0];
        const uint64_t p1 = uint64_t{0xCD9E8D57u} * c[2];
        c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
             static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    }
    return c;
}

// Sub-streams, as hipkit.h numbers them.
template <typename T> uint32_t substream(bool normal)
{
    return (normal ? 2u : 0u) + (std::is_same_v<T, double> ? 1u : 0u);
}

// The words of the block that stream position p (= offset + i) falls in, and p's number in it.
template <typename T> Words block_words(uint64_t seed, bool normal, uint64_t p, unsigned *k)
{
    constexpr uint64_t E = 16 / sizeof(T);
    const uint64_t b = p / E;
    *k = static_cast<unsigned>(p % E);
    return philox4x32_10({static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), substream<T>(normal), 0u},
                         static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

float uniform24(uint32_t w)
{
    return static_cast<float>(w >> 8) * std::ldexp(1.0f, -24);
}
double uniform53(uint32_t lo, uint32_t hi)
{
    return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11) * std::ldexp(1.0, -53);
}

// The exact uniform of position p: fma(high - low, u, low) in T.
template <typename T> T reference_uniform(uint64_t seed, uint64_t p, double low, double high)
{
    unsigned k;
    const Words w = block_words<T>(seed, false, p, &k);
    const T lo = static_cast<T>(low), span = static_cast<T>(static_cast<T>(high) - lo);
    if constexpr (std::is_same_v<T, float>)
        return std::fma(span, uniform24(w[k]), lo);
    else
        return std::fma(span, uniform53(w[2 * k], w[2 * k + 1]), lo);
}

// The normal of position p, computed in long double from the kernel's own
// (exact) uniforms, and how far the kernel's element-type math may be off:
// a few ulps of the radius r (sign changes of cos and sin make a relative
// bound on the result itself meaningless), plus the final fma's rounding.
template <typename T>
std::pair<long double, long double> reference_normal(uint64_t seed, uint64_t p, double mean, double stddev)
{
    unsigned k;
    const Words w = block_words<T>(seed, true, p, &k);
    long double u1, u2;
    if constexpr (std::is_same_v<T, float>) {
        const unsigned m = k / 2;
        u1 = static_cast<float>((w[2 * m] >> 8) + 1) * std::ldexp(1.0f, -24);
        u2 = uniform24(w[2 * m + 1]);
    } else {
        u1 = static_cast<double>((((static_cast<uint64_t>(w[1]) << 32) | w[0]) >> 11) + 1) * std::ldexp(1.0, -53);
        u2 = uniform53(w[2], w[3]);
    }
    const long double pi = 3.141592653589793238462643383279502884L;
    const long double r = std::sqrt(-2.0L * std::log(u1));
    const long double z = r * (k % 2 == 0 ? std::cos(2.0L * pi * u2) : std::sin(2.0L * pi * u2));
    const long double m = static_cast<T>(mean), s = static_cast<T>(stddev);
    const long double value = m + s * z;
    const long double eps = std::numeric_limits<T>::epsilon();
    const long double tolerance = 8.0L * eps * s * r + 2.0L * eps * std::fabs(value) + std::numeric_limits<T>::min();
    return {value, tolerance};
}

// ====================================== the reference: Random123's known answers

struct KnownAnswer {
    Words counter;
    uint32_t key0, key1;
    Words expected;
};

// Random123 1.09, kat_vectors: philox4x32 10 rounds.
constexpr KnownAnswer kKnownAnswers[] = {
    {{0u, 0u, 0u, 0u}, 0u, 0u, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
     0xffffffffu,
     0xffffffffu,
     {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
    {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
     0xa4093822u,
     0x299f31d0u,
     {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
};

TEST(PhiloxReference, MatchesRandom123KnownAnswers)
{
    for (const auto &kat : kKnownAnswers) {
        const Words got = philox4x32_10(kat.counter, kat.key0, kat.key1);
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(got[i], kat.expected[i])
                << "known answer with counter[0] = " << std::hex << kat.counter[0] << ", word " << i;
    }
}

TEST(PhiloxReference, SeedIsTheKeyLowHalfFirst)
{
    // Position 0 of the float32 uniform sub-stream is word 0 of counter 0.
    unsigned k;
    const Words w = block_words<float>(0x299f31d0a4093822ull, false, 0, &k);
    EXPECT_EQ(k, 0u);
    EXPECT_EQ(w, philox4x32_10({0u, 0u, 0u, 0u}, 0xa4093822u, 0x299f31d0u));
}

TEST(PhiloxReference, UniformsAreInTheHalfOpenUnitInterval)
{
    EXPECT_EQ(uniform24(0u), 0.0f);
    EXPECT_EQ(uniform24(0xffffffffu), 1.0f - std::ldexp(1.0f, -24));
    EXPECT_EQ(uniform53(0u, 0u), 0.0);
    EXPECT_EQ(uniform53(0xffffffffu, 0xffffffffu), 1.0 - std::ldexp(1.0, -53));
    // The high word carries the high bits.
    EXPECT_EQ(uniform53(0u, 0x80000000u), 0.5);
}

// ======================================================== device helpers

constexpr size_t kGuard = 37;
constexpr size_t kSizes[] = {1, 7, 1000003};
constexpr uint64_t kOffsets[] = {0, 1, 3, 5};

using hktest::Mismatches;
using hktest::show;

// n + kGuard poisoned elements.
template <typename T> void poisoned(hktest::DeviceMemory &memory, size_t n)
{
    const size_t bytes = (n + kGuard) * sizeof(T);
    ASSERT_HK_OK(memory.allocate(bytes));
    ASSERT_HK_OK(hk_memset(memory.get(), Dtype<T>::poison_byte, bytes));
}

template <typename T> void download(std::vector<T> &out, const hktest::DeviceMemory &memory, size_t n)
{
    out.assign(n + kGuard, T{});
    ASSERT_HK_OK(hk_memcpy_dtoh(out.data(), memory.get(), out.size() * sizeof(T)));
}

template <typename T> void expect_guard_untouched(const std::vector<T> &out, size_t n)
{
    const auto *guard = reinterpret_cast<const unsigned char *>(out.data() + n);
    size_t touched = 0;
    for (size_t b = 0; b < kGuard * sizeof(T); b++)
        touched += guard[b] != Dtype<T>::poison_byte;
    EXPECT_EQ(touched, 0u) << "bytes after element n - 1 were written";
}

template <typename T> uint64_t bits_of(T v)
{
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    return bits;
}

// Draws n elements at `offset` into a fresh poisoned buffer and downloads them (n + kGuard).
template <typename T>
void draw(std::vector<T> &out, bool normal, size_t n, uint64_t seed, uint64_t offset, double a, double b,
          hk_stream stream = nullptr)
{
    hktest::DeviceMemory dst;
    ASSERT_NO_FATAL_FAILURE(poisoned<T>(dst, n));
    if (normal)
        ASSERT_HK_OK(hk_random_normal(dst.get(), Dtype<T>::value, n, seed, offset, a, b, stream));
    else
        ASSERT_HK_OK(hk_random_uniform(dst.get(), Dtype<T>::value, n, seed, offset, a, b, stream));
    ASSERT_HK_OK(hk_stream_synchronize(stream));
    ASSERT_NO_FATAL_FAILURE(download(out, dst, n));
}

template <typename T>
void expect_uniforms(const std::vector<T> &out, size_t n, uint64_t seed, uint64_t offset, double low, double high)
{
    Mismatches wrong;
    for (size_t i = 0; i < n; i++) {
        const T expected = reference_uniform<T>(seed, offset + i, low, high);
        if (bits_of(out[i]) != bits_of(expected))
            wrong.add(i, show(out[i]), show(expected));
    }
    EXPECT_EQ(wrong.count, 0u) << "elements differing from the reference's bits (first few):\n" << wrong.text;
    expect_guard_untouched(out, n);
}

template <typename T>
void expect_normals(const std::vector<T> &out, size_t n, uint64_t seed, uint64_t offset, double mean, double stddev)
{
    Mismatches wrong;
    for (size_t i = 0; i < n; i++) {
        const auto expected = reference_normal<T>(seed, offset + i, mean, stddev);
        if (!(std::fabs(static_cast<long double>(out[i]) - expected.first) <= expected.second))
            wrong.add(i, show(out[i]),
                      show(static_cast<double>(expected.first)) + " +- " + show(static_cast<double>(expected.second)));
    }
    EXPECT_EQ(wrong.count, 0u) << "elements off the reference (first few):\n" << wrong.text;
    expect_guard_untouched(out, n);
}

// ============================================ with a GPU: against the reference

template <typename T> class Random : public GpuTest
{
};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Random, FloatTypes);

TYPED_TEST(Random, UniformMatchesTheReferenceBitForBitAtAnyOffset)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const uint64_t seed = rng();
    for (size_t n : kSizes) {
        for (uint64_t offset : kOffsets) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", offset = " + std::to_string(offset));
            std::vector<T> out;
            ASSERT_NO_FATAL_FAILURE(draw(out, false, n, seed, offset, 0.0, 1.0));
            expect_uniforms(out, n, seed, offset, 0.0, 1.0);
        }
    }
}

TYPED_TEST(Random, UniformScalesToLowHighBitForBit)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const uint64_t seed = rng();
    std::uniform_real_distribution<double> any(-100.0, 100.0);
    for (uint64_t offset : kOffsets) {
        const double a = any(rng), b = any(rng);
        const double low = std::min(a, b), high = std::max(a, b);
        SCOPED_TRACE("offset = " + std::to_string(offset) + ", low = " + show(low) + ", high = " + show(high));
        std::vector<T> out;
        ASSERT_NO_FATAL_FAILURE(draw(out, false, 1000003, seed, offset, low, high));
        expect_uniforms(out, 1000003, seed, offset, low, high);
    }
}

TYPED_TEST(Random, UniformWithLowEqualToHighGivesLow)
{
    using T = TypeParam;
    std::vector<T> out;
    ASSERT_NO_FATAL_FAILURE(draw(out, false, 1000, 7, 0, 2.5, 2.5));
    for (size_t i = 0; i < 1000; i++)
        ASSERT_EQ(out[i], T(2.5)) << "element " << i;
}

TYPED_TEST(Random, NormalMatchesTheReferenceAtAnyOffset)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const uint64_t seed = rng();
    for (size_t n : kSizes) {
        for (uint64_t offset : kOffsets) {
            SCOPED_TRACE("n = " + std::to_string(n) + ", offset = " + std::to_string(offset));
            std::vector<T> out;
            ASSERT_NO_FATAL_FAILURE(draw(out, true, n, seed, offset, 0.0, 1.0));
            expect_normals(out, n, seed, offset, 0.0, 1.0);
        }
    }
}

TYPED_TEST(Random, NormalAppliesMeanAndStddev)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const uint64_t seed = rng();
    for (const auto &ms : {std::pair<double, double>(3.0, 2.0), {-1e3, 0.25}, {0.5, 0.0}}) {
        SCOPED_TRACE("mean = " + show(ms.first) + ", stddev = " + show(ms.second));
        std::vector<T> out;
        ASSERT_NO_FATAL_FAILURE(draw(out, true, 1000003, seed, 3, ms.first, ms.second));
        expect_normals(out, 1000003, seed, 3, ms.first, ms.second);
    }
}

// Filling [0, n) with one call, or [0, k) and then [k, n) with the offset
// advanced by k, gives the same bits: the second part also exercises
// destinations that are not 16-byte aligned.
TYPED_TEST(Random, CallsWithAdvancingOffsetsConcatenate)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const uint64_t seed = rng();
    const size_t n = 1000003;
    for (bool normal : {false, true}) {
        for (uint64_t offset : kOffsets) {
            std::vector<T> whole;
            ASSERT_NO_FATAL_FAILURE(draw(whole, normal, n, seed, offset, 0.0, 1.0));
            for (size_t k : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{500001}}) {
                SCOPED_TRACE(std::string(normal ? "normal" : "uniform") + ", offset = " + std::to_string(offset) +
                             ", split at " + std::to_string(k));
                hktest::DeviceMemory dst;
                ASSERT_NO_FATAL_FAILURE(poisoned<T>(dst, n));
                T *p = dst.as<T>();
                const hk_dtype dtype = Dtype<T>::value;
                if (normal) {
                    ASSERT_HK_OK(hk_random_normal(p, dtype, k, seed, offset, 0.0, 1.0, nullptr));
                    ASSERT_HK_OK(hk_random_normal(p + k, dtype, n - k, seed, offset + k, 0.0, 1.0, nullptr));
                } else {
                    ASSERT_HK_OK(hk_random_uniform(p, dtype, k, seed, offset, 0.0, 1.0, nullptr));
                    ASSERT_HK_OK(hk_random_uniform(p + k, dtype, n - k, seed, offset + k, 0.0, 1.0, nullptr));
                }
                std::vector<T> parts;
                ASSERT_NO_FATAL_FAILURE(download(parts, dst, n));
                ASSERT_EQ(std::memcmp(parts.data(), whole.data(), parts.size() * sizeof(T)), 0);
            }
        }
    }
}

TYPED_TEST(Random, SameSeedAndOffsetRepeatAndOtherSeedsDiffer)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const uint64_t seed = rng();
    const size_t n = 1000;
    std::vector<T> first, again, other_seed, other_high_half;
    ASSERT_NO_FATAL_FAILURE(draw(first, false, n, seed, 0, 0.0, 1.0));
    ASSERT_NO_FATAL_FAILURE(draw(again, false, n, seed, 0, 0.0, 1.0));
    ASSERT_NO_FATAL_FAILURE(draw(other_seed, false, n, seed ^ 1u, 0, 0.0, 1.0));
    ASSERT_NO_FATAL_FAILURE(draw(other_high_half, false, n, seed ^ (uint64_t{1} << 63), 0, 0.0, 1.0));
    EXPECT_EQ(std::memcmp(first.data(), again.data(), n * sizeof(T)), 0);
    size_t same = 0, same_high = 0;
    for (size_t i = 0; i < n; i++) {
        same += first[i] == other_seed[i];
        same_high += first[i] == other_high_half[i];
    }
    EXPECT_LT(same, 5u);
    EXPECT_LT(same_high, 5u);
}

TYPED_TEST(Random, NormalMomentsMatchTheDistribution)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const uint64_t seed = rng();
    const size_t n = 1000000;
    const double mean = 1.5, stddev = 3.0;
    std::vector<T> out;
    ASSERT_NO_FATAL_FAILURE(draw(out, true, n, seed, 0, mean, stddev));
    long double sum = 0, squares = 0;
    for (size_t i = 0; i < n; i++)
        sum += out[i];
    const long double sample_mean = sum / n;
    for (size_t i = 0; i < n; i++)
        squares += (out[i] - sample_mean) * (out[i] - sample_mean);
    const double variance = static_cast<double>(squares / (n - 1));
    // 5 standard errors: of the mean, sigma / sqrt(n); of the variance, sigma^2 sqrt(2 / (n - 1)).
    EXPECT_NEAR(static_cast<double>(sample_mean), mean, 5.0 * stddev / std::sqrt(static_cast<double>(n)));
    EXPECT_NEAR(variance, stddev * stddev, 5.0 * stddev * stddev * std::sqrt(2.0 / (n - 1)));
}

TYPED_TEST(Random, UniformMomentsMatchTheDistribution)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const size_t n = 1000000;
    std::vector<T> out;
    ASSERT_NO_FATAL_FAILURE(draw(out, false, n, rng(), 0, -1.0, 3.0));
    long double sum = 0, squares = 0;
    for (size_t i = 0; i < n; i++) {
        ASSERT_GE(out[i], T(-1)) << "element " << i;
        ASSERT_LE(out[i], T(3)) << "element " << i;
        sum += out[i];
    }
    const long double sample_mean = sum / n;
    for (size_t i = 0; i < n; i++)
        squares += (out[i] - sample_mean) * (out[i] - sample_mean);
    // Uniform on [-1, 3): mean 1, variance 16 / 12, variance of the variance 16^2 / 180 / n.
    EXPECT_NEAR(static_cast<double>(sample_mean), 1.0, 5.0 * std::sqrt(16.0 / 12.0 / n));
    EXPECT_NEAR(static_cast<double>(squares / (n - 1)), 16.0 / 12.0, 5.0 * std::sqrt(256.0 / 180.0 / n));
}

TYPED_TEST(Random, RunsOnACreatedStream)
{
    using T = TypeParam;
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const uint64_t seed = 12345;
    std::vector<T> out;
    ASSERT_NO_FATAL_FAILURE(draw(out, false, 1000003, seed, 5, 0.0, 1.0, stream.get()));
    expect_uniforms(out, 1000003, seed, 5, 0.0, 1.0);
    ASSERT_NO_FATAL_FAILURE(draw(out, true, 1000003, seed, 5, 0.0, 1.0, stream.get()));
    expect_normals(out, 1000003, seed, 5, 0.0, 1.0);
}

TYPED_TEST(Random, OffsetsNearTheTopOfTheRangeWork)
{
    using T = TypeParam;
    const uint64_t seed = 99;
    for (uint64_t offset : {uint64_t{0xffffffffull} * 4, ~uint64_t{0} - 1000, ~uint64_t{0}}) {
        SCOPED_TRACE("offset = " + std::to_string(offset));
        std::vector<T> out;
        ASSERT_NO_FATAL_FAILURE(draw(out, false, 1003, seed, offset, 0.0, 1.0));
        // Positions past 2^64 - 1 are exact too: block offset / E + (offset % E + i) / E.
        Mismatches wrong;
        constexpr uint64_t E = 16 / sizeof(T);
        for (size_t i = 0; i < 1003; i++) {
            const uint64_t b = offset / E + (offset % E + i) / E;
            const unsigned k = static_cast<unsigned>((offset % E + i) % E);
            const Words w =
                philox4x32_10({static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), substream<T>(false), 0u},
                              static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
            T expected;
            if constexpr (std::is_same_v<T, float>)
                expected = uniform24(w[k]);
            else
                expected = uniform53(w[2 * k], w[2 * k + 1]);
            if (bits_of(out[i]) != bits_of(expected))
                wrong.add(i, show(out[i]), show(expected));
        }
        EXPECT_EQ(wrong.count, 0u) << wrong.text;
    }
}

// More blocks than the grid has threads: the grid-stride loop must cover them.
class LargeRandom : public GpuTest
{
};

TEST_F(LargeRandom, UniformCoversAnArrayLargerThanTheGrid)
{
    const size_t n = (size_t{1} << 26) + 5;
    const uint64_t seed = 2024, offset = 3;
    std::vector<float> out;
    ASSERT_NO_FATAL_FAILURE(draw(out, false, n, seed, offset, 0.0, 1.0));
    Mismatches wrong;
    for (size_t i = 0; i < n; i += (i + 64 >= n ? 1 : 4099)) {
        const float expected = reference_uniform<float>(seed, offset + i, 0.0, 1.0);
        if (bits_of(out[i]) != bits_of(expected))
            wrong.add(i, show(out[i]), show(expected));
    }
    EXPECT_EQ(wrong.count, 0u) << wrong.text;
    expect_guard_untouched(out, n);
}

// ================================================ any machine: argument checks

using hktest::Scratch;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(RandomArguments, DtypeOutsideTheEnumerationIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    // 10 and 15 lie inside the enumeration's range of values (4 bits), so C++ may hold them.
    for (int value : {HK_DTYPE_COUNT, 15 + HK_DTYPE_COUNT}) {
        SCOPED_TRACE("dtype value " + std::to_string(value));
        const auto dtype = static_cast<hk_dtype>(value);
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_random_uniform",
                        hk_random_uniform(s.at(), dtype, 16, 1, 0, 0.0, 1.0, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_random_normal",
                        hk_random_normal(s.at(), dtype, 16, 1, 0, 0.0, 1.0, nullptr));
    }
}

TEST(RandomArguments, DtypesOtherThanFloat32AndFloat64AreNotSupported)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    for (hk_dtype dtype : {HK_BOOL, HK_INT8, HK_UINT8, HK_INT32, HK_UINT32, HK_INT64, HK_UINT64, HK_FLOAT16}) {
        SCOPED_TRACE(hk_dtype_name(dtype));
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_random_uniform",
                        hk_random_uniform(s.at(), dtype, 16, 1, 0, 0.0, 1.0, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_random_normal",
                        hk_random_normal(s.at(), dtype, 16, 1, 0, 0.0, 1.0, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "float32, float64"));
    }
}

// The message names the argument at fault.
#define EXPECT_REFUSED(function, argument, expr)                                                                       \
    do {                                                                                                               \
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, function, expr);                                                    \
        EXPECT_TRUE(::hktest::contains_ignoring_case(hk_last_error(), argument)) << #expr;                             \
    } while (0)

TEST(RandomArguments, NonFiniteParametersAreInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    for (hk_dtype dtype : {HK_FLOAT32, HK_FLOAT64}) {
        for (double bad : {kNaN, kInf, -kInf}) {
            SCOPED_TRACE(std::string(hk_dtype_name(dtype)) + ", value " + show(bad));
            EXPECT_REFUSED("hk_random_uniform", "low", hk_random_uniform(s.at(), dtype, 16, 1, 0, bad, 1.0, nullptr));
            EXPECT_REFUSED("hk_random_uniform", "high", hk_random_uniform(s.at(), dtype, 16, 1, 0, 0.0, bad, nullptr));
            EXPECT_REFUSED("hk_random_normal", "mean", hk_random_normal(s.at(), dtype, 16, 1, 0, bad, 1.0, nullptr));
            EXPECT_REFUSED("hk_random_normal", "stddev", hk_random_normal(s.at(), dtype, 16, 1, 0, 0.0, bad, nullptr));
        }
    }
}

TEST(RandomArguments, LowAboveHighIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    for (hk_dtype dtype : {HK_FLOAT32, HK_FLOAT64}) {
        SCOPED_TRACE(hk_dtype_name(dtype));
        EXPECT_REFUSED("hk_random_uniform", "greater than high",
                       hk_random_uniform(s.at(), dtype, 16, 1, 0, 2.0, 1.0, nullptr));
        EXPECT_REFUSED("hk_random_uniform", "greater than high",
                       hk_random_uniform(s.at(), dtype, 16, 1, 0, 1.0, std::nextafter(1.0, 0.0), nullptr));
    }
}

TEST(RandomArguments, NegativeStddevIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    for (hk_dtype dtype : {HK_FLOAT32, HK_FLOAT64}) {
        SCOPED_TRACE(hk_dtype_name(dtype));
        EXPECT_REFUSED("hk_random_normal", "negative", hk_random_normal(s.at(), dtype, 16, 1, 0, 0.0, -1.0, nullptr));
        EXPECT_REFUSED("hk_random_normal", "stddev",
                       hk_random_normal(s.at(), dtype, 16, 1, 0, 0.0, -std::numeric_limits<double>::min(), nullptr));
    }
}

TEST(RandomArguments, ParametersBeyondFloat32sRangeAreInvalidForFloat32)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const double big = 1e39;
    EXPECT_REFUSED("hk_random_uniform", "float32", hk_random_uniform(s.at(), HK_FLOAT32, 16, 1, 0, -big, 0, nullptr));
    EXPECT_REFUSED("hk_random_uniform", "float32", hk_random_uniform(s.at(), HK_FLOAT32, 16, 1, 0, 0, big, nullptr));
    EXPECT_REFUSED("hk_random_normal", "float32", hk_random_normal(s.at(), HK_FLOAT32, 16, 1, 0, big, 1, nullptr));
    EXPECT_REFUSED("hk_random_normal", "float32", hk_random_normal(s.at(), HK_FLOAT32, 16, 1, 0, 0, big, nullptr));
}

TEST(RandomArguments, SpanOverflowingTheDtypeIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    EXPECT_REFUSED("hk_random_uniform", "overflows",
                   hk_random_uniform(s.at(), HK_FLOAT32, 16, 1, 0, -3e38, 3e38, nullptr));
    EXPECT_REFUSED("hk_random_uniform", "overflows",
                   hk_random_uniform(s.at(), HK_FLOAT64, 16, 1, 0, -1e308, 1e308, nullptr));
}

TEST(RandomArguments, ParametersAreCheckedEvenForZeroElements)
{
    EXPECT_REFUSED("hk_random_uniform", "low", hk_random_uniform(nullptr, HK_FLOAT32, 0, 1, 0, kNaN, 1.0, nullptr));
    EXPECT_REFUSED("hk_random_normal", "stddev", hk_random_normal(nullptr, HK_FLOAT64, 0, 1, 0, 0.0, -2.0, nullptr));
}

TEST(RandomArguments, ZeroElementsNeedNoGpu)
{
    EXPECT_HK_OK(hk_random_uniform(nullptr, HK_FLOAT32, 0, 1, 0, 0.0, 1.0, nullptr));
    EXPECT_HK_OK(hk_random_normal(nullptr, HK_FLOAT64, 0, 1, 0, 0.0, 1.0, nullptr));
}

TEST(RandomArguments, NullDestinationWithElementsIsInvalidArgument)
{
    EXPECT_REFUSED("hk_random_uniform", "dst", hk_random_uniform(nullptr, HK_FLOAT32, 16, 1, 0, 0.0, 1.0, nullptr));
    EXPECT_REFUSED("hk_random_normal", "dst", hk_random_normal(nullptr, HK_FLOAT64, 16, 1, 0, 0.0, 1.0, nullptr));
}

TEST(RandomArguments, DestinationMisalignedForTheDtypeIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    EXPECT_REFUSED("hk_random_uniform", "aligned", hk_random_uniform(s.at(2), HK_FLOAT32, 16, 1, 0, 0, 1, nullptr));
    EXPECT_REFUSED("hk_random_uniform", "aligned", hk_random_uniform(s.at(4), HK_FLOAT64, 16, 1, 0, 0, 1, nullptr));
    EXPECT_REFUSED("hk_random_normal", "aligned", hk_random_normal(s.at(1), HK_FLOAT32, 16, 1, 0, 0, 1, nullptr));
    EXPECT_REFUSED("hk_random_normal", "aligned", hk_random_normal(s.at(4), HK_FLOAT64, 16, 1, 0, 0, 1, nullptr));
}

TEST(RandomArguments, ElementCountWhoseByteSizeOverflowsIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    EXPECT_REFUSED("hk_random_uniform", "overflow",
                   hk_random_uniform(s.at(), HK_FLOAT32, SIZE_MAX / 4 + 1, 1, 0, 0, 1, nullptr));
    EXPECT_REFUSED("hk_random_normal", "overflow",
                   hk_random_normal(s.at(), HK_FLOAT64, SIZE_MAX / 8 + 1, 1, 0, 0, 1, nullptr));
}

TEST(RandomArguments, UnknownStreamIsInvalidHandle)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const hk_stream bad = hktest::bogus_stream();
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_random_uniform",
                    hk_random_uniform(s.at(), HK_FLOAT32, 16, 1, 0, 0, 1, bad));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_random_normal",
                    hk_random_normal(s.at(), HK_FLOAT64, 16, 1, 0, 0, 1, bad));
    // Even with nothing to do, as the other kernels.
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_random_uniform",
                    hk_random_uniform(nullptr, HK_FLOAT32, 0, 1, 0, 0, 1, bad));
}

TEST(NoDevice, RandomSaysNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    EXPECT_SAYS_NO_GPU("hk_random_uniform", hk_random_uniform(s.at(), HK_FLOAT32, 16, 1, 0, 0, 1, nullptr));
    EXPECT_SAYS_NO_GPU("hk_random_normal", hk_random_normal(s.at(), HK_FLOAT64, 16, 1, 0, 0, 1, nullptr));
}

} // namespace
