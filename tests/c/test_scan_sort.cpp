// test_scan_sort.cpp: hk_scan (cumsum, cumprod along any axis) and hk_sort
// (stable sort / argsort along the last axis) against CPU references, for
// every dtype, on contiguous, strided, reversed and transposed views, in place,
// with outputs poisoned so unwritten or stray elements show; plus every
// validation error path without a GPU.
#include "common.h"
#include "views.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>

namespace
{

using hktest::Mismatches;

// ------------------------------------------------------------------ helpers

using hktest::view; // tests/c/views.h
using hktest::walk;

template <hk_dtype D> struct DT;
#define HKTEST_DT(CODE, TYPE, FLOAT)                                                                                   \
    template <> struct DT<CODE> {                                                                                      \
        typedef TYPE T;                                                                                                \
        static constexpr bool is_float = FLOAT;                                                                        \
    };
HKTEST_DT(HK_BOOL, uint8_t, false)
HKTEST_DT(HK_INT8, int8_t, false)
HKTEST_DT(HK_UINT8, uint8_t, false)
HKTEST_DT(HK_INT16, int16_t, false)
HKTEST_DT(HK_UINT16, uint16_t, false)
HKTEST_DT(HK_INT32, int32_t, false)
HKTEST_DT(HK_UINT32, uint32_t, false)
HKTEST_DT(HK_INT64, int64_t, false)
HKTEST_DT(HK_UINT64, uint64_t, false)
HKTEST_DT(HK_FLOAT16, _Float16, true)
HKTEST_DT(HK_FLOAT32, float, true)
HKTEST_DT(HK_FLOAT64, double, true)

constexpr hk_dtype acc_dtype(hk_dtype d)
{
    return d == HK_BOOL || d == HK_INT8 || d == HK_INT16 || d == HK_INT32 || d == HK_INT64 ? HK_INT64
           : d == HK_UINT8 || d == HK_UINT16 || d == HK_UINT32 || d == HK_UINT64           ? HK_UINT64
                                                                                           : d;
}

// The real dtypes: the ones that scan and sort (complex cumsum is Python's, by parts; complex numbers
// have no order).
const hk_dtype all_dtypes[] = {HK_BOOL,   HK_INT8,  HK_UINT8,  HK_INT16,   HK_UINT16,  HK_INT32,
                               HK_UINT32, HK_INT64, HK_UINT64, HK_FLOAT16, HK_FLOAT32, HK_FLOAT64};

size_t dtype_bytes(hk_dtype d)
{
    size_t b = 0;
    hk_dtype_size(d, &b);
    return b;
}

std::string shape_text(const std::vector<int64_t> &shape)
{
    std::string s = "(";
    for (size_t k = 0; k < shape.size(); k++)
        s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> c_strides(const std::vector<int64_t> &shape)
{
    std::vector<int64_t> s(shape.size());
    int64_t step = 1;
    for (size_t k = shape.size(); k-- > 0;) {
        s[k] = step;
        step *= std::max<int64_t>(shape[k], 1);
    }
    return s;
}

// How a test lays a view out in its buffer.
enum class Layout { Contiguous, Reversed, Transposed, Spaced };

const char *layout_name(Layout l)
{
    switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Reversed: return "reversed (negative strides)";
    case Layout::Transposed: return "transposed (column-major)";
    case Layout::Spaced: return "spaced (stride x2)";
    }
    return "?";
}

std::vector<int64_t> strides_for(const std::vector<int64_t> &shape, Layout l)
{
    std::vector<int64_t> s = c_strides(shape);
    switch (l) {
    case Layout::Contiguous: break;
    case Layout::Reversed:
        for (auto &v : s)
            v = -v;
        break;
    case Layout::Transposed: {
        int64_t step = 1;
        for (size_t k = 0; k < shape.size(); k++) {
            s[k] = step;
            step *= std::max<int64_t>(shape[k], 1);
        }
        break;
    }
    case Layout::Spaced:
        for (auto &v : s)
            v *= 2;
        break;
    }
    return s;
}

// A view with its own device buffer (a margin of 3 elements around what it
// reaches, so stray writes show) and a host copy of the whole buffer.
class Buffer
{
  public:
    Buffer(hk_dtype dtype, std::vector<int64_t> shape, std::vector<int64_t> strides)
        : dtype_(dtype), item_(dtype_bytes(dtype)), shape_(std::move(shape)), strides_(std::move(strides))
    {
        int64_t low = 0, high = 0;
        for (size_t k = 0; k < shape_.size(); k++)
            if (shape_[k] > 0)
                (strides_[k] < 0 ? low : high) += strides_[k] * (shape_[k] - 1);
        origin_ = 3 - low;
        elements_ = static_cast<size_t>(high - low + 7);
        host_.assign(elements_ * item_, 0);
    }
    hk_status allocate() { return memory_.allocate(elements_ * item_); }
    hk_array array() const
    {
        return view(static_cast<char *>(memory_.get()) + origin_ * static_cast<int64_t>(item_), dtype_, shape_,
                    strides_);
    }
    // Element index in the buffer of a view index.
    size_t at(const std::vector<int64_t> &index) const
    {
        int64_t e = origin_;
        for (size_t k = 0; k < index.size(); k++)
            e += index[k] * strides_[k];
        return static_cast<size_t>(e);
    }
    template <typename T> T get(size_t e) const
    {
        T v;
        std::memcpy(&v, host_.data() + e * item_, sizeof v);
        return v;
    }
    template <typename T> void set(size_t e, T v) { std::memcpy(host_.data() + e * item_, &v, sizeof v); }
    const unsigned char *bytes(size_t e) const { return host_.data() + e * item_; }
    void fill_bytes(int value) { std::memset(host_.data(), value, host_.size()); }
    void fill_random(std::mt19937_64 &rng)
    {
        for (auto &b : host_)
            b = static_cast<unsigned char>(rng());
    }
    hk_status upload() { return hk_memcpy_htod(memory_.get(), host_.data(), host_.size()); }
    hk_status download() { return hk_memcpy_dtoh(host_.data(), memory_.get(), host_.size()); }
    size_t elements() const { return elements_; }
    size_t item() const { return item_; }
    const std::vector<int64_t> &shape() const { return shape_; }
    // Elements of the buffer the view reaches.
    std::vector<char> reached() const
    {
        std::vector<char> r(elements_, 0);
        walk(shape_, [&](const std::vector<int64_t> &i) { r[at(i)] = 1; });
        return r;
    }

