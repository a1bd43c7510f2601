// iota.hip: out[i * stride] = start + i * step (hk_iota, NumPy's arange), the one map whose value
// comes from the index rather than from inputs; what it writes is elementwise/iota.h.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/launch.h"
#include "elementwise/elementwise.h"
#include "elementwise/iota.h"

namespace
{

template <typename T>
__global__ void __launch_bounds__(HK_BLOCK) iota_kernel(T *out, int64_t stride, size_t n, T start, T step)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())
        out[(int64_t)i * stride] = hk_ew::iota_value(start, step, i);
}

} // namespace

extern "C" int hkk_iota(const hkk_launch *l, hk_dtype dtype, void *out, int64_t stride, size_t n, const void *start,
                        const void *step)
{
    return hk_dispatch::dispatch<hk_ew::iota_dtypes>(dtype, [&](auto tag) {
        typedef typename hk_dt::traits<decltype(tag)::value>::stored T;
        return hk_launcher<iota_kernel<T>>::launch(l, hk_grid_for(l, n, HK_BLOCK), HK_BLOCK, 0, static_cast<T *>(out),
                                                   stride, n, *static_cast<const T *>(start),
                                                   *static_cast<const T *>(step));
    });
}
