// test_copy_array.cpp: hk_copy_array, the copy/cast of any strided view into
// any other (astype, transposes, reversed and broadcast views, slices),
// against a CPU reference on random data with the destination poisoned.
#include "common.h"
#include "views.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <limits>
#include <type_traits>

namespace
{

using hktest::DeviceMemory;
using hktest::view; // tests/c/views.h

// ---------------------------------------------------------- no GPU needed

TEST(CopyArray, RefusesBadViews)
{
    alignas(16) static char fake[64];
    hk_array ok = view(fake, HK_FLOAT32, {4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(nullptr, &ok, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&ok, nullptr, nullptr));
    hk_array bad = ok;
    bad.ndim = HK_MAX_DIMS + 1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&bad, &ok, nullptr));
    bad = ok;
    bad.shape[0] = -1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&bad, &ok, nullptr));
    bad = ok;
    bad.data = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&bad, &ok, nullptr));
    bad = ok;
    bad.data = fake + 1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&bad, &ok, nullptr));
    bad = ok;
    bad.strides[0] = INT64_MAX / 2;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&bad, &ok, nullptr));
    hk_array three = view(fake, HK_FLOAT32, {3});
    hk_array dst = view(fake + 32, HK_FLOAT32, {4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&three, &dst, nullptr));
    EXPECT_NE(std::string(hk_last_error()).find("broadcast"), std::string::npos) << hk_last_error();
    hk_array wide = view(fake, HK_FLOAT32, {1, 4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&wide, &dst, nullptr));
    bad = ok;
    bad.dtype = static_cast<hk_dtype>(42);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&bad, &ok, nullptr));
}

TEST(CopyArray, RefusesOverlapButNotTheSameView)
{
    alignas(16) static char fake[256];
    hk_array a = view(fake, HK_FLOAT32, {16});
    hk_array shifted = view(fake + 4, HK_FLOAT32, {16});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, "hk_copy_array", hk_copy_array(&a, &shifted, nullptr));
    EXPECT_NE(std::string(hk_last_error()).find("overlap"), std::string::npos) << hk_last_error();
    EXPECT_EQ(hk_copy_array(&a, &a, nullptr), HK_SUCCESS) << "a view copied onto itself is a no-op";
    hk_array empty = view(fake, HK_FLOAT32, {0});
    EXPECT_EQ(hk_copy_array(&empty, &empty, nullptr), HK_SUCCESS) << "nothing to copy needs no GPU";
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, "hk_copy_array", hk_copy_array(&a, &a, hktest::bogus_stream()));
}

TEST(CopyArray, NeedsAGpuForRealWork)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    alignas(16) static char fake[256];
    hk_array a = view(fake, HK_FLOAT32, {16}), b = view(fake + 128, HK_FLOAT64, {16});
    EXPECT_SAYS_NO_GPU("hk_copy_array", hk_copy_array(&a, &b, nullptr));
}

// -------------------------------------------------------------- GPU needed

// CPU reference of the documented casts. _Float16 is GCC's IEEE half.
template <typename D, typename S> D reference_cast(S v)
{
    if constexpr (std::is_same_v<D, bool>) {
        return static_cast<double>(v) != 0.0;
    } else if constexpr (std::is_integral_v<D> && !std::is_integral_v<S>) {
        double x = static_cast<double>(v);
        if (std::isnan(x))
            return 0;
        if (x >= static_cast<double>(std::numeric_limits<D>::max()))
            return std::numeric_limits<D>::max();
        if (x <= static_cast<double>(std::numeric_limits<D>::min()))
            return std::numeric_limits<D>::min();
        return static_cast<D>(x);
    } else if constexpr (std::is_same_v<D, _Float16>) {
        return static_cast<_Float16>(static_cast<float>(v));
    } else {
        return static_cast<D>(v);
    }
}

template <typename T> struct Kind;
#define HKTEST_KIND(T, CODE)                                                                                           \
    template <> struct Kind<T> {                                                                                       \
        static constexpr hk_dtype dtype = CODE;                                                                        \
    };
HKTEST_KIND(bool, HK_BOOL)
HKTEST_KIND(int8_t, HK_INT8)
HKTEST_KIND(uint8_t, HK_UINT8)
HKTEST_KIND(int32_t, HK_INT32)
HKTEST_KIND(uint32_t, HK_UINT32)
HKTEST_KIND(int64_t, HK_INT64)
HKTEST_KIND(uint64_t, HK_UINT64)
HKTEST_KIND(_Float16, HK_FLOAT16)
HKTEST_KIND(float, HK_FLOAT32)
HKTEST_KIND(double, HK_FLOAT64)

// Random values every type can start from: small signed integers and
// fractions, plus (for floats) values beyond the integer ranges and NaN.
// Plain arrays, because std::vector<bool> has no data().
template <typename T> using Host = std::unique_ptr<T[]>;

