// test_new_dtypes.cpp: int16, uint16, complex64 and complex128 through the C API, against reference
// loops in C++ (std::complex for the complex arithmetic) on fresh random data at awkward sizes, with the
// outputs poisoned first; and the errors of what complex numbers cannot do. Runs on the current device
// (a GPU, else the CPU device).
#include "common.h"
#include "views.h"

#include <complex>

namespace
{

using hktest::DeviceMemory;
using hktest::view; // tests/c/views.h

template <typename T> std::vector<T> to_host(const DeviceMemory &m, size_t n)
{
    std::vector<T> v(n);
    EXPECT_HK_OK(hk_stream_synchronize(nullptr));
    if (n)
        EXPECT_HK_OK(hk_memcpy_dtoh(v.data(), m.get(), n * sizeof(T)));
    return v;
}

template <typename T> void to_device(DeviceMemory &m, const std::vector<T> &v)
{
    ASSERT_HK_OK(m.allocate(std::max<size_t>(1, v.size()) * sizeof(T)));
    if (!v.empty())
        ASSERT_HK_OK(hk_memcpy_htod(m.get(), v.data(), v.size() * sizeof(T)));
}

TEST(NewDtypes, NamesAndSizes)
{
    const struct {
        hk_dtype dtype;
        const char *name;
        size_t size;
    } rows[] = {{HK_INT16, "int16", 2},
                {HK_UINT16, "uint16", 2},
                {HK_COMPLEX64, "complex64", 8},
                {HK_COMPLEX128, "complex128", 16}};
    for (const auto &r : rows) {
        size_t size = 0;
        EXPECT_HK_OK(hk_dtype_size(r.dtype, &size));
        EXPECT_EQ(size, r.size);
        EXPECT_STREQ(hk_dtype_name(r.dtype), r.name);
    }
    size_t size = 0;
    EXPECT_EQ(hk_dtype_size(static_cast<hk_dtype>(HK_DTYPE_COUNT), &size), HK_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(hk_dtype_name(static_cast<hk_dtype>(HK_DTYPE_COUNT)), "invalid");
}

template <typename R> void complex_arithmetic(hk_dtype dtype, size_t n)
{
    typedef std::complex<R> C;
    std::mt19937_64 gen(hktest::fresh_seed());
    std::normal_distribution<R> normal;
    std::vector<C> a(n), b(n);
    for (size_t i = 0; i < n; i++) {
        a[i] = C(normal(gen), normal(gen));
        b[i] = C(normal(gen), normal(gen));
    }
    DeviceMemory da, db, dout;
    to_device(da, a);
    to_device(db, b);
    ASSERT_HK_OK(dout.allocate(std::max<size_t>(1, n) * sizeof(C)));
    const hk_op ops[] = {HK_OP_ADD, HK_OP_SUBTRACT, HK_OP_MULTIPLY, HK_OP_DIVIDE};
    for (hk_op op : ops) {
        ASSERT_HK_OK(hk_memset(dout.get(), 0xFF, std::max<size_t>(1, n) * sizeof(C))); // NaN everywhere
        hk_array in[2] = {view(da.get(), dtype, {(int64_t)n}), view(db.get(), dtype, {(int64_t)n})};
        hk_array out = view(dout.get(), dtype, {(int64_t)n});
        ASSERT_HK_OK(hk_elementwise(op, in, 2, &out, nullptr));
        const std::vector<C> got = to_host<C>(dout, n);
        for (size_t i = 0; i < n; i++) {
            const C want = op == HK_OP_ADD        ? a[i] + b[i]
                           : op == HK_OP_SUBTRACT ? a[i] - b[i]
                           : op == HK_OP_MULTIPLY ? a[i] * b[i]
                                                  : a[i] / b[i];
            const R tol = (sizeof(R) == 4 ? R(1e-5) : R(1e-13)) * std::max(R(1), std::abs(want));
            ASSERT_LE(std::abs(got[i] - want), tol) << hk_op_name(op) << " [" << i << "] of " << n;
        }
    }
    // abs gives the parts' real dtype; out of the complex dtype is refused
    std::vector<R> mags(n);
    DeviceMemory dmag;
    ASSERT_HK_OK(dmag.allocate(std::max<size_t>(1, n) * sizeof(R)));
    hk_array in = view(da.get(), dtype, {(int64_t)n});
    hk_array wrong = view(dout.get(), dtype, {(int64_t)n});
    EXPECT_EQ(hk_elementwise(HK_OP_ABSOLUTE, &in, 1, &wrong, nullptr), HK_ERROR_INVALID_ARGUMENT);
    hk_array mag = view(dmag.get(), sizeof(R) == 4 ? HK_FLOAT32 : HK_FLOAT64, {(int64_t)n});
    ASSERT_HK_OK(hk_elementwise(HK_OP_ABSOLUTE, &in, 1, &mag, nullptr));
    mags = to_host<R>(dmag, n);
    for (size_t i = 0; i < n; i++)
        ASSERT_NEAR(mags[i], std::abs(a[i]), std::abs(a[i]) * (sizeof(R) == 4 ? 1e-6 : 1e-15)) << i;
}

TEST(NewDtypes, ComplexArithmeticMatchesStdComplex)
{
    for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(1031)}) {
        complex_arithmetic<float>(HK_COMPLEX64, n);
        complex_arithmetic<double>(HK_COMPLEX128, n);
    }
}