  private:
    hk_dtype dtype_;
    size_t item_;
    std::vector<int64_t> shape_, strides_;
    int64_t origin_ = 0;
    size_t elements_ = 0;
    std::vector<unsigned char> host_;
    hktest::DeviceMemory memory_;
};

// Bytes of the buffer outside the view that no longer hold the poison byte.
size_t stray_writes(const Buffer &b, int poison)
{
    std::vector<char> mine = b.reached();
    size_t stray = 0;
    for (size_t e = 0; e < b.elements(); e++)
        if (!mine[e])
            for (size_t k = 0; k < b.item(); k++)
                if (b.bytes(e)[k] != static_cast<unsigned char>(poison)) {
                    stray++;
                    break;
                }
    return stray;
}

template <typename T> double as_double(T v)
{
    return static_cast<double>(v);
}

template <typename T> std::string text(T v)
{
    if constexpr (std::is_same_v<T, _Float16>)
        return hktest::show(static_cast<float>(v));
    else
        return hktest::show(v);
}

// ------------------------------------------------------------ scan: no GPU

TEST(Scan, RefusesBadArguments)
{
    alignas(16) static char fake[1024];
    hk_array in = view(fake, HK_INT32, {4, 8});
    hk_array out = view(fake + 512, HK_INT64, {4, 8});
    const char *fn = "hk_scan";
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(static_cast<hk_scan_op>(2), &in, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "hk_scan_op"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(static_cast<hk_scan_op>(-1), &in, 0, &out, nullptr));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, nullptr, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "in must not be NULL"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in, 0, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "out must not be NULL"));

    hk_array bad = in;
    bad.dtype = static_cast<hk_dtype>(HK_DTYPE_COUNT);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &bad, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "not a hk_dtype"));
    bad = in;
    bad.ndim = HK_MAX_DIMS + 1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &bad, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "ndim"));
    bad = in;
    bad.shape[1] = -3;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &bad, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "negative"));
    bad = in;
    bad.data = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &bad, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "NULL"));
    bad = in;
    bad.data = fake + 2;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &bad, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "aligned"));
    bad = in;
    bad.strides[0] = INT64_MAX / 2;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &bad, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "overflows"));
    hk_array wide = view(fake, HK_INT32, {2, 2, 2}, {INT64_MAX / 2, INT64_MAX / 2, INT64_MAX / 2});
    hk_array wide_out = view(fake + 512, HK_INT64, {2, 2, 2});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &wide, 0, &wide_out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "address space"));
    hk_array top = view(reinterpret_cast<void *>(UINTPTR_MAX - 63), HK_INT8, {4, 8}, {32, 1});
    hk_array top_out = view(fake + 512, HK_INT64, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &top, 0, &top_out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "outside the address space"));

    // axis
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in, 2, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "axis 2 is out of range"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in, -3, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "axis -3 is out of range"));

    // dtype: out must be acc(in)
    hk_array same_dtype = view(fake + 512, HK_INT32, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in, 0, &same_dtype, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "int64"));
    hk_array u8 = view(fake, HK_UINT8, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMPROD, &u8, 0, &out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "uint64"));
    hk_array f16 = view(fake, HK_FLOAT16, {4, 8}), f32_out = view(fake + 512, HK_FLOAT32, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &f16, 0, &f32_out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "float16"));

    // shapes
    hk_array other_shape = view(fake + 512, HK_INT64, {4, 7});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in, 0, &other_shape, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "shape"));
    hk_array other_ndim = view(fake + 512, HK_INT64, {32});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in, 0, &other_ndim, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "dimensions"));
    hk_array scalar = view(fake, HK_INT32, {});
    hk_array two = view(fake + 512, HK_INT64, {2});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &scalar, 0, &two, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "0-d"));
    hk_array scalar_out = view(fake + 512, HK_INT64, {});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &scalar, 1, &scalar_out, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "axis 1 is out of range"));

    // an output with stride 0 along a real extent
    hk_array zero_stride = view(fake + 512, HK_INT64, {4, 8}, {0, 1});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in, 0, &zero_stride, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "strides[0] is 0"));

    // overlap: partial, or the same memory under another dtype or strides
    hk_array shifted = view(fake + 8, HK_INT64, {4, 8});
    hk_array in64 = view(fake, HK_INT64, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in64, 1, &shifted, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "overlaps"));
    hk_array in32_over = view(fake, HK_INT32, {4, 8}), out64_over = view(fake, HK_INT64, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &in32_over, 1, &out64_over, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "overlaps"));
    hk_array transposed = view(fake, HK_INT64, {4, 8}, {1, 4});
    hk_array square = view(fake, HK_INT64, {4, 8}, {8, 1});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_scan(HK_SCAN_CUMSUM, &square, 1, &transposed, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "same view"));

    // a stale stream, even for empty work
    hk_array empty_in = view(fake, HK_INT32, {0, 8}), empty_out = view(fake + 512, HK_INT64, {0, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, fn,
                    hk_scan(HK_SCAN_CUMSUM, &empty_in, 1, &empty_out, hktest::bogus_stream()));
}

TEST(Scan, EmptyNeedsNoGpu)
{
    alignas(16) static char fake[64];
    hk_array in = view(fake, HK_FLOAT32, {0}), out = view(fake + 32, HK_FLOAT32, {0});
    EXPECT_HK_OK(hk_scan(HK_SCAN_CUMSUM, &in, 0, &out, nullptr));
    hk_array in2 = view(nullptr, HK_INT8, {3, 0, 2}), out2 = view(nullptr, HK_INT64, {3, 0, 2});
    EXPECT_HK_OK(hk_scan(HK_SCAN_CUMPROD, &in2, -1, &out2, nullptr));
    EXPECT_HK_OK(hk_scan(HK_SCAN_CUMPROD, &in2, 0, &out2, nullptr));
    EXPECT_STREQ(hk_last_error(), "");
}

TEST(Scan, NeedsAGpuForRealWork)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    alignas(16) static char fake[256];
    hk_array in = view(fake, HK_FLOAT32, {16}), out = view(fake + 128, HK_FLOAT32, {16});
    EXPECT_SAYS_NO_GPU("hk_scan", hk_scan(HK_SCAN_CUMSUM, &in, 0, &out, nullptr));
    EXPECT_SAYS_NO_GPU("hk_scan", hk_scan(HK_SCAN_CUMPROD, &in, -1, &in, nullptr)); // in place is allowed
}

// ------------------------------------------------------------ sort: no GPU

