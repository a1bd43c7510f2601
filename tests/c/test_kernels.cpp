// test_kernels.cpp: the built-in kernels (fill, iota, axpy, binary, sum)
// against CPU references on fresh random data at awkward sizes, with outputs
// poisoned first and guard elements after the end; and their argument checks.
#include "common.h"
#include "raw_enums.h"

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

// NumPy's floor_divide for integers: rounds toward minus infinity, x // 0 == 0,
// MIN // -1 == MIN.
template <typename T> T floor_divide(T a, T b)
{
    if (b == 0)
        return 0;
    if (a == std::numeric_limits<T>::min() && b == -1)
        return a;
    T q = static_cast<T>(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
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

// ======================================================== with a GPU: results

template <typename T> class Kernels : public GpuTest
{
};
using KernelTypes = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(Kernels, KernelTypes);

TYPED_TEST(Kernels, FillWritesTheValueToEveryElementAndNoFurther)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const T value = random_value<T>(rng);
        hktest::DeviceMemory dst;
        ASSERT_NO_FATAL_FAILURE(poisoned<T>(dst, n));
        ASSERT_HK_OK(hk_fill(dst.get(), Dtype<T>::value, n, &value, nullptr));
        ASSERT_HK_OK(hk_stream_synchronize(nullptr));
        std::vector<T> out;
        ASSERT_NO_FATAL_FAILURE(download(out, dst, n));
        expect_elements(out, n, [&](size_t) {
            if constexpr (std::is_floating_point_v<T>)
                return std::pair<double, double>(value, 0.0);
            else
                return value;
        });
    }
}

TYPED_TEST(Kernels, IotaWritesStartPlusIndexTimesStep)
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
        ASSERT_HK_OK(hk_iota(dst.get(), Dtype<T>::value, n, &start, &step, nullptr));
        ASSERT_HK_OK(hk_stream_synchronize(nullptr));
        std::vector<T> out;
        ASSERT_NO_FATAL_FAILURE(download(out, dst, n));
        expect_elements(out, n, [&](size_t i) {
            if constexpr (std::is_floating_point_v<T>) {
                const double along = static_cast<double>(i) * step;
                return std::pair<double, double>(start + along, ulps<T>(std::fabs(start) + std::fabs(along)));
            } else {
                return wrap<T>(bits(start) + static_cast<uint64_t>(i) * bits(step));
            }
        });
    }
}

TYPED_TEST(Kernels, AxpyAddsAlphaTimesXToY)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const T alpha = random_value<T>(rng);
        const auto x = random_vector<T>(rng, n), y = random_vector<T>(rng, n);
        hktest::DeviceMemory dx, dy;
        ASSERT_NO_FATAL_FAILURE(upload(dx, x, n));
        ASSERT_NO_FATAL_FAILURE(upload(dy, y, n));
        ASSERT_HK_OK(hk_axpy(Dtype<T>::value, n, &alpha, dx.get(), dy.get(), nullptr));
        ASSERT_HK_OK(hk_stream_synchronize(nullptr));
        std::vector<T> out;
        ASSERT_NO_FATAL_FAILURE(download(out, dy, n));
        expect_elements(out, n, [&](size_t i) {
            if constexpr (std::is_floating_point_v<T>) {
                const double ax = static_cast<double>(alpha) * x[i];
                return std::pair<double, double>(ax + y[i], ulps<T>(std::fabs(ax) + std::fabs(y[i])));
            } else {
                return wrap<T>(bits(alpha) * bits(x[i]) + bits(y[i]));
            }
        });
    }
}

