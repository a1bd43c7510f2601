// copy_cast.hip: dst[...] = convert(src[...]) between any two dtypes, for any
// strided views (the layout family: astype, contiguous copies, transposes,
// broadcasts, slice assignment). Dimensions arrive coalesced by the host, so
// the common cases (contiguous, one transposed axis) have few of them.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "copy/copy.h"
#include "gpu/gpu.h"

namespace
{

// A source element: its stored type and its value in the compute type
// (hk_dt::traits: float16 as float), except that a bool source is read as a
// C++ bool, its byte as stored, as this kernel always has: traits<HK_BOOL>'s
// load would make any non-zero byte 1, where a cast of a byte other than 0 or 1
// (never written by hipkit, only reachable through raw memory) has exposed the
// byte, and costs a compare and a select per element.
template <hk_dtype S> struct source {
    typedef typename hk_dt::traits<S>::stored stored;
    static HK_DEVICE typename hk_dt::traits<S>::compute value(stored v) { return hk_dt::traits<S>::load(v); }
};
template <> struct source<HK_BOOL> {
    typedef bool stored;
    static HK_DEVICE bool value(bool v) { return v; }
};

// Everything converts through these: a source value into double (exact for
// every integer up to 2^53 and for every float), or straight between integer
// types, which keeps 64-bit integers exact.
template <hk_dtype S> HK_DEVICE double to_double(typename source<S>::stored v)
{
    return (double)source<S>::value(v);
}

// Integer destinations. Floats saturate at the range and NaN gives 0; the
// bounds compare as doubles, where int64's and uint64's highest() round up to
// 2^63 and 2^64, so anything at or above them saturates.
template <hk_dtype D> struct convert_to {
    typedef hk_dt::traits<D> T;
    typedef typename T::stored Out;
    template <hk_dtype S> static HK_DEVICE Out from(typename source<S>::stored v)
    {
        if constexpr (hk_dt::traits<S>::is_float) {
            double x = to_double<S>(v);
            if (x != x)
                return Out(0);
            if (x >= (double)T::highest())
                return T::highest();
            if (x <= (double)T::lowest())
                return T::lowest();
            return (Out)x;
        } else {
            return (Out)source<S>::value(v); // integer to integer wraps, as NumPy's astype
        }
    }
};
template <> struct convert_to<HK_BOOL> {
    template <hk_dtype S> static HK_DEVICE uint8_t from(typename source<S>::stored v)
    {
        return hk_dt::traits<HK_BOOL>::store(to_double<S>(v) != 0.0); // NaN is true, as in NumPy
    }
};
template <> struct convert_to<HK_FLOAT32> {
    template <hk_dtype S> static HK_DEVICE float from(typename source<S>::stored v)
    {
        if constexpr (hk_dt::traits<S>::is_float)
            return (float)to_double<S>(v);
        else
            return (float)source<S>::value(v); // int64 -> float rounds once, as NumPy does
    }
};
template <> struct convert_to<HK_FLOAT64> {
    template <hk_dtype S> static HK_DEVICE double from(typename source<S>::stored v)
    {
        if constexpr (hk_dt::traits<S>::is_float)
            return to_double<S>(v);
        else
            return (double)source<S>::value(v);
    }
};
template <> struct convert_to<HK_FLOAT16> {
    template <hk_dtype S> static HK_DEVICE uint16_t from(typename source<S>::stored v)
    {
        // Through float: int64 -> float -> half rounds twice only for
        // magnitudes far beyond half's range, where both give infinity.
        if constexpr (hk_dt::traits<S>::is_float)
            return hk_dt::traits<HK_FLOAT16>::store((float)to_double<S>(v));
        else
            return hk_dt::traits<HK_FLOAT16>::store((float)source<S>::value(v));
    }
};

template <hk_dtype S, hk_dtype D>
__global__ void copy_flat(const typename source<S>::stored *src, typename hk_dt::traits<D>::stored *dst, size_t n)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())
        dst[i] = convert_to<D>::template from<S>(src[i]);
}

template <hk_dtype S, hk_dtype D>
__global__ void copy_strided(const typename source<S>::stored *src, typename hk_dt::traits<D>::stored *dst, size_t n,
                             hkk_layout layout)
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
        dst[d] = convert_to<D>::template from<S>(src[s]);
    }
}

template <hk_dtype S, hk_dtype D>
int copy_typed(const hkk_launch *l, const void *src, void *dst, size_t n, const hkk_layout *layout)
{
    const typename source<S>::stored *s = static_cast<const typename source<S>::stored *>(src);
    typename hk_dt::traits<D>::stored *d = static_cast<typename hk_dt::traits<D>::stored *>(dst);
    dim3 grid = hk_grid_for(l, n, HK_BLOCK);
    if (layout->ndim == 1 && layout->src_strides[0] == 1 && layout->dst_strides[0] == 1)
        copy_flat<S, D><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(s, d, n);
    else
        copy_strided<S, D><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(s, d, n, *layout);
    return hk_launch_error();
}

} // namespace

extern "C" int hkk_copy_array(const hkk_launch *l, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src, void *dst,
                              size_t n, const hkk_layout *layout)
{
    return hk_dispatch::dispatch<HK_DTYPES_ALL>(src_dtype, [&](auto s) {
        return hk_dispatch::dispatch<HK_DTYPES_ALL>(dst_dtype, [&](auto d) {
            return copy_typed<decltype(s)::value, decltype(d)::value>(l, src, dst, n, layout);
        });
    });
}