TEST(Sort, RefusesBadArguments)
{
    alignas(16) static char fake[2048];
    const char *fn = "hk_sort";
    hk_array in = view(fake, HK_FLOAT32, {4, 8});
    hk_array keys = view(fake + 512, HK_FLOAT32, {4, 8});
    hk_array idx = view(fake + 1024, HK_INT64, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(nullptr, &keys, &idx, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "in must not be NULL"));
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, nullptr, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "both NULL"));

    hk_array bad = in;
    bad.dtype = static_cast<hk_dtype>(-1);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&bad, &keys, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "not a hk_dtype"));
    bad = in;
    bad.ndim = -1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&bad, &keys, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "ndim"));
    bad = keys;
    bad.data = fake + 514;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &bad, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "keys_out.data"));
    bad = idx;
    bad.data = nullptr;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, nullptr, &bad, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "indices_out.data is NULL"));
    bad = idx;
    bad.shape[0] = -1;
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &keys, &bad, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "indices_out.shape[0] is negative"));
    bad = keys;
    bad.dtype = static_cast<hk_dtype>(99);
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &bad, &idx, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "keys_out.dtype 99 is not a hk_dtype"));

    // dtypes
    hk_array keys_f64 = view(fake + 512, HK_FLOAT64, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &keys_f64, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "keys_out.dtype is float64"));
    hk_array idx_i32 = view(fake + 1024, HK_INT32, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, nullptr, &idx_i32, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "int64"));

    // shapes
    hk_array keys_shape = view(fake + 512, HK_FLOAT32, {8, 4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &keys_shape, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "keys_out.shape[0]"));
    hk_array idx_ndim = view(fake + 1024, HK_INT64, {32});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, nullptr, &idx_ndim, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "dimensions"));
    hk_array keys_zero = view(fake + 512, HK_FLOAT32, {4, 8}, {8, 0});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &keys_zero, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "keys_out.strides[1] is 0"));
    hk_array scalar = view(fake, HK_FLOAT32, {});
    hk_array idx_two = view(fake + 1024, HK_INT64, {2});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&scalar, nullptr, &idx_two, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "0-d"));

    // overlaps
    hk_array keys_shifted = view(fake + 4, HK_FLOAT32, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &keys_shifted, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "keys_out overlaps in"));
    hk_array keys_reordered = view(fake, HK_FLOAT32, {4, 8}, {1, 4});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &keys_reordered, nullptr, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "same view"));
    hk_array idx_on_in = view(fake + 64, HK_INT64, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, nullptr, &idx_on_in, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "indices_out overlaps in"));
    hk_array idx_on_keys = view(fake + 512 + 64, HK_INT64, {4, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_ARGUMENT, fn, hk_sort(&in, &keys, &idx_on_keys, nullptr));
    EXPECT_TRUE(hktest::contains_ignoring_case(hk_last_error(), "indices_out overlaps keys_out"));

    hk_array empty = view(fake, HK_FLOAT32, {0, 8}), empty_keys = view(fake + 512, HK_FLOAT32, {0, 8});
    EXPECT_HK_FAILS(HK_ERROR_INVALID_HANDLE, fn, hk_sort(&empty, &empty_keys, nullptr, hktest::bogus_stream()));
}

TEST(Sort, EmptyNeedsNoGpu)
{
    hk_array in = view(nullptr, HK_UINT8, {5, 0}), keys = view(nullptr, HK_UINT8, {5, 0});
    hk_array idx = view(nullptr, HK_INT64, {5, 0});
    EXPECT_HK_OK(hk_sort(&in, &keys, &idx, nullptr));
    EXPECT_HK_OK(hk_sort(&in, nullptr, &idx, nullptr));
    EXPECT_HK_OK(hk_sort(&in, &in, nullptr, nullptr));
    EXPECT_STREQ(hk_last_error(), "");
}

TEST(Sort, NeedsAGpuForRealWork)
{
    RUN_AS_IF_NO_GPU_BUT_ONE_ASKED_FOR();
    alignas(16) static char fake[512];
    hk_array in = view(fake, HK_FLOAT64, {16}), idx = view(fake + 256, HK_INT64, {16});
    EXPECT_SAYS_NO_GPU("hk_sort", hk_sort(&in, nullptr, &idx, nullptr));
    EXPECT_SAYS_NO_GPU("hk_sort", hk_sort(&in, &in, nullptr, nullptr)); // in place is allowed
}

// ------------------------------------------------------------- scan on GPU

// Exact: data whose every partial result is exact in the dtype, whatever
// the order of the operations (small multiples of 1/4 along a walk kept
// within +-256; factors +-1, +-2, +-1/2 whose product stays within 2^+-6);
// any indexing slip shows. Specials: Exact plus NaN, +-inf and zeros at a
// few random positions. Rounding: uniform random floats, compared within
// n * eps * the running sum of |x| (integers: full-range values either way).
enum class Data { Exact, Specials, Rounding };

const char *data_name(Data d)
{
    return d == Data::Exact ? "exact data" : d == Data::Specials ? "with NaN/inf/zeros" : "random floats";
}

struct ScanCase {
    std::vector<int64_t> shape;
    int axis;
    Layout in_layout, out_layout;
    bool in_place;
};

template <hk_dtype D>
void fill_row(std::mt19937_64 &rng, hk_scan_op op, Data data, std::vector<double> &row_values, Buffer &in,
              const std::vector<size_t> &positions)
{
    typedef typename DT<D>::T T;
    const size_t L = positions.size();
    row_values.resize(L);
    if constexpr (D == HK_BOOL) {
        for (size_t i = 0; i < L; i++) {
            // cumprod: mostly ones, so a row's first zero lands anywhere
            const bool one = op == HK_SCAN_CUMSUM ? (rng() & 1) : (rng() % (2 * L + 2) != 0);
            in.set<uint8_t>(positions[i], one ? 1 : 0);
        }
    } else if constexpr (!DT<D>::is_float) {
        for (size_t i = 0; i < L; i++) {
            uint64_t bits = rng();
            if (op == HK_SCAN_CUMPROD && rng() % 32 != 0)
                bits |= 1; // mostly odd factors: the wrapped product stays non-zero longer
            in.set<T>(positions[i], static_cast<T>(bits));
        }
    } else {
        std::uniform_int_distribution<int> small(-8, 8);
        std::uniform_real_distribution<double> uniform(-1, 1), near_one(0.99, 1.01);
        double walk = 0;
        int exponent = 0;
        for (size_t i = 0; i < L; i++) {
            double v;
            if (data == Data::Rounding) {
                v = op == HK_SCAN_CUMSUM ? uniform(rng) : near_one(rng);
            } else if (op == HK_SCAN_CUMSUM) {
                int k = small(rng);
                if (std::fabs(walk + k / 4.0) > 256)
                    k = -k;
                v = k / 4.0;
                walk += v;
            } else {
                int step = static_cast<int>(rng() % 3) - 1; // x2, x1, x1/2
                if (std::abs(exponent + step) > 6)
                    step = -step;
                exponent += step;
                v = std::ldexp((rng() & 1) ? -1.0 : 1.0, step);
            }
            if (data == Data::Specials && rng() % (L / 3 + 1) == 0) {
                const double specials[] = {std::nan(""), INFINITY, -INFINITY, 0.0, -0.0};
                v = specials[rng() % 5];
            }
            const T stored = static_cast<T>(v);
            in.set<T>(positions[i], stored);
            row_values[i] = static_cast<double>(stored);
        }
    }
}

