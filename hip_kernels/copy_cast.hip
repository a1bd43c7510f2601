// copy_cast.hip: dst[...] = convert(src[...]) between any two dtypes, for any
// strided views (the layout family: astype, contiguous copies, transposes,
// broadcasts, slice assignment). Dimensions arrive coalesced by the host, so
// the common cases (contiguous, one transposed axis) have few of them.
#include "gpu/gpu.h"
#include "common/hipkit_device.h"
#include "kernels.h"
#include "common/launch.h"

#if defined(HIPKIT_PLATFORM_NVIDIA)
#include <cuda_fp16.h>
#else
#include <hip/hip_fp16.h>
#endif

namespace
{

template <typename T> struct limits;
#define HK_LIMITS(T, LO, HI)                                                                                           \
    template <> struct limits<T> {                                                                                     \
        static constexpr double lo = LO;                                                                               \
        static constexpr double hi = HI;                                                                               \
        static HK_DEVICE T min() { return (T)(LO); }                                                                   \
        static HK_DEVICE T max() { return (T)(HI); }                                                                   \
    };
HK_LIMITS(int8_t, -128.0, 127.0)
HK_LIMITS(uint8_t, 0.0, 255.0)
HK_LIMITS(int32_t, -2147483648.0, 2147483647.0)
HK_LIMITS(uint32_t, 0.0, 4294967295.0)
// 2^63 and 2^64 as doubles: anything at or above them saturates.
template <> struct limits<int64_t> {
    static HK_DEVICE int64_t min() { return INT64_MIN; }
    static HK_DEVICE int64_t max() { return INT64_MAX; }
    static constexpr double lo = -9223372036854775808.0;
    static constexpr double hi = 9223372036854775808.0;
};
template <> struct limits<uint64_t> {
    static HK_DEVICE uint64_t min() { return 0; }
    static HK_DEVICE uint64_t max() { return UINT64_MAX; }
    static constexpr double lo = 0.0;
    static constexpr double hi = 18446744073709551616.0;
};

// Everything converts through these: a value of a source type into double
// (exact for every integer up to 2^53 and for every float), or straight
// between integer types, which keeps 64-bit integers exact.
template <typename T> struct is_float_type {
    static constexpr bool value = false;
};
template <> struct is_float_type<float> {
    static constexpr bool value = true;
};
template <> struct is_float_type<double> {
    static constexpr bool value = true;
};
template <> struct is_float_type<__half> {
    static constexpr bool value = true;
};

template <typename T> HK_DEVICE double to_double(T v)
{
    return (double)v;
}
template <> HK_DEVICE double to_double<__half>(__half v)
{
    return (double)__half2float(v);
}

template <typename D> struct convert_to {
    // integer destination
    template <typename S> static HK_DEVICE D from(S v)
    {
        if constexpr (is_float_type<S>::value) {
            double x = to_double(v);
            if (x != x)
                return D(0);
            if (x >= limits<D>::hi)
                return limits<D>::max();
            if (x <= limits<D>::lo)
                return limits<D>::min();
            return (D)x;
        } else {
            return (D)v; // integer to integer wraps, as NumPy's astype
        }
    }
};
template <> struct convert_to<bool> {
    template <typename S> static HK_DEVICE bool from(S v) { return to_double(v) != 0.0; } // NaN is true, as in NumPy
};
template <> struct convert_to<float> {
    template <typename S> static HK_DEVICE float from(S v)
    {
        if constexpr (is_float_type<S>::value)
            return (float)to_double(v);
        else
            return (float)v; // int64 -> float rounds once, as NumPy does
    }
};
template <> struct convert_to<double> {
    template <typename S> static HK_DEVICE double from(S v)
    {
        if constexpr (is_float_type<S>::value)
            return to_double(v);
        else
            return (double)v;
    }
};
template <> struct convert_to<__half> {
    template <typename S> static HK_DEVICE __half from(S v)
    {
        // Through float: int64 -> float -> half rounds twice only for
        // magnitudes far beyond half's range, where both give infinity.
        if constexpr (is_float_type<S>::value)
            return __float2half((float)to_double(v));
        else
            return __float2half((float)v);
    }
};

template <typename S, typename D> __global__ void copy_flat(const S *src, D *dst, size_t n)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())
        dst[i] = convert_to<D>::from(src[i]);
}

