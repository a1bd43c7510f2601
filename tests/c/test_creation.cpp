// test_creation.cpp: the creation ops hk_fill (any view, the ten dtypes) and hk_iota (1-d views),
// and the whole-array sum of hk_reduce (its single-pass path for large contiguous float arrays),
// against CPU references on fresh random data at awkward sizes, with outputs poisoned first and
// guard elements after the end; and their argument checks.
#include "common.h"
#include "views.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <type_traits>
#include <utility>

namespace
{

using hktest::Dtype;

// 0, 1, a prime, a prime above a block multiple, and one past a power of two.
constexpr size_t kSizes[] = {0, 1, 7, 1000003, (size_t{1} << 20) + 1};
// Elements after the end of every buffer, kept poisoned to catch overruns.
constexpr size_t kGuard = 37;

template <typename T> T random_value(std::mt19937_64 &rng)
{
    if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
    else
        return static_cast<T>(rng()); // full range, so arithmetic wraps
}

template <typename T> std::vector<T> random_vector(std::mt19937_64 &rng, size_t n)
{
    std::vector<T> values(n);
    for (auto &v : values)
        v = random_value<T>(rng);
    return values;
}

// Integer arithmetic modulo 2^bits, as the kernels (and NumPy) do it.
template <typename T> uint64_t bits(T v)
{
    return static_cast<uint64_t>(static_cast<int64_t>(v));
}
template <typename T> T wrap(uint64_t v)
{
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
}

using hktest::Mismatches;
using hktest::show;

template <typename T> bool close(T got, double expected, double tolerance)
{
    if (std::isnan(expected))
        return std::isnan(got);
    if (std::isinf(expected))
        return static_cast<double>(got) == expected;
    return std::fabs(static_cast<double>(got) - expected) <= tolerance;
}

// Tolerance for one float operation whose exact result has magnitude `scale`:
// a few units in the last place, plus the smallest normal for results near 0.
template <typename T> double ulps(double scale, double count = 4.0)
{
    return count * std::numeric_limits<T>::epsilon() * std::fabs(scale) + 4.0 * std::numeric_limits<T>::min();
}

// `reference(i)` gives the exact T (integers) or a {value, tolerance} pair (floats).
template <typename T, typename Reference> void expect_elements(const std::vector<T> &out, size_t n, Reference reference)
{
    Mismatches wrong;
    for (size_t i = 0; i < n; i++) {
        if constexpr (std::is_floating_point_v<T>) {
            const std::pair<double, double> expected = reference(i);
            if (!close(out[i], expected.first, expected.second))
                wrong.add(i, show(out[i]), show(expected.first) + " +- " + show(expected.second));
        } else {
            const T expected = reference(i);
            if (out[i] != expected)
                wrong.add(i, show(out[i]), show(expected));
        }
    }
    EXPECT_EQ(wrong.count, 0u) << "wrong elements (first few):\n" << wrong.text;

    const auto *guard = reinterpret_cast<const unsigned char *>(out.data() + n);
    size_t touched = 0;
    for (size_t b = 0; b < kGuard * sizeof(T); b++)
        touched += guard[b] != Dtype<T>::poison_byte;
    EXPECT_EQ(touched, 0u) << "bytes after element n - 1 were written";
}

// A device buffer of n + kGuard elements: all poisoned, then `values` copied in.
template <typename T> void upload(hktest::DeviceMemory &memory, const std::vector<T> &values, size_t n)
{
    const size_t bytes = (n + kGuard) * sizeof(T);
    ASSERT_HK_OK(memory.allocate(bytes));
    ASSERT_HK_OK(hk_memset(memory.get(), Dtype<T>::poison_byte, bytes));
    if (!values.empty())
        ASSERT_HK_OK(hk_memcpy_htod(memory.get(), values.data(), values.size() * sizeof(T)));
}

template <typename T> void poisoned(hktest::DeviceMemory &memory, size_t n)
{
    upload<T>(memory, std::vector<T>(), n);
}

template <typename T> void download(std::vector<T> &out, const hktest::DeviceMemory &memory, size_t n)
{
    out.assign(n + kGuard, T{});
    ASSERT_HK_OK(hk_memcpy_dtoh(out.data(), memory.get(), out.size() * sizeof(T)));
}

using hktest::view;

template <typename T> hk_array flat(const hktest::DeviceMemory &memory, size_t n, int64_t stride = 1)
{
    return view(memory.get(), Dtype<T>::value, {static_cast<int64_t>(n)}, {stride});
}

// ======================================================== with a GPU: results

template <typename T> class Creation : public GpuTest
{
};
using CreationTypes = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(Creation, CreationTypes);

TYPED_TEST(Creation, FillWritesTheValueToEveryElementAndNoFurther)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const T value = random_value<T>(rng);
        hktest::DeviceMemory dst;
        ASSERT_NO_FATAL_FAILURE(poisoned<T>(dst, n));
        const hk_array out = flat<T>(dst, n);
        ASSERT_HK_OK(hk_fill(&out, &value, nullptr));
        ASSERT_HK_OK(hk_stream_synchronize(nullptr));
        std::vector<T> got;
        ASSERT_NO_FATAL_FAILURE(download(got, dst, n));
        expect_elements(got, n, [&](size_t) {
            if constexpr (std::is_floating_point_v<T>)
                return std::pair<double, double>(value, 0.0);
            else
                return value;
        });
    }
}