TYPED_TEST(Kernels, AxpyAcceptsXEqualToY)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const size_t n = 1000003;
    const T alpha = random_value<T>(rng);
    const auto y = random_vector<T>(rng, n);
    hktest::DeviceMemory dy;
    ASSERT_NO_FATAL_FAILURE(upload(dy, y, n));
    ASSERT_HK_OK(hk_axpy(Dtype<T>::value, n, &alpha, dy.get(), dy.get(), nullptr));
    ASSERT_HK_OK(hk_stream_synchronize(nullptr));
    std::vector<T> out;
    ASSERT_NO_FATAL_FAILURE(download(out, dy, n));
    expect_elements(out, n, [&](size_t i) {
        if constexpr (std::is_floating_point_v<T>) {
            const double ay = static_cast<double>(alpha) * y[i];
            return std::pair<double, double>(ay + y[i], ulps<T>(std::fabs(ay) + std::fabs(y[i])));
        } else {
            return wrap<T>(bits(alpha) * bits(y[i]) + bits(y[i]));
        }
    });
}

// Inputs for out = a op b, with the cases that define the semantics placed
// first (as far as n allows): floor division's signs, x / 0, MIN / -1 for
// integers; division by zero and NaN for floats.
template <typename T>
std::pair<std::vector<T>, std::vector<T>> binary_inputs(std::mt19937_64 &rng, size_t n, hk_binary_op op)
{
    auto a = random_vector<T>(rng, n), b = random_vector<T>(rng, n);
    std::vector<std::pair<T, T>> special;
    if constexpr (std::is_floating_point_v<T>) {
        const T nan = std::numeric_limits<T>::quiet_NaN();
        special = {{T(1), T(0)}, {T(-1), T(0)}, {T(0), T(0)}, {nan, T(0.5)}, {T(0.25), nan}};
    } else {
        const T min = std::numeric_limits<T>::min(), max = std::numeric_limits<T>::max();
        special = {{min, T(-1)},  {T(5), T(0)}, {T(-7), T(2)}, {T(7), T(-2)}, {T(-7), T(-2)},
                   {T(0), T(-5)}, {max, T(2)},  {min, T(1)},   {max, max},    {min, min}};
        if (op == HK_DIVIDE) // mostly small divisors, so quotients are not all 0 and -1
            for (size_t i = special.size(); i < n; i += 2)
                b[i] = static_cast<T>(static_cast<int>(rng() % 19) - 9);
    }
    for (size_t i = 0; i < special.size() && i < n; i++) {
        a[i] = special[i].first;
        b[i] = special[i].second;
    }
    return {a, b};
}

template <typename T> auto binary_reference(hk_binary_op op, T a, T b)
{
    if constexpr (std::is_floating_point_v<T>) {
        const double x = a, y = b;
        double r = 0;
        switch (op) {
        case HK_ADD: r = x + y; break;
        case HK_SUBTRACT: r = x - y; break;
        case HK_MULTIPLY: r = x * y; break;
        case HK_DIVIDE: r = x / y; break;
        }
        // Round to T first, as the kernel's single operation does.
        const double rounded = static_cast<T>(r);
        return std::pair<double, double>(rounded, ulps<T>(rounded));
    } else {
        switch (op) {
        case HK_ADD: return wrap<T>(bits(a) + bits(b));
        case HK_SUBTRACT: return wrap<T>(bits(a) - bits(b));
        case HK_MULTIPLY: return wrap<T>(bits(a) * bits(b));
        case HK_DIVIDE: return floor_divide(a, b);
        }
        return T{};
    }
}

template <typename T> void check_binary(hk_binary_op op)
{
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSizes) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const auto inputs = binary_inputs<T>(rng, n, op);
        const std::vector<T> &a = inputs.first, &b = inputs.second;
        hktest::DeviceMemory da, db, dout;
        ASSERT_NO_FATAL_FAILURE(upload(da, a, n));
        ASSERT_NO_FATAL_FAILURE(upload(db, b, n));
        ASSERT_NO_FATAL_FAILURE(poisoned<T>(dout, n));
        ASSERT_HK_OK(hk_binary(op, Dtype<T>::value, n, da.get(), db.get(), dout.get(), nullptr));
        ASSERT_HK_OK(hk_stream_synchronize(nullptr));
        std::vector<T> out;
        ASSERT_NO_FATAL_FAILURE(download(out, dout, n));
        expect_elements(out, n, [&](size_t i) { return binary_reference(op, a[i], b[i]); });
    }
}