TEST(NewDtypes, ComplexHasNoOrder)
{
    DeviceMemory d;
    ASSERT_HK_OK(d.allocate(64));
    hk_array in[2] = {view(d.get(), HK_COMPLEX64, {4}), view(d.get(), HK_COMPLEX64, {4})};
    hk_array out = view(d.get(), HK_BOOL, {4});
    EXPECT_EQ(hk_elementwise(HK_OP_LESS, in, 2, &out, nullptr), HK_ERROR_NOT_SUPPORTED);
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "complex64"));
    hk_array keys = view(d.get(), HK_COMPLEX64, {4});
    EXPECT_EQ(hk_sort(&in[0], &keys, nullptr, nullptr), HK_ERROR_NOT_SUPPORTED);
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "no order"));
    hk_array scalar;
    std::memset(&scalar, 0, sizeof scalar);
    scalar.data = d.get();
    scalar.dtype = HK_COMPLEX64;
    EXPECT_EQ(hk_reduce(HK_REDUCE_MAX, &in[0], 1u, &scalar, 0, nullptr), HK_ERROR_NOT_SUPPORTED);
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "complex"));
}

template <typename T> void int16_ops(hk_dtype dtype)
{
    std::mt19937_64 gen(hktest::fresh_seed());
    std::uniform_int_distribution<int> any(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
    const size_t n = 4099;
    std::vector<T> a(n), b(n);
    for (size_t i = 0; i < n; i++) {
        a[i] = static_cast<T>(any(gen));
        b[i] = static_cast<T>(any(gen));
    }
    DeviceMemory da, db, dout;
    to_device(da, a);
    to_device(db, b);
    ASSERT_HK_OK(dout.allocate(n * sizeof(T)));
    ASSERT_HK_OK(hk_memset(dout.get(), 0x7F, n * sizeof(T)));
    hk_array in[2] = {view(da.get(), dtype, {(int64_t)n}), view(db.get(), dtype, {(int64_t)n})};
    hk_array out = view(dout.get(), dtype, {(int64_t)n});
    ASSERT_HK_OK(hk_elementwise(HK_OP_MULTIPLY, in, 2, &out, nullptr));
    std::vector<T> got = to_host<T>(dout, n);
    for (size_t i = 0; i < n; i++) // wraps around, as NumPy's
        ASSERT_EQ(got[i], static_cast<T>(static_cast<uint32_t>(a[i]) * static_cast<uint32_t>(b[i]))) << i;
    // sum: int64 / uint64 (NumPy's accumulation dtypes)
    DeviceMemory dsum;
    ASSERT_HK_OK(dsum.allocate(8));
    hk_array total;
    std::memset(&total, 0, sizeof total);
    total.data = dsum.get();
    total.dtype = std::is_signed<T>::value ? HK_INT64 : HK_UINT64;
    ASSERT_HK_OK(hk_reduce(HK_REDUCE_SUM, &in[0], 1u, &total, 0, nullptr));
    int64_t want = 0, sum = 0;
    for (T v : a)
        want += v;
    ASSERT_HK_OK(hk_stream_synchronize(nullptr));
    ASSERT_HK_OK(hk_memcpy_dtoh(&sum, dsum.get(), 8));
    EXPECT_EQ(sum, want);
    // sort
    ASSERT_HK_OK(hk_sort(&in[0], &out, nullptr, nullptr));
    got = to_host<T>(dout, n);
    std::sort(a.begin(), a.end());
    EXPECT_EQ(got, a);
}

TEST(NewDtypes, Int16AndUint16MultiplySumAndSort)
{
    int16_ops<int16_t>(HK_INT16);
    int16_ops<uint16_t>(HK_UINT16);
}

TEST(NewDtypes, CopyBetweenComplexAndReal)
{
    const std::vector<std::complex<double>> z = {{1.5, -2.0}, {-0.0, 3.0}, {1e300, 1e-300}, {-7.25, 0.0}};
    DeviceMemory dz, df, dc;
    to_device(dz, z);
    ASSERT_HK_OK(df.allocate(z.size() * sizeof(float)));
    ASSERT_HK_OK(dc.allocate(z.size() * sizeof(std::complex<float>)));
    hk_array src = view(dz.get(), HK_COMPLEX128, {(int64_t)z.size()});
    hk_array f = view(df.get(), HK_FLOAT32, {(int64_t)z.size()});
    hk_array c = view(dc.get(), HK_COMPLEX64, {(int64_t)z.size()});
    ASSERT_HK_OK(hk_copy_array(&src, &f, nullptr)); // the real part, as NumPy's astype
    ASSERT_HK_OK(hk_copy_array(&src, &c, nullptr));
    const std::vector<float> re = to_host<float>(df, z.size());
    const std::vector<std::complex<float>> narrowed = to_host<std::complex<float>>(dc, z.size());
    for (size_t i = 0; i < z.size(); i++) {
        EXPECT_EQ(re[i], static_cast<float>(z[i].real())) << i;
        EXPECT_EQ(narrowed[i], std::complex<float>(z[i])) << i;
    }
    // and back from a real dtype: imaginary part 0
    ASSERT_HK_OK(hk_copy_array(&f, &src, nullptr));
    const std::vector<std::complex<double>> widened = to_host<std::complex<double>>(dz, z.size());
    for (size_t i = 0; i < z.size(); i++)
        EXPECT_EQ(widened[i], std::complex<double>(static_cast<double>(re[i]), 0.0)) << i;
}

} // namespace