// Every other element of a reversed view: the others keep their poison.
TYPED_TEST(Creation, FillWritesOnlyTheElementsOfAStridedView)
{
    using T = TypeParam;
    const size_t n = 1000003, spread = 2 * n;
    hktest::DeviceMemory dst;
    ASSERT_NO_FATAL_FAILURE(poisoned<T>(dst, spread));
    hk_array out = flat<T>(dst, n, -2);
    out.data = static_cast<T *>(dst.get()) + (spread - 2); // element 0 at the end, walking down by 2
    const T value = 7;
    ASSERT_HK_OK(hk_fill(&out, &value, nullptr));
    std::vector<T> got;
    ASSERT_NO_FATAL_FAILURE(download(got, dst, spread));
    T poison;
    std::memset(&poison, Dtype<T>::poison_byte, sizeof poison);
    size_t wrong = 0;
    for (size_t i = 0; i < spread; i++) {
        const bool written = i % 2 == 0;
        wrong += std::memcmp(&got[i], written ? &value : &poison, sizeof(T)) != 0;
    }
    EXPECT_EQ(wrong, 0u);
}

TYPED_TEST(Creation, IotaWritesStartPlusIndexTimesStep)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        T start = random_value<T>(rng), step = random_value<T>(rng);
        if constexpr (std::is_floating_point_v<T>)
            start = static_cast<T>(start * 1000); // the start dominates early elements, the step late ones
        hktest::DeviceMemory dst;
        ASSERT_NO_FATAL_FAILURE(poisoned<T>(dst, n));
        const hk_array out = flat<T>(dst, n);
        ASSERT_HK_OK(hk_iota(&out, &start, &step, nullptr));
        ASSERT_HK_OK(hk_stream_synchronize(nullptr));
        std::vector<T> got;
        ASSERT_NO_FATAL_FAILURE(download(got, dst, n));
        expect_elements(got, n, [&](size_t i) {
            if constexpr (std::is_floating_point_v<T>) {
                const double along = static_cast<double>(i) * step;
                return std::pair<double, double>(start + along, ulps<T>(std::fabs(start) + std::fabs(along)));
            } else {
                return wrap<T>(bits(start) + static_cast<uint64_t>(i) * bits(step));
            }
        });
    }
}