TYPED_TEST(Kernels, BinaryAddAddsElementwise)
{
    check_binary<TypeParam>(HK_ADD);
}
TYPED_TEST(Kernels, BinarySubtractSubtractsElementwise)
{
    check_binary<TypeParam>(HK_SUBTRACT);
}
TYPED_TEST(Kernels, BinaryMultiplyMultipliesElementwise)
{
    check_binary<TypeParam>(HK_MULTIPLY);
}
TYPED_TEST(Kernels, BinaryDivideDividesElementwise)
{
    check_binary<TypeParam>(HK_DIVIDE);
}

TYPED_TEST(Kernels, BinaryMayWriteOverEitherInput)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const size_t n = 1000003;
    const auto inputs = binary_inputs<T>(rng, n, HK_SUBTRACT);
    const std::vector<T> &a = inputs.first, &b = inputs.second;
    for (bool over_a : {true, false}) {
        SCOPED_TRACE(over_a ? "out == a" : "out == b");
        hktest::DeviceMemory da, db;
        ASSERT_NO_FATAL_FAILURE(upload(da, a, n));
        ASSERT_NO_FATAL_FAILURE(upload(db, b, n));
        void *out_ptr = over_a ? da.get() : db.get();
        ASSERT_HK_OK(hk_binary(HK_SUBTRACT, Dtype<T>::value, n, da.get(), db.get(), out_ptr, nullptr));
        ASSERT_HK_OK(hk_stream_synchronize(nullptr));
        std::vector<T> out;
        ASSERT_NO_FATAL_FAILURE(download(out, over_a ? da : db, n));
        expect_elements(out, n, [&](size_t i) { return binary_reference(HK_SUBTRACT, a[i], b[i]); });
    }
}