template <hk_dtype D> void check_scan(hk_scan_op op, const ScanCase &c, Data data, std::mt19937_64 &rng)
{
    typedef typename DT<D>::T T;
    constexpr hk_dtype A = acc_dtype(D);
    typedef typename DT<A>::T TA;
    SCOPED_TRACE(std::string(op == HK_SCAN_CUMSUM ? "cumsum" : "cumprod") + " of " + hk_dtype_name(D) + " " +
                 shape_text(c.shape) + " along axis " + std::to_string(c.axis) + ", in " + layout_name(c.in_layout) +
                 (c.in_place ? ", in place" : std::string(", out ") + layout_name(c.out_layout)) + ", " +
                 data_name(data));
    if (c.in_place) {
        ASSERT_EQ(A, D) << "test bug: in place needs acc(dtype) == dtype";
    }
    const int ndim = static_cast<int>(c.shape.size());
    const int axis = c.axis < 0 ? c.axis + std::max(ndim, 1) : c.axis;

    Buffer in(D, c.shape, strides_for(c.shape, c.in_layout));
    ASSERT_HK_OK(in.allocate());
    std::unique_ptr<Buffer> separate;
    if (!c.in_place) {
        separate.reset(new Buffer(A, c.shape, strides_for(c.shape, c.out_layout)));
        ASSERT_HK_OK(separate->allocate());
    }
    Buffer &out = c.in_place ? in : *separate;

    // Rows: every index with index[axis] == 0; the row runs along the axis.
    std::vector<int64_t> row_shape = c.shape;
    const int64_t L = ndim == 0 ? 1 : c.shape[axis];
    if (ndim > 0)
        row_shape[axis] = 1;
    in.fill_random(rng);
    std::vector<std::vector<size_t>> in_rows, out_rows;
    std::vector<std::vector<double>> values;
    walk(row_shape, [&](const std::vector<int64_t> &start) {
        std::vector<size_t> pin(L), pout(L);
        std::vector<int64_t> i = start;
        for (int64_t k = 0; k < L; k++) {
            if (ndim > 0)
                i[axis] = k;
            pin[k] = in.at(i);
            pout[k] = out.at(i);
        }
        values.emplace_back();
        fill_row<D>(rng, op, data, values.back(), in, pin);
        in_rows.push_back(std::move(pin));
        out_rows.push_back(std::move(pout));
    });
    std::vector<unsigned char> original(in.elements() * in.item());
    std::memcpy(original.data(), in.bytes(0), original.size());
    ASSERT_HK_OK(in.upload());
    if (!c.in_place) {
        out.fill_bytes(0xFF);
        ASSERT_HK_OK(out.upload());
    }
    hk_array a = in.array(), b = out.array();
    ASSERT_HK_OK(hk_scan(op, &a, c.axis, &b, nullptr));
    ASSERT_HK_OK(out.download());

    Mismatches wrong;
    auto original_value = [&](size_t e) {
        T v;
        std::memcpy(&v, original.data() + e * sizeof(T), sizeof v);
        return v;
    };
    for (size_t r = 0; r < in_rows.size(); r++) {
        if constexpr (!DT<D>::is_float) {
            uint64_t acc = op == HK_SCAN_CUMSUM ? 0 : 1;
            for (int64_t k = 0; k < L; k++) {
                const T x = original_value(in_rows[r][k]);
                uint64_t v;
                if constexpr (D == HK_BOOL)
                    v = x != 0;
                else if constexpr (std::is_signed_v<T>)
                    v = static_cast<uint64_t>(static_cast<int64_t>(x));
                else
                    v = static_cast<uint64_t>(x);
                acc = op == HK_SCAN_CUMSUM ? acc + v : acc * v;
                const TA expected = static_cast<TA>(acc), got = out.get<TA>(out_rows[r][k]);
                if (got != expected)
                    wrong.add(static_cast<size_t>(k), hktest::show(got),
                              hktest::show(expected) + " (row " + std::to_string(r) + ")");
            }
        } else {
            double acc = 0, running_abs = 0;
            const double eps =
                D == HK_FLOAT64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
            for (int64_t k = 0; k < L; k++) {
                const double x = values[r][k];
                acc = k == 0 ? x : op == HK_SCAN_CUMSUM ? acc + x : acc * x;
                running_abs = op == HK_SCAN_CUMSUM ? running_abs + std::fabs(x) : std::fabs(acc);
                const T expected = static_cast<T>(acc);
                const T got = out.get<T>(out_rows[r][k]);
                const double g = static_cast<double>(got), e = static_cast<double>(expected);
                bool ok;
                if (std::isnan(e) || std::isnan(g))
                    ok = std::isnan(e) && std::isnan(g); // NaN exactly where the reference has one
                else if (data != Data::Rounding)
                    ok = g == e;
                else {
                    double tolerance = static_cast<double>(k + 1) * eps * running_abs + 1e-300;
                    if (D == HK_FLOAT16) // one rounding of the float32 result to half
                        tolerance += std::ldexp(1.0, std::max(std::ilogb(std::max(std::fabs(acc), 6.2e-5)) - 10, -24));
                    ok = std::fabs(g - acc) <= tolerance;
                }
                if (!ok)
                    wrong.add(static_cast<size_t>(k), text(got), text(expected) + " (row " + std::to_string(r) + ")");
            }
        }
    }
    EXPECT_EQ(wrong.count, 0u) << "wrong elements (index along the axis):\n" << wrong.text;
    if (!c.in_place) {
        EXPECT_EQ(stray_writes(out, 0xFF), 0u) << "elements outside the output view were written";
    }
}

template <hk_dtype D> void check_scan_both_ops(const ScanCase &c, Data data, std::mt19937_64 &rng)
{
    check_scan<D>(HK_SCAN_CUMSUM, c, data, rng);
    check_scan<D>(HK_SCAN_CUMPROD, c, data, rng);
}

void check_scan_every_dtype(const ScanCase &c, Data data, std::mt19937_64 &rng)
{
    check_scan_both_ops<HK_BOOL>(c, data, rng);
    check_scan_both_ops<HK_INT8>(c, data, rng);
    check_scan_both_ops<HK_UINT8>(c, data, rng);
    check_scan_both_ops<HK_INT16>(c, data, rng);
    check_scan_both_ops<HK_UINT16>(c, data, rng);
    check_scan_both_ops<HK_INT32>(c, data, rng);
    check_scan_both_ops<HK_UINT32>(c, data, rng);
    check_scan_both_ops<HK_INT64>(c, data, rng);
    check_scan_both_ops<HK_UINT64>(c, data, rng);
    check_scan_both_ops<HK_FLOAT16>(c, data, rng);
    check_scan_both_ops<HK_FLOAT32>(c, data, rng);
    check_scan_both_ops<HK_FLOAT64>(c, data, rng);
}

class ScanOnGpu : public GpuTest
{
};

TEST_F(ScanOnGpu, EveryDtypeBothOpsOneDimensional)
{
    HKTEST_SEEDED_RNG(rng);
    // 1, primes, tile edges (4096 and 2048 elements per tile), many tiles
    for (int64_t n : {1, 2, 3, 31, 1000, 2047, 2048, 2049, 4095, 4096, 4097, 65537, 1000003, 5000011}) {
        check_scan_every_dtype({{n}, 0, Layout::Contiguous, Layout::Contiguous, false}, Data::Exact, rng);
        if (::testing::Test::HasFailure())
            return;
    }
}

TEST_F(ScanOnGpu, ZeroDimensionalInputIsOneElement)
{
    HKTEST_SEEDED_RNG(rng);
    check_scan_every_dtype({{}, 0, Layout::Contiguous, Layout::Contiguous, false}, Data::Exact, rng);
    check_scan_every_dtype({{}, -1, Layout::Contiguous, Layout::Contiguous, false}, Data::Exact, rng);
}