// A view walking backwards with stride -3: out[i] at element 3 (n - 1 - i) of the buffer.
TYPED_TEST(Creation, IotaWalksAStridedView)
{
    using T = TypeParam;
    const size_t n = 100003, spread = 3 * n;
    hktest::DeviceMemory dst;
    ASSERT_NO_FATAL_FAILURE(poisoned<T>(dst, spread));
    hk_array out = flat<T>(dst, n, -3);
    out.data = static_cast<T *>(dst.get()) + 3 * (n - 1);
    const T start = 5, step = 2;
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    ASSERT_HK_OK(hk_iota(&out, &start, &step, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    std::vector<T> got;
    ASSERT_NO_FATAL_FAILURE(download(got, dst, spread));
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += got[3 * (n - 1 - i)] != static_cast<T>(5 + 2 * static_cast<int64_t>(i));
    EXPECT_EQ(wrong, 0u);
}

TYPED_TEST(Creation, ZeroElementsSucceedWithNullDataPointers)
{
    using T = TypeParam;
    const T one = 1;
    const hk_array empty = view(nullptr, Dtype<T>::value, {0});
    EXPECT_HK_OK(hk_fill(&empty, &one, nullptr));
    EXPECT_HK_OK(hk_iota(&empty, &one, &one, nullptr));
    const hk_array empty_2d = view(nullptr, Dtype<T>::value, {3, 0});
    EXPECT_HK_OK(hk_fill(&empty_2d, &one, nullptr));
}

// Every dtype, any layout: a fill is bits moved as they are (bool normalised to 0 or 1).
class FillEveryDtype : public GpuTest
{
};

TEST_F(FillEveryDtype, StoresTheValueBitForBitInEveryDtypeAndLayout)
{
    const hk_dtype dtypes[] = {
        HK_BOOL,  HK_INT8,   HK_UINT8,   HK_INT16,   HK_UINT16,  HK_INT32,    HK_UINT32,
        HK_INT64, HK_UINT64, HK_FLOAT16, HK_FLOAT32, HK_FLOAT64, HK_COMPLEX64}; // complex128 (16 bytes): the Python
                                                                                // tests
    const uint64_t pattern = 0x7ff8dead12345678ULL; // a float64 NaN with a payload; its low bytes for the rest
    for (hk_dtype d : dtypes) {
        SCOPED_TRACE(hk_dtype_name(d));
        size_t item = 0;
        ASSERT_HK_OK(hk_dtype_size(d, &item));
        uint64_t value = pattern;
        if (item == 2)
            value = 0x7e2a; // a float16 NaN with a payload
        if (item == 4)
            value = 0xffc01234u; // a negative float32 NaN with a payload
        if (d == HK_BOOL)
            value = 0x5a; // any non-zero byte is true, stored as 1
        const uint64_t expected = d == HK_BOOL ? 1 : value;
        // a (5, 7) view of a (5, 9) buffer, transposed: elements at 9 r + c for c < 7
        hktest::DeviceMemory dst;
        const size_t bytes = 45 * item;
        ASSERT_HK_OK(dst.allocate(bytes));
        ASSERT_HK_OK(hk_memset(dst.get(), 0xEE, bytes));
        const hk_array out = view(dst.get(), d, {7, 5}, {1, 9});
        ASSERT_HK_OK(hk_fill(&out, &value, nullptr));
        std::vector<unsigned char> got(bytes);
        ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dst.get(), bytes));
        size_t wrong = 0;
        for (size_t e = 0; e < 45; e++) {
            uint64_t v = 0;
            std::memcpy(&v, &got[e * item], item);
            uint64_t want = 0;
            std::memset(&want, 0xEE, item);
            if (e % 9 < 7)
                std::memcpy(&want, &expected, item);
            wrong += v != want;
        }
        EXPECT_EQ(wrong, 0u);
    }
}

// More elements than any sensible grid has threads: grid-stride loops must cover them.
class LargeKernels : public GpuTest
{
};

TEST_F(LargeKernels, FillAndAddCoverAnArrayLargerThanTheGrid)
{
    const size_t n = (size_t{1} << 26) + 5;
    hktest::DeviceMemory a, out;
    ASSERT_NO_FATAL_FAILURE(poisoned<float>(a, n));
    ASSERT_NO_FATAL_FAILURE(poisoned<float>(out, n));
    const float value = 1.5f;
    const hk_array va = flat<float>(a, n), vout = flat<float>(out, n);
    ASSERT_HK_OK(hk_fill(&va, &value, nullptr));
    const hk_array in[2] = {va, va};
    ASSERT_HK_OK(hk_elementwise(HK_OP_ADD, in, 2, &vout, nullptr));
    ASSERT_HK_OK(hk_stream_synchronize(nullptr));
    std::vector<float> host;
    ASSERT_NO_FATAL_FAILURE(download(host, out, n));
    expect_elements(host, n, [](size_t) { return std::pair<double, double>(3.0, 0.0); });
}