TYPED_TEST(Kernels, EveryKernelRunsOnACreatedStream)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    const size_t n = 1000003;
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const auto x = random_vector<T>(rng, n);
    hktest::DeviceMemory dx, dy, dout;
    ASSERT_NO_FATAL_FAILURE(upload(dx, x, n));
    ASSERT_NO_FATAL_FAILURE(poisoned<T>(dy, n));
    ASSERT_NO_FATAL_FAILURE(poisoned<T>(dout, n));
    const T one = 1, zero = 0, two = 2;
    // y = 1; y = 2 * x + y; out = y - x  ->  x + 1, all queued on one stream.
    ASSERT_HK_OK(hk_fill(dy.get(), Dtype<T>::value, n, &one, stream.get()));
    ASSERT_HK_OK(hk_axpy(Dtype<T>::value, n, &two, dx.get(), dy.get(), stream.get()));
    ASSERT_HK_OK(hk_binary(HK_SUBTRACT, Dtype<T>::value, n, dy.get(), dx.get(), dout.get(), stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    std::vector<T> out;
    ASSERT_NO_FATAL_FAILURE(download(out, dout, n));
    expect_elements(out, n, [&](size_t i) {
        if constexpr (std::is_floating_point_v<T>)
            return std::pair<double, double>(static_cast<double>(x[i]) + 1.0, ulps<T>(3.0 * std::fabs(x[i]) + 1.0));
        else
            return wrap<T>(bits(x[i]) + 1);
    });

    ASSERT_HK_OK(hk_iota(dout.get(), Dtype<T>::value, n, &zero, &one, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    ASSERT_NO_FATAL_FAILURE(download(out, dout, n));
    expect_elements(out, n, [&](size_t i) {
        if constexpr (std::is_floating_point_v<T>)
            return std::pair<double, double>(static_cast<double>(i), 0.0);
        else
            return static_cast<T>(i);
    });
}

TYPED_TEST(Kernels, ZeroElementsSucceedWithNullDataPointers)
{
    using T = TypeParam;
    const T one = 1;
    EXPECT_HK_OK(hk_fill(nullptr, Dtype<T>::value, 0, &one, nullptr));
    EXPECT_HK_OK(hk_iota(nullptr, Dtype<T>::value, 0, &one, &one, nullptr));
    EXPECT_HK_OK(hk_axpy(Dtype<T>::value, 0, &one, nullptr, nullptr, nullptr));
    for (int op = HK_ADD; op <= HK_DIVIDE; op++)
        EXPECT_HK_OK(hk_binary(static_cast<hk_binary_op>(op), Dtype<T>::value, 0, nullptr, nullptr, nullptr, nullptr));
    ASSERT_HK_OK(hk_stream_synchronize(nullptr));
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
    ASSERT_HK_OK(hk_fill(a.get(), HK_FLOAT32, n, &value, nullptr));
    ASSERT_HK_OK(hk_binary(HK_ADD, HK_FLOAT32, n, a.get(), a.get(), out.get(), nullptr));
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
    ASSERT_HK_OK(hk_iota(x.get(), HK_FLOAT64, n, &start, &step, nullptr));
    ASSERT_HK_OK(hk_sum(HK_FLOAT64, n, x.get(), result.get(), nullptr));
    double sum = 0;
    ASSERT_HK_OK(hk_memcpy_dtoh(&sum, result.get(), sizeof sum));
    // 0 + 1 + ... + (n - 1) is below 2^53, so every partial sum is exact.
    EXPECT_EQ(sum, static_cast<double>(n) * static_cast<double>(n - 1) / 2.0);
}

// ============================================================ with a GPU: sum

template <typename T> class Sum : public GpuTest
{
};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Sum, FloatTypes);

template <typename T> void run_sum(const std::vector<T> &x, T *result, hk_stream stream = nullptr)
{
    const size_t n = x.size();
    hktest::DeviceMemory dx, dresult;
    ASSERT_NO_FATAL_FAILURE(upload(dx, x, n));
    ASSERT_NO_FATAL_FAILURE(poisoned<T>(dresult, 1));
    ASSERT_HK_OK(hk_sum(Dtype<T>::value, n, n ? dx.get() : nullptr, dresult.get(), stream));
    ASSERT_HK_OK(hk_stream_synchronize(stream));
    std::vector<T> out;
    ASSERT_NO_FATAL_FAILURE(download(out, dresult, 1));
    *result = out[0];
    size_t touched = 0;
    const auto *guard = reinterpret_cast<const unsigned char *>(out.data() + 1);
    for (size_t b = 0; b < kGuard * sizeof(T); b++)
        touched += guard[b] != Dtype<T>::poison_byte;
    EXPECT_EQ(touched, 0u) << "hk_sum wrote past its one result element";
}

TYPED_TEST(Sum, MatchesADoublePrecisionReference)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSizes) {
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

// Small integer values: every partial sum is exact in any order, so one
// dropped or doubled element shows.
TYPED_TEST(Sum, IsExactForSmallIntegerValues)
{
    using T = TypeParam;
    HKTEST_SEEDED_RNG(rng);
    for (size_t n : kSizes) {
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

TYPED_TEST(Sum, PropagatesNaN)
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

TYPED_TEST(Sum, OfZeroElementsWritesZero)
{
    using T = TypeParam;
    T got = std::numeric_limits<T>::quiet_NaN();
    ASSERT_NO_FATAL_FAILURE(run_sum(std::vector<T>(), &got));
    EXPECT_EQ(got, T(0));
}

TYPED_TEST(Sum, RunsOnACreatedStream)
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

constexpr hk_dtype kUnimplemented[] = {HK_BOOL, HK_INT8, HK_UINT8, HK_UINT32, HK_UINT64, HK_FLOAT16};

TEST(KernelArguments, OutOfRangeDtypeIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const double v = 1;
    for (int dtype : {-1, 10, 42}) {
        SCOPED_TRACE("dtype value " + std::to_string(dtype));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hktest_fill(s.at(), dtype, 16, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hktest_iota(s.at(), dtype, 16, &v, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_axpy", hktest_axpy(dtype, 16, &v, s.at(), s.at(1024), nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary",
                        hktest_binary(HK_ADD, dtype, 16, s.at(), s.at(1024), s.at(2048), nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_sum", hktest_sum(dtype, 16, s.at(), s.at(2048), nullptr));
    }
}

TEST(KernelArguments, OutOfRangeOpIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    for (int op : {-1, 4, 100}) {
        SCOPED_TRACE("op value " + std::to_string(op));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary",
                        hktest_binary(op, HK_FLOAT32, 16, s.at(), s.at(1024), s.at(2048), nullptr));
    }
}

TEST(KernelArguments, UnimplementedDtypeIsNotSupported)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const uint64_t v = 1;
    for (hk_dtype dtype : kUnimplemented) {
        SCOPED_TRACE(hk_dtype_name(dtype));
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_fill", hk_fill(s.at(), dtype, 16, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_iota", hk_iota(s.at(), dtype, 16, &v, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_axpy", hk_axpy(dtype, 16, &v, s.at(), s.at(1024), nullptr));
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_binary",
                        hk_binary(HK_ADD, dtype, 16, s.at(), s.at(1024), s.at(2048), nullptr));
    }
}

TEST(KernelArguments, SumOfAnythingButFloat32AndFloat64IsNotSupported)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    for (hk_dtype dtype : {HK_BOOL, HK_INT8, HK_UINT8, HK_INT32, HK_UINT32, HK_INT64, HK_UINT64, HK_FLOAT16}) {
        SCOPED_TRACE(hk_dtype_name(dtype));
        EXPECT_HK_FAILS(HK_ERROR_NOT_SUPPORTED, "hk_sum", hk_sum(dtype, 16, s.at(), s.at(2048), nullptr));
    }
}

TEST(KernelArguments, NullPointerWithElementsIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const float v = 1;
    void *a = s.at(), *b = s.at(1024), *c = s.at(2048);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(nullptr, HK_FLOAT32, 16, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(a, HK_FLOAT32, 16, nullptr, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(nullptr, HK_FLOAT32, 16, &v, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(a, HK_FLOAT32, 16, nullptr, &v, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(a, HK_FLOAT32, 16, &v, nullptr, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_axpy", hk_axpy(HK_FLOAT32, 16, nullptr, a, b, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_axpy", hk_axpy(HK_FLOAT32, 16, &v, nullptr, b, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_axpy", hk_axpy(HK_FLOAT32, 16, &v, a, nullptr, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, HK_FLOAT32, 16, nullptr, b, c, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, HK_FLOAT32, 16, a, nullptr, c, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, HK_FLOAT32, 16, a, b, nullptr, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_sum", hk_sum(HK_FLOAT32, 16, nullptr, c, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_sum", hk_sum(HK_FLOAT32, 16, a, nullptr, nullptr));
}

TEST(KernelArguments, SumNeedsAResultPointerEvenForZeroElements)
{
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_sum", hk_sum(HK_FLOAT32, 0, nullptr, nullptr, nullptr));
}

TEST(KernelArguments, ElementCountWhoseByteSizeOverflowsIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const double v = 1;
    void *a = s.at(), *b = s.at(1024), *c = s.at(2048);
    const struct {
        hk_dtype dtype;
        size_t n;
    } cases[] = {{HK_FLOAT64, SIZE_MAX / 2},
                 {HK_FLOAT64, SIZE_MAX / 8 + 1},
                 {HK_FLOAT32, SIZE_MAX / 4 + 1},
                 {HK_INT64, SIZE_MAX},
                 {HK_INT32, SIZE_MAX / 2}};
    for (const auto &k : cases) {
        SCOPED_TRACE(std::string(hk_dtype_name(k.dtype)) + ", n = " + std::to_string(k.n));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(a, k.dtype, k.n, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(a, k.dtype, k.n, &v, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_axpy", hk_axpy(k.dtype, k.n, &v, a, b, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, k.dtype, k.n, a, b, c, nullptr));
        if (k.dtype == HK_FLOAT32 || k.dtype == HK_FLOAT64)
            EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_sum", hk_sum(k.dtype, k.n, a, c, nullptr));
    }
}

TEST(KernelArguments, PointerMisalignedForTheDtypeIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const double v = 1;
    const struct {
        hk_dtype dtype;
        size_t offset; // bytes off alignment
    } cases[] = {{HK_FLOAT32, 2}, {HK_FLOAT64, 4}, {HK_INT32, 1}, {HK_INT64, 4}};
    for (const auto &k : cases) {
        SCOPED_TRACE(std::string(hk_dtype_name(k.dtype)) + " at +" + std::to_string(k.offset));
        void *a = s.at(), *b = s.at(1024), *c = s.at(2048);
        void *bad_a = s.at(k.offset), *bad_b = s.at(1024 + k.offset), *bad_c = s.at(2048 + k.offset);
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_fill", hk_fill(bad_a, k.dtype, 16, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_iota", hk_iota(bad_a, k.dtype, 16, &v, &v, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_axpy", hk_axpy(k.dtype, 16, &v, bad_a, b, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_axpy", hk_axpy(k.dtype, 16, &v, a, bad_b, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, k.dtype, 16, bad_a, b, c, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, k.dtype, 16, a, bad_b, c, nullptr));
        EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, k.dtype, 16, a, b, bad_c, nullptr));
        if (k.dtype == HK_FLOAT32 || k.dtype == HK_FLOAT64) {
            EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_sum", hk_sum(k.dtype, 16, bad_a, c, nullptr));
            EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_sum", hk_sum(k.dtype, 16, a, bad_c, nullptr));
        }
    }
}

TEST(KernelArguments, BinaryOutputPartlyOverlappingAnInputIsInvalidArgument)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    float *a = static_cast<float *>(s.at()), *b = static_cast<float *>(s.at(1024));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, HK_FLOAT32, 16, a, b, a + 1, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_binary", hk_binary(HK_ADD, HK_FLOAT32, 16, a, b, b - 15, nullptr));
}

TEST(KernelArguments, UnknownStreamIsInvalidHandle)
{
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const float v = 1;
    void *a = s.at(), *b = s.at(1024), *c = s.at(2048);
    const hk_stream bad = hktest::bogus_stream();
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_fill", hk_fill(a, HK_FLOAT32, 16, &v, bad));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_iota", hk_iota(a, HK_FLOAT32, 16, &v, &v, bad));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_axpy", hk_axpy(HK_FLOAT32, 16, &v, a, b, bad));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_binary", hk_binary(HK_ADD, HK_FLOAT32, 16, a, b, c, bad));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_sum", hk_sum(HK_FLOAT32, 16, a, c, bad));
}

TEST(NoDevice, KernelsSayNoGpu)
{
    SKIP_WITH_GPU();
    Scratch s;
    ASSERT_HK_OK(s.init(4096));
    const float v = 1;
    void *a = s.at(), *b = s.at(1024), *c = s.at(2048);
    EXPECT_SAYS_NO_GPU("hk_fill", hk_fill(a, HK_FLOAT32, 16, &v, nullptr));
    EXPECT_SAYS_NO_GPU("hk_iota", hk_iota(a, HK_FLOAT32, 16, &v, &v, nullptr));
    EXPECT_SAYS_NO_GPU("hk_axpy", hk_axpy(HK_FLOAT32, 16, &v, a, b, nullptr));
    EXPECT_SAYS_NO_GPU("hk_binary", hk_binary(HK_ADD, HK_FLOAT32, 16, a, b, c, nullptr));
    EXPECT_SAYS_NO_GPU("hk_sum", hk_sum(HK_FLOAT32, 16, a, c, nullptr));
}

} // namespace