TEST_F(ScanOnGpu, EveryAxisOfTwoAndThreeDimensionalArrays)
{
    HKTEST_SEEDED_RNG(rng);
    // Shapes chosen to reach each kernel: long rows (look-back, contiguous and
    // strided), many medium rows (a warp per row), short or interleaved rows
    // (a thread per row).
    const std::vector<std::pair<std::vector<int64_t>, int>> cases = {
        {{3, 5000}, 1},    {{5000, 3}, 0},    {{1500, 100}, 1},   {{100, 10000}, 0}, {{4096, 8}, 1},   {{37, 53}, 0},
        {{37, 53}, 1},     {{37, 53}, -1},    {{1100, 40}, 0},    {{1100, 40}, 1},   {{6, 700, 5}, 0}, {{6, 700, 5}, 1},
        {{6, 700, 5}, 2},  {{2, 3000, 3}, 1}, {{2, 3000, 3}, -3}, {{1, 9001, 1}, 1}, {{9001, 1}, 1},   {{300, 200}, 0},
        {{33, 130, 7}, 0}, {{70, 3, 50}, 0},  {{5, 130, 7}, 0},   {{2000, 129}, 0},
    };
    for (const auto &c : cases) {
        check_scan_every_dtype({c.first, c.second, Layout::Contiguous, Layout::Contiguous, false}, Data::Exact, rng);
        if (::testing::Test::HasFailure())
            return;
    }
}

TEST_F(ScanOnGpu, StridedReversedAndTransposedViews)
{
    HKTEST_SEEDED_RNG(rng);
    const std::vector<ScanCase> cases = {
        {{100003}, 0, Layout::Reversed, Layout::Contiguous, false},
        {{100003}, 0, Layout::Contiguous, Layout::Reversed, false},
        {{100003}, 0, Layout::Spaced, Layout::Spaced, false},
        {{100003}, 0, Layout::Reversed, Layout::Spaced, false},
        {{1500, 100}, 1, Layout::Transposed, Layout::Reversed, false},
        {{1500, 100}, 0, Layout::Reversed, Layout::Transposed, false},
        {{100, 10000}, 0, Layout::Transposed, Layout::Spaced, false},
        {{6, 700, 5}, 1, Layout::Transposed, Layout::Transposed, false},
        {{3, 5000}, 1, Layout::Spaced, Layout::Reversed, false},
        {{4096, 8}, 1, Layout::Reversed, Layout::Transposed, false},
        {{300, 200}, 0, Layout::Reversed, Layout::Spaced, false},
        {{33, 130, 7}, 0, Layout::Spaced, Layout::Reversed, false},
    };
    for (const ScanCase &c : cases) {
        check_scan_every_dtype(c, Data::Exact, rng);
        if (::testing::Test::HasFailure())
            return;
    }
}

template <hk_dtype D> void check_in_place(std::mt19937_64 &rng)
{
    const std::vector<ScanCase> cases = {
        {{5000011}, 0, Layout::Contiguous, Layout::Contiguous, true},
        {{100003}, 0, Layout::Reversed, Layout::Reversed, true},
        {{1500, 100}, 1, Layout::Transposed, Layout::Transposed, true},
        {{100, 10000}, 0, Layout::Contiguous, Layout::Contiguous, true},
        {{6, 700, 5}, 1, Layout::Spaced, Layout::Spaced, true},
        {{300, 200}, 0, Layout::Reversed, Layout::Reversed, true},
        {{4096, 8}, 1, Layout::Contiguous, Layout::Contiguous, true},
    };
    for (const ScanCase &c : cases)
        check_scan_both_ops<D>(c, Data::Exact, rng);
}

TEST_F(ScanOnGpu, InPlace)
{
    HKTEST_SEEDED_RNG(rng);
    check_in_place<HK_INT64>(rng);
    check_in_place<HK_UINT64>(rng);
    check_in_place<HK_FLOAT16>(rng);
    check_in_place<HK_FLOAT32>(rng);
    check_in_place<HK_FLOAT64>(rng);
}

template <hk_dtype D> void check_specials(std::mt19937_64 &rng)
{
    const std::vector<ScanCase> cases = {
        {{31}, 0, Layout::Contiguous, Layout::Contiguous, false},
        {{12365}, 0, Layout::Contiguous, Layout::Contiguous, false},
        {{1000003}, 0, Layout::Contiguous, Layout::Contiguous, false},
        {{1500, 100}, 1, Layout::Contiguous, Layout::Contiguous, false},
        {{100, 10000}, 0, Layout::Contiguous, Layout::Contiguous, false},
        {{3, 5000}, 1, Layout::Reversed, Layout::Contiguous, false},
        {{4096, 8}, 1, Layout::Contiguous, Layout::Contiguous, false},
        {{300, 200}, 0, Layout::Contiguous, Layout::Contiguous, false},
    };
    for (int repeat = 0; repeat < 3; repeat++)
        for (const ScanCase &c : cases)
            check_scan_both_ops<D>(c, Data::Specials, rng);
}

TEST_F(ScanOnGpu, NaNAndInfinityPropagateFromTheirPosition)
{
    HKTEST_SEEDED_RNG(rng);
    check_specials<HK_FLOAT16>(rng);
    check_specials<HK_FLOAT32>(rng);
    check_specials<HK_FLOAT64>(rng);
}

TEST_F(ScanOnGpu, FloatRoundingStaysWithinTheBound)
{
    HKTEST_SEEDED_RNG(rng);
    for (int64_t n : {1000, 65537, 1000003})
        for (Layout l : {Layout::Contiguous, Layout::Reversed}) {
            check_scan<HK_FLOAT32>(HK_SCAN_CUMSUM, {{n}, 0, l, Layout::Contiguous, false}, Data::Rounding, rng);
            check_scan<HK_FLOAT64>(HK_SCAN_CUMSUM, {{n}, 0, l, Layout::Contiguous, false}, Data::Rounding, rng);
            check_scan<HK_FLOAT16>(HK_SCAN_CUMSUM, {{n}, 0, l, Layout::Contiguous, false}, Data::Rounding, rng);
        }
    for (int64_t n : {1000, 10007}) {
        check_scan<HK_FLOAT32>(HK_SCAN_CUMPROD, {{n}, 0, Layout::Contiguous, Layout::Contiguous, false}, Data::Rounding,
                               rng);
        check_scan<HK_FLOAT64>(HK_SCAN_CUMPROD, {{n}, 0, Layout::Contiguous, Layout::Contiguous, false}, Data::Rounding,
                               rng);
        check_scan<HK_FLOAT16>(HK_SCAN_CUMPROD, {{n}, 0, Layout::Contiguous, Layout::Contiguous, false}, Data::Rounding,
                               rng);
    }
    for (int axis : {0, 1})
        check_scan<HK_FLOAT32>(HK_SCAN_CUMSUM, {{1500, 3000}, axis, Layout::Contiguous, Layout::Contiguous, false},
                               Data::Rounding, rng);
}

TEST_F(ScanOnGpu, IntegersWrapAround)
{
    // Full-range values: almost every partial sum and product overflows.
    HKTEST_SEEDED_RNG(rng);
    for (int64_t n : {17, 4097, 1000003}) {
        check_scan_both_ops<HK_INT64>({{n}, 0, Layout::Contiguous, Layout::Contiguous, false}, Data::Exact, rng);
        check_scan_both_ops<HK_UINT64>({{n}, 0, Layout::Contiguous, Layout::Contiguous, false}, Data::Exact, rng);
        check_scan_both_ops<HK_INT32>({{n}, 0, Layout::Contiguous, Layout::Contiguous, false}, Data::Exact, rng);
    }
    // int64 max + 1 wraps to min; uint64 max + 1 to 0.
    hktest::DeviceMemory d;
    ASSERT_HK_OK(d.allocate(64));
    const int64_t s[2] = {INT64_MAX, 1};
    ASSERT_HK_OK(hk_memcpy_htod(d.get(), s, 16));
    hk_array a = view(d.get(), HK_INT64, {2}), b = view(d.as<char>() + 32, HK_INT64, {2});
    ASSERT_HK_OK(hk_scan(HK_SCAN_CUMSUM, &a, 0, &b, nullptr));
    int64_t got[2];
    ASSERT_HK_OK(hk_memcpy_dtoh(got, d.as<char>() + 32, 16));
    EXPECT_EQ(got[0], INT64_MAX);
    EXPECT_EQ(got[1], INT64_MIN);
}