TEST_F(LargeKernels, SumCoversAnArrayLargerThanTheGrid)
{
    const size_t n = (size_t{1} << 26) + 5;
    hktest::DeviceMemory x, result;
    ASSERT_NO_FATAL_FAILURE(poisoned<double>(x, n));
    ASSERT_NO_FATAL_FAILURE(poisoned<double>(result, 1));
    const double start = 0, step = 1;
    const hk_array vx = flat<double>(x, n), vr = view(result.get(), HK_FLOAT64, {});
    ASSERT_HK_OK(hk_iota(&vx, &start, &step, nullptr));
    ASSERT_HK_OK(hk_reduce(HK_REDUCE_SUM, &vx, 1u, &vr, 0, nullptr));
    double sum = 0;
    ASSERT_HK_OK(hk_memcpy_dtoh(&sum, result.get(), sizeof sum));
    // 0 + 1 + ... + (n - 1) is below 2^53, so every partial sum is exact.
    EXPECT_EQ(sum, static_cast<double>(n) * static_cast<double>(n - 1) / 2.0);
}

// ============================================= with a GPU: the sum of a whole array

// hk_reduce's sum over every element of a contiguous float array: the single-pass kernel above 2^16
// elements (src/kinds/gpu_ops.c), the general reduction below; both must give the sum.
template <typename T> class WholeSum : public GpuTest
{
};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(WholeSum, FloatTypes);

template <typename T> void run_sum(const std::vector<T> &x, T *result, hk_stream stream = nullptr)
{
    const size_t n = x.size();
    hktest::DeviceMemory dx, dresult;
    ASSERT_NO_FATAL_FAILURE(upload(dx, x, n));
    ASSERT_NO_FATAL_FAILURE(poisoned<T>(dresult, 1));
    const hk_array in = view(n ? dx.get() : nullptr, Dtype<T>::value, {static_cast<int64_t>(n)});
    const hk_array out = view(dresult.get(), Dtype<T>::value, {});
    ASSERT_HK_OK(hk_reduce(HK_REDUCE_SUM, &in, 1u, &out, 0, stream));
    ASSERT_HK_OK(hk_stream_synchronize(stream));
    std::vector<T> got;
    ASSERT_NO_FATAL_FAILURE(download(got, dresult, 1));
    *result = got[0];
    size_t touched = 0;
    const auto *guard = reinterpret_cast<const unsigned char *>(got.data() + 1);
    for (size_t b = 0; b < kGuard * sizeof(T); b++)
        touched += guard[b] != Dtype<T>::poison_byte;
    EXPECT_EQ(touched, 0u) << "the sum wrote past its one result element";
}

// Sizes on both sides of the single-pass kernel's threshold (65536).
constexpr size_t kSumSizes[] = {0, 1, 7, 65536, 65537, 1000003, (size_t{1} << 20) + 1};

TYPED_TEST(WholeSum, MatchesADoublePrecisionReference)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSumSizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto x = random_vector<T>(rng, n);
        long double reference = 0, magnitude = 0;
        for (T v : x) {
            reference += v;
            magnitude += std::fabs(v);
        }
        T got = std::numeric_limits<T>::quiet_NaN();
        ASSERT_NO_FATAL_FAILURE(run_sum(x, &got));
        // Any summation order is within (depth of the reduction) * eps * sum |x|.
        const double depth = std::log2(static_cast<double>(n) + 1.0) + 8.0;
        const double tolerance = depth * std::numeric_limits<T>::epsilon() * static_cast<double>(magnitude);
        EXPECT_NEAR(static_cast<double>(got), static_cast<double>(reference), tolerance)
            << "sum |x| = " << show(magnitude);
    }
}

// Small integer values: every partial sum is exact in any order, so one dropped or doubled element shows.
TYPED_TEST(WholeSum, IsExactForSmallIntegerValues)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSumSizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        std::vector<T> x(n);
        uint64_t reference = 0;
        for (auto &v : x) {
            const uint64_t k = rng() % 4;
            v = static_cast<T>(k);
            reference += k;
        }
        T got = std::numeric_limits<T>::quiet_NaN();
        ASSERT_NO_FATAL_FAILURE(run_sum(x, &got));
        EXPECT_EQ(got, static_cast<T>(reference));
    }
}

TYPED_TEST(WholeSum, PropagatesNaN)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : {size_t{1}, size_t{7}, size_t{1000003}}) {
        SCOPED_TRACE("n = " + std::to_string(n));
        auto x = random_vector<T>(rng, n);
        const size_t where = rng() % n;
        SCOPED_TRACE("NaN at " + std::to_string(where));
        x[where] = std::numeric_limits<T>::quiet_NaN();
        T got = 0;
        ASSERT_NO_FATAL_FAILURE(run_sum(x, &got));
        EXPECT_TRUE(std::isnan(got)) << show(got);
    }
}

