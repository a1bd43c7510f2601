// copy_cast.hip: dst[...] = convert(src[...]) between any two dtypes, for any
// strided views (the layout family: astype, contiguous copies, transposes,
// broadcasts, slice assignment). Dimensions arrive coalesced by the host, so
// the common cases (contiguous, one transposed axis) have few of them.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "copy/convert.h"
#include "copy/copy.h"
#include "gpu/gpu.h"

namespace
{

using hk_copy::convert_to;
using hk_copy::source;

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