template <typename S> Host<S> random_values(std::mt19937_64 &rng, size_t n)
{
    Host<S> v(new S[n]);
    std::uniform_int_distribution<int> small(-100, 100);
    for (size_t i = 0; i < n; i++) {
        if constexpr (std::is_same_v<S, bool>) {
            v[i] = small(rng) > 0;
        } else if constexpr (std::is_integral_v<S>) {
            v[i] = static_cast<S>(std::is_signed_v<S> ? small(rng) : small(rng) + 100);
        } else {
            int r = small(rng);
            double x = r == 100 ? 1e30 : r == -100 ? -1e30 : r == 99 ? std::nan("") : r / 4.0;
            if (std::is_same_v<S, _Float16> && std::fabs(x) > 60000)
                x = x > 0 ? INFINITY : -INFINITY;
            v[i] = static_cast<S>(x);
        }
    }
    return v;
}

template <typename D> bool same_value(D a, D b)
{
    if constexpr (std::is_floating_point_v<D> || std::is_same_v<D, _Float16>) {
        double x = static_cast<double>(a), y = static_cast<double>(b);
        return (std::isnan(x) && std::isnan(y)) || x == y;
    } else {
        return a == b;
    }
}

template <typename S, typename D> void check_cast(std::mt19937_64 &rng)
{
    SCOPED_TRACE(std::string("from ") + hk_dtype_name(Kind<S>::dtype) + " to " + hk_dtype_name(Kind<D>::dtype));
    const size_t n = 1000003;
    auto src = random_values<S>(rng, n);
    hktest::DeviceMemory dsrc, ddst;
    ASSERT_HK_OK(dsrc.allocate(n * sizeof(S)));
    ASSERT_HK_OK(ddst.allocate(n * sizeof(D)));
    ASSERT_HK_OK(hk_memcpy_htod(dsrc.get(), src.get(), n * sizeof(S)));
    ASSERT_HK_OK(hk_memset(ddst.get(), 0x7F, n * sizeof(D)));
    hk_array a = view(dsrc.get(), Kind<S>::dtype, {static_cast<int64_t>(n)});
    hk_array b = view(ddst.get(), Kind<D>::dtype, {static_cast<int64_t>(n)});
    ASSERT_HK_OK(hk_copy_array(&a, &b, nullptr));
    Host<D> got(new D[n]);
    ASSERT_HK_OK(hk_memcpy_dtoh(got.get(), ddst.get(), n * sizeof(D)));
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (!same_value(got[i], reference_cast<D>(src[i])) && wrong++ < 3)
            ADD_FAILURE() << "element " << i << ": " << static_cast<double>(src[i]) << " became "
                          << static_cast<double>(got[i]) << ", expected "
                          << static_cast<double>(reference_cast<D>(src[i]));
    EXPECT_EQ(wrong, 0u);
}

template <typename S> void check_casts_from(std::mt19937_64 &rng)
{
    check_cast<S, bool>(rng);
    check_cast<S, int8_t>(rng);
    check_cast<S, uint8_t>(rng);
    check_cast<S, int32_t>(rng);
    check_cast<S, uint32_t>(rng);
    check_cast<S, int64_t>(rng);
    check_cast<S, uint64_t>(rng);
    check_cast<S, _Float16>(rng);
    check_cast<S, float>(rng);
    check_cast<S, double>(rng);
}

class CopyArrayOnGpu : public GpuTest
{
};

TEST_F(CopyArrayOnGpu, EveryDtypePairCastsAsDocumented)
{
    HKTEST_SEEDED_RNG(rng);
    check_casts_from<bool>(rng);
    check_casts_from<int8_t>(rng);
    check_casts_from<uint8_t>(rng);
    check_casts_from<int32_t>(rng);
    check_casts_from<uint32_t>(rng);
    check_casts_from<int64_t>(rng);
    check_casts_from<uint64_t>(rng);
    check_casts_from<_Float16>(rng);
    check_casts_from<float>(rng);
    check_casts_from<double>(rng);
}

// One strided case: src viewed with (shape, strides, offset) is copied into a
// contiguous or strided dst; the CPU walks both views the same way.
struct Case {
    const char *name;
    std::vector<int64_t> shape;       // dst shape
    std::vector<int64_t> src_shape;   // may be broadcast
    std::vector<int64_t> src_strides; // elements
    int64_t src_offset;               // of element (0, ..., 0) in the source buffer
    std::vector<int64_t> dst_strides; // empty: contiguous
};