TEST_F(ScanOnGpu, EmptyArraysWriteNothing)
{
    hktest::DeviceMemory d;
    ASSERT_HK_OK(d.allocate(64));
    ASSERT_HK_OK(hk_memset(d.get(), 0x5A, 64));
    for (auto shape : std::vector<std::vector<int64_t>>{{0}, {3, 0}, {0, 5}, {2, 0, 4}})
        for (int axis = 0; axis < static_cast<int>(shape.size()); axis++) {
            hk_array a = view(d.get(), HK_FLOAT32, shape), b = view(d.as<char>() + 32, HK_FLOAT32, shape);
            EXPECT_HK_OK(hk_scan(HK_SCAN_CUMSUM, &a, axis, &b, nullptr));
        }
    unsigned char host[64];
    ASSERT_HK_OK(hk_memcpy_dtoh(host, d.get(), 64));
    for (unsigned char c : host)
        ASSERT_EQ(c, 0x5A);
}

TEST_F(ScanOnGpu, Float16AccumulatesInFloat32)
{
    // NumPy's float16 cumsum rounds its running sum to half after every
    // step: 5000 x 0.1 stalls at 256. hipkit accumulates in float32 and
    // rounds each result once: 499.9 (documented in hipkit.h).
    const int n = 5000;
    std::vector<_Float16> x(n, static_cast<_Float16>(0.1f)), got(n);
    hktest::DeviceMemory d;
    ASSERT_HK_OK(d.allocate(2 * n * sizeof(_Float16)));
    ASSERT_HK_OK(hk_memcpy_htod(d.get(), x.data(), n * sizeof(_Float16)));
    hk_array a = view(d.get(), HK_FLOAT16, {n}), b = view(d.as<_Float16>() + n, HK_FLOAT16, {n});
    ASSERT_HK_OK(hk_scan(HK_SCAN_CUMSUM, &a, 0, &b, nullptr));
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), d.as<_Float16>() + n, n * sizeof(_Float16)));
    const double exact = n * static_cast<double>(static_cast<_Float16>(0.1f));
    EXPECT_NEAR(static_cast<double>(got[n - 1]), exact, 0.25) << "half's spacing at 500 is 0.25";
}

// ------------------------------------------------------------- sort on GPU

// Random: full-range integers; floats of every magnitude with NaN (either
// sign, random payloads), +-inf, +-0.0 and subnormals mixed in.
// Few: a handful of distinct values (many ties: stability shows in the
// indices; for floats -0.0 and 0.0 and several NaNs among them).
// Narrow: integers in [0, 100) / floats in [1, 2): the top digits are the
// same for every key (passes skipped). Equal: one value. Ascending, Descending.
enum class SortData { Random, Few, Narrow, Equal, Ascending, Descending };

const char *sort_data_name(SortData d)
{
    switch (d) {
    case SortData::Random: return "random";
    case SortData::Few: return "few distinct values";
    case SortData::Narrow: return "narrow range";
    case SortData::Equal: return "all equal";
    case SortData::Ascending: return "ascending";
    case SortData::Descending: return "descending";
    }
    return "?";
}