TYPED_TEST(WholeSum, OfZeroElementsIsZero)
{
    using T = TypeParam;
    T got = std::numeric_limits<T>::quiet_NaN();
    ASSERT_NO_FATAL_FAILURE(run_sum(std::vector<T>(), &got));
    EXPECT_EQ(got, T(0));
}

TYPED_TEST(WholeSum, RunsOnACreatedStream)
{
    using T = TypeParam;
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const std::vector<T> x(1000003, T(1));
    T got = 0;
    ASSERT_NO_FATAL_FAILURE(run_sum(x, &got, stream.get()));
    EXPECT_EQ(got, T(1000003));
}

// ================================================ any machine: argument checks

using hktest::Scratch;

TEST(CreationArguments, OutOfRangeDtypeIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const double v = 1;
    for (int dtype : {-1, HK_DTYPE_COUNT, 42}) {
        SCOPED_TRACE("dtype value " + std::to_string(dtype));
        hk_array out = view(s.at(), HK_FLOAT32, {16});
        std::memcpy(&out.dtype, &dtype, sizeof dtype); // not a hk_dtype (C++ may not hold it in the enum)
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(&out, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(&out, &v, &v, nullptr));
    }
}

TEST(CreationArguments, IotaOfAnotherDtypeIsNotSupported)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const uint64_t v = 1;
    for (hk_dtype dtype : {HK_BOOL, HK_INT8, HK_UINT8, HK_UINT32, HK_UINT64, HK_FLOAT16}) {
        SCOPED_TRACE(hk_dtype_name(dtype));
        const hk_array out = view(s.at(), dtype, {16});
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_iota", hk_iota(&out, &v, &v, nullptr));
        EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), hk_dtype_name(dtype))) << hk_last_error();
    }
}

TEST(CreationArguments, IotaTakesOnlyOneDimensionThatDoesNotRepeat)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const float v = 1;
    const hk_array two_d = view(s.at(), HK_FLOAT32, {4, 4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(&two_d, &v, &v, nullptr));
    const hk_array zero_d = view(s.at(), HK_FLOAT32, {});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(&zero_d, &v, &v, nullptr));
    const hk_array repeated = view(s.at(), HK_FLOAT32, {4}, {0});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(&repeated, &v, &v, nullptr));
}

TEST(CreationArguments, NullPointersAreInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const float v = 1;
    const hk_array out = view(s.at(), HK_FLOAT32, {16});
    const hk_array no_data = view(nullptr, HK_FLOAT32, {16});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(nullptr, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(&no_data, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(&out, nullptr, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(nullptr, &v, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(&no_data, &v, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(&out, nullptr, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(&out, &v, nullptr, nullptr));
}

TEST(CreationArguments, MisalignedOrOverflowingViewsAreInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const double v = 1;
    const hk_array misaligned = view(s.at(2), HK_FLOAT32, {16});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(&misaligned, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(&misaligned, &v, &v, nullptr));
    const hk_array huge = view(s.at(), HK_FLOAT64, {INT64_MAX / 4, 8}, {8, 1}); // strides given: no overflow here
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(&huge, &v, nullptr));
}

TEST(CreationArguments, UnknownStreamIsInvalidHandle)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const float v = 1;
    const hk_array out = view(s.at(), HK_FLOAT32, {16});
    const hk_stream bad = hktest::bogus_stream();
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_fill", hk_fill(&out, &v, bad));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_iota", hk_iota(&out, &v, &v, bad));
    const hk_array empty = view(nullptr, HK_FLOAT32, {0});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_fill", hk_fill(&empty, &v, bad)); // even with no work
}

TEST(NoDevice, CreationOpsSayNoGpu)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const float v = 1;
    const hk_array out = view(s.at(), HK_FLOAT32, {16});
    EXPECT_SAYS_NO_GPU("hk_fill", hk_fill(&out, &v, nullptr));
    EXPECT_SAYS_NO_GPU("hk_iota", hk_iota(&out, &v, &v, nullptr));
}

} // namespace