TEST_F(CopyArrayOnGpu, StridedReversedBroadcastAndTransposedViews)
{
    HKTEST_SEEDED_RNG(rng);
    std::uniform_real_distribution<double> dist(-1, 1);
    const size_t pool = 1 << 16;
    std::vector<double> source(pool);
    for (double &v : source)
        v = dist(rng);
    hktest::DeviceMemory dsrc, ddst;
    ASSERT_HK_OK(dsrc.allocate(pool * 8));
    ASSERT_HK_OK(ddst.allocate(pool * 4));
    ASSERT_HK_OK(hk_memcpy_htod(dsrc.get(), source.data(), pool * 8));
    const std::vector<Case> cases = {
        {"transpose 37x53", {53, 37}, {53, 37}, {1, 53}, 0, {}},
        {"reversed", {1001}, {1001}, {-1}, 5000, {}},
        {"every third, reversed rows", {7, 11}, {7, 11}, {-33, 3}, 300, {}},
        {"broadcast row", {37, 53}, {1, 53}, {0, 1}, 17, {}},
        {"broadcast scalar (0-d)", {5, 6}, {}, {}, 99, {}},
        {"size-1 dims and a permutation", {3, 1, 4, 1, 5}, {3, 1, 4, 1, 5}, {1, 7, 3, 9, 12}, 0, {}},
        {"strided destination", {9, 10}, {9, 10}, {10, 1}, 0, {25, 2}},
        {"eight dimensions",
         {2, 3, 2, 3, 2, 3, 2, 3},
         {2, 3, 2, 3, 2, 3, 2, 3},
         {1, 2, 6, 12, 36, 72, 216, 432},
         0,
         {}},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.name);
        std::vector<int64_t> dst_strides = c.dst_strides;
        hk_array dst_view = view(ddst.get(), HK_FLOAT32, c.shape, dst_strides);
        hk_array src_view =
            view(static_cast<double *>(dsrc.get()) + c.src_offset, HK_FLOAT64, c.src_shape, c.src_strides);
        if (c.src_shape.empty())
            src_view.ndim = 0;
        ASSERT_HK_OK(hk_memset(ddst.get(), 0xFF, pool * 4)); // NaN everywhere
        ASSERT_HK_OK(hk_copy_array(&src_view, &dst_view, nullptr));
        std::vector<float> got(pool);
        ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), ddst.get(), pool * 4));
        std::vector<char> written(pool, 0);
        size_t wrong = 0;
        hktest::walk(c.shape, [&](const std::vector<int64_t> &i) {
            int64_t s = c.src_offset, d = 0;
            const size_t shift = c.shape.size() - c.src_shape.size();
            for (size_t k = 0; k < c.shape.size(); k++) {
                if (k >= shift && c.src_shape[k - shift] != 1)
                    s += i[k] * c.src_strides[k - shift];
                d += i[k] * dst_view.strides[k];
            }
            written[d] = 1;
            if (got[d] != static_cast<float>(source[s]))
                wrong++;
        });
        EXPECT_EQ(wrong, 0u);
        size_t stray = 0;
        for (size_t k = 0; k < pool; k++)
            if (!written[k] && !std::isnan(got[k]))
                stray++;
        EXPECT_EQ(stray, 0u) << "elements outside the destination view were written";
    }
}

// A copy into the same dtype keeps every bit: NaN payloads, signalling NaNs and -0.0 of each float
// dtype, contiguous and through a reversed view (what hk_mask_select and gathers rely on).
TEST_F(CopyArrayOnGpu, TheSameFloatDtypeCopiesBitsAsTheyAre)
{
    const uint16_t h[] = {0x7C01, 0x7D55, 0xFE01, 0x8000, 0x3C00, 0x7E00};
    const uint32_t f[] = {0x7F800001u, 0x7FA00000u, 0xFFC00123u, 0x80000000u, 0x3F800000u, 0x7FC00000u};
    const uint64_t d[] = {0x7FF0000000000001ull, 0x7FF4000000000000ull, 0xFFF8000000000123ull,
                          0x8000000000000000ull, 0x3FF0000000000000ull, 0x7FF8000000000000ull};
    const struct {
        hk_dtype dtype;
        const void *bits;
        size_t item;
    } cases[] = {{HK_FLOAT16, h, 2}, {HK_FLOAT32, f, 4}, {HK_FLOAT64, d, 8}};
    for (const auto &c : cases) {
        SCOPED_TRACE(hk_dtype_name(c.dtype));
        const size_t bytes = 6 * c.item;
        DeviceMemory src, dst;
        ASSERT_HK_OK(src.allocate(bytes));
        ASSERT_HK_OK(dst.allocate(bytes));
        ASSERT_HK_OK(hk_memcpy_htod(src.get(), c.bits, bytes));
        for (bool reversed : {false, true}) {
            const hk_array a = reversed ? view(static_cast<char *>(src.get()) + 5 * c.item, c.dtype, {6}, {-1})
                                        : view(src.get(), c.dtype, {6});
            const hk_array b = view(dst.get(), c.dtype, {6});
            ASSERT_HK_OK(hk_copy_array(&a, &b, nullptr));
            std::vector<unsigned char> got(bytes);
            ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), dst.get(), bytes));
            for (size_t e = 0; e < 6; e++) {
                const size_t from = reversed ? 5 - e : e;
                EXPECT_EQ(std::memcmp(&got[e * c.item], static_cast<const char *>(c.bits) + from * c.item, c.item), 0)
                    << "element " << e << (reversed ? " (reversed view)" : "");
            }
        }
    }
}

} // namespace