template <typename T> T bits_to(uint64_t bits)
{
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

template <hk_dtype D> typename DT<D>::T sort_value(std::mt19937_64 &rng, SortData data, int64_t position, int64_t N)
{
    typedef typename DT<D>::T T;
    const uint64_t r = rng();
    if constexpr (D == HK_BOOL) {
        return static_cast<uint8_t>(data == SortData::Equal        ? 1
                                    : data == SortData::Ascending  ? position * 2 >= N
                                    : data == SortData::Descending ? position * 2 < N
                                                                   : r & 1);
    } else if constexpr (!DT<D>::is_float) {
        switch (data) {
        case SortData::Random: return bits_to<T>(r);
        case SortData::Few: return static_cast<T>(static_cast<int>(r % 5) - 2);
        case SortData::Narrow: return static_cast<T>(r % 100);
        case SortData::Equal: return static_cast<T>(7);
        case SortData::Ascending: return static_cast<T>(position / 3);
        case SortData::Descending: return static_cast<T>(N - position / 3);
        }
        return T();
    } else {
        constexpr size_t bytes = sizeof(T);
        const uint64_t sign = 1ull << (8 * bytes - 1);
        const uint64_t mask = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
        const uint64_t quiet_nan = bytes == 2 ? 0x7E00 : bytes == 4 ? 0x7FC00000ull : 0x7FF8000000000000ull;
        switch (data) {
        case SortData::Random: {
            const int pick = static_cast<int>(r % 16);
            if (pick == 0)
                return bits_to<T>((quiet_nan | ((r >> 8) & 0xFF)) | ((r >> 20) & 1 ? sign : 0)); // NaN, payload
            if (pick == 1)
                return static_cast<T>((r >> 8) & 1 ? INFINITY : -INFINITY);
            if (pick == 2)
                return static_cast<T>((r >> 8) & 1 ? 0.0 : -0.0);
            if (pick == 3)
                return bits_to<T>(((r >> 8) & 0xF) | ((r >> 20) & 1 ? sign : 0)); // subnormal
            T v = bits_to<T>((r >> 3) & mask);
            while (std::isnan(static_cast<double>(v)) || std::isinf(static_cast<double>(v)))
                v = bits_to<T>(rng() & mask);
            return v;
        }
        case SortData::Few: {
            const double few[] = {-1.5, -0.0, 0.0, 2.0, INFINITY};
            const int pick = static_cast<int>(r % 7);
            if (pick >= 5) // NaNs with distinct payloads: their order must be kept
                return bits_to<T>((quiet_nan | (position & 0x3F)) | (pick == 6 ? sign : 0));
            return static_cast<T>(few[pick]);
        }
        case SortData::Narrow: return static_cast<T>(1.0 + static_cast<double>(r % 1000) / 1024.0);
        case SortData::Equal: return static_cast<T>(-3.25);
        case SortData::Ascending: return static_cast<T>(static_cast<double>(position / 3) / 8.0);
        case SortData::Descending: return static_cast<T>(static_cast<double>(N - position / 3) / 8.0);
        }
        return T();
    }
}

// NumPy's order: NaN last, -0.0 == 0.0; ties keep their order (stable sort).
template <typename T> bool sort_less(T a, T b)
{
    if constexpr (std::is_same_v<T, _Float16> || std::is_floating_point_v<T>) {
        const double x = static_cast<double>(a), y = static_cast<double>(b);
        if (std::isnan(x))
            return false;
        return std::isnan(y) || x < y;
    } else {
        return a < b;
    }
}

struct SortCase {
    std::vector<int64_t> shape;
    Layout in_layout, keys_layout, indices_layout;
    bool keys, indices, in_place;
};

template <hk_dtype D> void check_sort(const SortCase &c, SortData data, std::mt19937_64 &rng)
{
    typedef typename DT<D>::T T;
    SCOPED_TRACE(std::string("sort of ") + hk_dtype_name(D) + " " + shape_text(c.shape) + ", " + sort_data_name(data) +
                 ", in " + layout_name(c.in_layout) +
                 (c.in_place ? ", keys in place"
                  : c.keys   ? std::string(", keys ") + layout_name(c.keys_layout)
                             : "") +
                 (c.indices ? std::string(", indices ") + layout_name(c.indices_layout) : ""));
    Buffer in(D, c.shape, strides_for(c.shape, c.in_layout));
    ASSERT_HK_OK(in.allocate());
    std::unique_ptr<Buffer> keys, indices;
    if (c.keys && !c.in_place) {
        keys.reset(new Buffer(D, c.shape, strides_for(c.shape, c.keys_layout)));
        ASSERT_HK_OK(keys->allocate());
        keys->fill_bytes(0xFF);
        ASSERT_HK_OK(keys->upload());
    }
    if (c.indices) {
        indices.reset(new Buffer(HK_INT64, c.shape, strides_for(c.shape, c.indices_layout)));
        ASSERT_HK_OK(indices->allocate());
        indices->fill_bytes(0x7F);
        ASSERT_HK_OK(indices->upload());
    }
    const int64_t N = c.shape.empty() ? 1 : c.shape.back();
    std::vector<int64_t> row_shape = c.shape;
    if (!row_shape.empty())
        row_shape.back() = 1;
    in.fill_random(rng);
    std::vector<std::vector<int64_t>> rows;
    walk(row_shape, [&](const std::vector<int64_t> &start) {
        rows.push_back(start);
        std::vector<int64_t> i = start;
        for (int64_t k = 0; k < N; k++) {
            if (!i.empty())
                i.back() = k;
            in.set<T>(in.at(i), sort_value<D>(rng, data, k, N));
        }
    });
    std::vector<T> original(in.elements());
    for (size_t e = 0; e < in.elements(); e++)
        original[e] = in.get<T>(e);
    ASSERT_HK_OK(in.upload());
    hk_array a = in.array();
    hk_array k = c.in_place ? a : keys ? keys->array() : hk_array{};
    hk_array x = indices ? indices->array() : hk_array{};
    ASSERT_HK_OK(hk_sort(&a, c.keys ? &k : nullptr, c.indices ? &x : nullptr, nullptr));
    Buffer *key_buffer = c.in_place ? &in : keys.get();
    if (key_buffer)
        ASSERT_HK_OK(key_buffer->download());
    if (indices)
        ASSERT_HK_OK(indices->download());

    Mismatches wrong_keys, wrong_indices;
    std::vector<int64_t> order(static_cast<size_t>(N));
    std::vector<T> row_values(static_cast<size_t>(N));
    for (size_t r = 0; r < rows.size(); r++) {
        std::vector<int64_t> i = rows[r];
        for (int64_t j = 0; j < N; j++) {
            if (!i.empty())
                i.back() = j;
            row_values[j] = original[in.at(i)];
        }
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t p, int64_t q) { return sort_less(row_values[p], row_values[q]); });
        for (int64_t j = 0; j < N; j++) {
            if (!i.empty())
                i.back() = j;
            const std::string where = " (row " + std::to_string(r) + ")";
            if (key_buffer) {
                const T expected = row_values[order[j]];
                const T got = key_buffer->get<T>(key_buffer->at(i));
                if (std::memcmp(&expected, &got, sizeof(T)) != 0) // the exact bits: NaN payloads, signs of zero
                    wrong_keys.add(static_cast<size_t>(j), text(got) + " [bits differ]", text(expected) + where);
            }
            if (indices) {
                const int64_t got = indices->get<int64_t>(indices->at(i));
                if (got != order[j])
                    wrong_indices.add(static_cast<size_t>(j), std::to_string(got), std::to_string(order[j]) + where);
            }
        }
    }
    EXPECT_EQ(wrong_keys.count, 0u) << "wrong keys (position along the last axis):\n" << wrong_keys.text;
    EXPECT_EQ(wrong_indices.count, 0u) << "wrong indices (position along the last axis):\n" << wrong_indices.text;
    if (keys) {
        EXPECT_EQ(stray_writes(*keys, 0xFF), 0u) << "keys written outside keys_out";
    }
    if (indices) {
        EXPECT_EQ(stray_writes(*indices, 0x7F), 0u) << "indices written outside indices_out";
    }
    if (c.in_place) { // the in-place buffer outside the view keeps its bytes
        std::vector<char> mine = in.reached();
        size_t changed = 0;
        for (size_t e = 0; e < in.elements(); e++)
            if (!mine[e] && std::memcmp(in.bytes(e), &original[e], sizeof(T)) != 0)
                changed++;
        EXPECT_EQ(changed, 0u) << "in-place sort wrote outside the view";
    }
}

template <hk_dtype D> void check_sort_outputs(const std::vector<int64_t> &shape, SortData data, std::mt19937_64 &rng)
{
    const Layout C = Layout::Contiguous;
    check_sort<D>({shape, C, C, C, true, true, false}, data, rng);
    check_sort<D>({shape, C, C, C, true, false, false}, data, rng);
    check_sort<D>({shape, C, C, C, false, true, false}, data, rng);
}

template <hk_dtype D> void check_sort_dtype(std::mt19937_64 &rng)
{
    // 1-d rows of every length class (one block; just over one block; radix)
    for (int64_t n : {1, 2, 31, 1000, 2048, 2049, 4096, 4097, 65537, 1048579})
        check_sort_outputs<D>({n}, SortData::Random, rng);
    for (int64_t n : {31, 1000, 4097, 65537})
        check_sort_outputs<D>({n}, SortData::Few, rng);
    // several rows: short (block sort), long (radix with the row as the top digits)
    for (auto shape : std::vector<std::vector<int64_t>>{
             {3, 1}, {1000, 2}, {37, 31}, {5, 1000}, {4, 3000}, {3, 65537}, {2, 1048579}, {300, 5000}, {2, 3, 4097}})
        check_sort_outputs<D>(shape, SortData::Random, rng);
    for (auto shape : std::vector<std::vector<int64_t>>{{37, 31}, {3, 65537}, {300, 5000}})
        check_sort_outputs<D>(shape, SortData::Few, rng);
    for (SortData data : {SortData::Narrow, SortData::Equal, SortData::Ascending, SortData::Descending})
        for (auto shape : std::vector<std::vector<int64_t>>{{1000}, {65537}, {3, 5000}, {20, 31}})
            check_sort<D>({shape, Layout::Contiguous, Layout::Contiguous, Layout::Contiguous, true, true, false}, data,
                          rng);
}

class SortOnGpu : public GpuTest
{
};

#define HKTEST_SORT_DTYPE(NAME, CODE)                                                                                  \
    TEST_F(SortOnGpu, NAME)                                                                                            \
    {                                                                                                                  \
        HKTEST_SEEDED_RNG(rng);                                                                                        \
        check_sort_dtype<CODE>(rng);                                                                                   \
    }