template <typename S, typename D> __global__ void copy_strided(const S *src, D *dst, size_t n, hkk_layout layout)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride()) {
        size_t rest = i;
        int64_t s = 0, d = 0;
        for (int k = layout.ndim - 1; k > 0; k--) {
            const size_t extent = (size_t)layout.shape[k];
            const int64_t c = (int64_t)(rest % extent);
            rest /= extent;
            s += c * layout.src_strides[k];
            d += c * layout.dst_strides[k];
        }
        s += (int64_t)rest * layout.src_strides[0];
        d += (int64_t)rest * layout.dst_strides[0];
        dst[d] = convert_to<D>::from(src[s]);
    }
}

template <typename S, typename D>
int copy_typed(const hkk_launch *l, const void *src, void *dst, size_t n, const hkk_layout *layout)
{
    const S *s = static_cast<const S *>(src);
    D *d = static_cast<D *>(dst);
    dim3 grid = hk_grid_for(l, n, HK_BLOCK);
    if (layout->ndim == 1 && layout->src_strides[0] == 1 && layout->dst_strides[0] == 1)
        copy_flat<S, D><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(s, d, n);
    else
        copy_strided<S, D><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(s, d, n, *layout);
    return hk_launch_error();
}

template <typename S>
int copy_from(const hkk_launch *l, hk_dtype dst_dtype, const void *src, void *dst, size_t n, const hkk_layout *layout)
{
    switch (dst_dtype) {
    case HK_BOOL: return copy_typed<S, bool>(l, src, dst, n, layout);
    case HK_INT8: return copy_typed<S, int8_t>(l, src, dst, n, layout);
    case HK_UINT8: return copy_typed<S, uint8_t>(l, src, dst, n, layout);
    case HK_INT32: return copy_typed<S, int32_t>(l, src, dst, n, layout);
    case HK_UINT32: return copy_typed<S, uint32_t>(l, src, dst, n, layout);
    case HK_INT64: return copy_typed<S, int64_t>(l, src, dst, n, layout);
    case HK_UINT64: return copy_typed<S, uint64_t>(l, src, dst, n, layout);
    case HK_FLOAT16: return copy_typed<S, __half>(l, src, dst, n, layout);
    case HK_FLOAT32: return copy_typed<S, float>(l, src, dst, n, layout);
    case HK_FLOAT64: return copy_typed<S, double>(l, src, dst, n, layout);
    }
    return (int)hipErrorInvalidValue;
}

} // namespace

extern "C" int hkk_copy_array(const hkk_launch *l, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src, void *dst,
                              size_t n, const hkk_layout *layout)
{
    switch (src_dtype) {
    case HK_BOOL: return copy_from<bool>(l, dst_dtype, src, dst, n, layout);
    case HK_INT8: return copy_from<int8_t>(l, dst_dtype, src, dst, n, layout);
    case HK_UINT8: return copy_from<uint8_t>(l, dst_dtype, src, dst, n, layout);
    case HK_INT32: return copy_from<int32_t>(l, dst_dtype, src, dst, n, layout);
    case HK_UINT32: return copy_from<uint32_t>(l, dst_dtype, src, dst, n, layout);
    case HK_INT64: return copy_from<int64_t>(l, dst_dtype, src, dst, n, layout);
    case HK_UINT64: return copy_from<uint64_t>(l, dst_dtype, src, dst, n, layout);
    case HK_FLOAT16: return copy_from<__half>(l, dst_dtype, src, dst, n, layout);
    case HK_FLOAT32: return copy_from<float>(l, dst_dtype, src, dst, n, layout);
    case HK_FLOAT64: return copy_from<double>(l, dst_dtype, src, dst, n, layout);
    }
    return (int)hipErrorInvalidValue;
}