HKTEST_SORT_DTYPE(Bool, HK_BOOL)
HKTEST_SORT_DTYPE(Int8, HK_INT8)
HKTEST_SORT_DTYPE(Uint8, HK_UINT8)
HKTEST_SORT_DTYPE(Int16, HK_INT16)
HKTEST_SORT_DTYPE(Uint16, HK_UINT16)
HKTEST_SORT_DTYPE(Int32, HK_INT32)
HKTEST_SORT_DTYPE(Uint32, HK_UINT32)
HKTEST_SORT_DTYPE(Int64, HK_INT64)
HKTEST_SORT_DTYPE(Uint64, HK_UINT64)
HKTEST_SORT_DTYPE(Float16, HK_FLOAT16)
HKTEST_SORT_DTYPE(Float32, HK_FLOAT32)
HKTEST_SORT_DTYPE(Float64, HK_FLOAT64)

template <hk_dtype D> void check_sort_views(std::mt19937_64 &rng)
{
    const Layout C = Layout::Contiguous, R = Layout::Reversed, T = Layout::Transposed, S = Layout::Spaced;
    const std::vector<SortCase> cases = {
        {{65537}, R, C, C, true, true, false},       {{65537}, C, R, S, true, true, false},
        {{1000}, R, S, R, true, true, false},        {{37, 31}, T, R, S, true, true, false},
        {{3, 65537}, R, C, C, true, true, false},    {{3, 65537}, T, C, C, true, true, false},
        {{3, 65537}, C, T, T, true, true, false},    {{300, 5000}, S, R, T, true, true, false},
        {{2, 3, 4097}, T, S, R, true, true, false},  {{2, 3, 4097}, C, T, C, false, true, false},
        {{2, 3, 4097}, C, C, T, true, false, false}, {{1048579}, R, C, C, true, false, false},
    };
    for (const SortCase &c : cases)
        check_sort<D>(c, SortData::Random, rng);
}

TEST_F(SortOnGpu, NegativeStridedAndTransposedViews)
{
    HKTEST_SEEDED_RNG(rng);
    check_sort_views<HK_FLOAT32>(rng);
    check_sort_views<HK_INT64>(rng);
    check_sort_views<HK_UINT8>(rng);
    check_sort_views<HK_FLOAT16>(rng);
    check_sort_views<HK_FLOAT64>(rng);
}

template <hk_dtype D> void check_sort_in_place(std::mt19937_64 &rng)
{
    const Layout C = Layout::Contiguous, R = Layout::Reversed, T = Layout::Transposed;
    const std::vector<SortCase> cases = {
        {{31}, C, C, C, true, false, true},      {{1000}, R, R, C, true, true, true},
        {{65537}, C, C, C, true, false, true},   {{1048579}, R, R, C, true, true, true},
        {{37, 31}, T, T, C, true, true, true},   {{3, 65537}, C, C, C, true, false, true},
        {{3, 65537}, T, T, R, true, true, true}, {{300, 5000}, C, C, C, true, true, true},
    };
    for (SortData data : {SortData::Random, SortData::Narrow, SortData::Equal})
        for (const SortCase &c : cases)
            check_sort<D>(c, data, rng);
}

TEST_F(SortOnGpu, InPlace)
{
    HKTEST_SEEDED_RNG(rng);
    check_sort_in_place<HK_BOOL>(rng); // one radix pass: through scratch
    check_sort_in_place<HK_INT8>(rng);
    check_sort_in_place<HK_FLOAT16>(rng);
    check_sort_in_place<HK_FLOAT32>(rng);
    check_sort_in_place<HK_INT32>(rng);
    check_sort_in_place<HK_FLOAT64>(rng);
    check_sort_in_place<HK_UINT64>(rng);
}

TEST_F(SortOnGpu, ZeroDimensionalInputIsOneElement)
{
    HKTEST_SEEDED_RNG(rng);
    check_sort<HK_FLOAT32>({{}, Layout::Contiguous, Layout::Contiguous, Layout::Contiguous, true, true, false},
                           SortData::Random, rng);
    check_sort<HK_INT8>({{}, Layout::Contiguous, Layout::Contiguous, Layout::Contiguous, true, true, true},
                        SortData::Random, rng);
}

TEST_F(SortOnGpu, SpecialFloatsInEveryPosition)
{
    // +-0.0 ties keep their order, NaNs (both signs, distinct payloads) come
    // last in their original order, -inf first, +inf before the NaNs.
    HKTEST_SEEDED_RNG(rng);
    for (int64_t n : {7, 1000, 4097, 65537, 1048579}) {
        check_sort_outputs<HK_FLOAT16>({n}, SortData::Few, rng);
        check_sort_outputs<HK_FLOAT32>({n}, SortData::Few, rng);
        check_sort_outputs<HK_FLOAT64>({n}, SortData::Few, rng);
    }
}

TEST_F(SortOnGpu, EmptyArraysWriteNothing)
{
    hktest::DeviceMemory d;
    ASSERT_HK_OK(d.allocate(256));
    ASSERT_HK_OK(hk_memset(d.get(), 0x5A, 256));
    for (auto shape : std::vector<std::vector<int64_t>>{{0}, {3, 0}, {0, 5}}) {
        hk_array a = view(d.get(), HK_FLOAT32, shape), k = view(d.as<char>() + 64, HK_FLOAT32, shape);
        hk_array x = view(d.as<char>() + 128, HK_INT64, shape);
        EXPECT_HK_OK(hk_sort(&a, &k, &x, nullptr));
    }
    unsigned char host[256];
    ASSERT_HK_OK(hk_memcpy_dtoh(host, d.get(), 256));
    for (unsigned char c : host)
        ASSERT_EQ(c, 0x5A);
}

TEST_F(SortOnGpu, OnAStream)
{
    HKTEST_SEEDED_RNG(rng);
    hktest::Stream stream;
    ASSERT_HK_OK(stream.create());
    const int n = 100003;
    std::vector<float> x(n);
    std::uniform_real_distribution<float> u(-1, 1);
    for (float &v : x)
        v = u(rng);
    hktest::DeviceMemory d;
    ASSERT_HK_OK(d.allocate(n * 4 * 3));
    ASSERT_HK_OK(hk_memcpy_htod(d.get(), x.data(), n * 4));
    hk_array in = view(d.get(), HK_FLOAT32, {n}), keys = view(d.as<float>() + n, HK_FLOAT32, {n});
    hk_array sums = view(d.as<float>() + 2 * n, HK_FLOAT32, {n});
    ASSERT_HK_OK(hk_sort(&in, &keys, nullptr, stream.get()));
    ASSERT_HK_OK(hk_scan(HK_SCAN_CUMSUM, &keys, 0, &sums, stream.get()));
    ASSERT_HK_OK(hk_stream_synchronize(stream.get()));
    std::vector<float> got(n);
    ASSERT_HK_OK(hk_memcpy_dtoh(got.data(), d.as<float>() + n, n * 4));
    std::vector<float> expected = x;
    std::stable_sort(expected.begin(), expected.end());
    EXPECT_TRUE(got == expected);
}

} // namespace
