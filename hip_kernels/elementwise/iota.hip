// iota.hip: out[i * stride] = start + i * step (hk_iota, NumPy's arange), the one map whose value
// comes from the index rather than from inputs. float32 is computed in float64 and rounded once, so
// large i stay exact, as NumPy's arange; integers wrap around.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/launch.h"
#include "common/ops.h"
#include "elementwise/elementwise.h"

namespace
{

template <typename T> HK_DEVICE T iota_value(T start, T step, size_t i)
{
    if constexpr (hk_ops::is_float<T>)
        return (T)((double)start + (double)i * (double)step);
    else
        return hk_ops::w_add(start, hk_ops::w_mul((T)i, step));
}

template <typename T>
__global__ void __launch_bounds__(HK_BLOCK) iota_kernel(T *out, int64_t stride, size_t n, T start, T step)
{
    for (size_t i = hk_global_index(); i < n; i += hk_grid_stride())
        out[(int64_t)i * stride] = iota_value(start, step, i);
}

} // namespace

extern "C" int hkk_iota(const hkk_launch *l, hk_dtype dtype, void *out, int64_t stride, size_t n, const void *start,
                        const void *step)
{
    constexpr unsigned dtypes =
        HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64) | HK_DTYPE_BIT(HK_INT32) | HK_DTYPE_BIT(HK_INT64);
    return hk_dispatch::dispatch<dtypes>(dtype, [&](auto tag) {
        typedef typename hk_dt::traits<decltype(tag)::value>::stored T;
        return hk_launcher<iota_kernel<T>>::launch(l, hk_grid_for(l, n, HK_BLOCK), HK_BLOCK, 0, static_cast<T *>(out),
                                                   stride, n, *static_cast<const T *>(start),
                                                   *static_cast<const T *>(step));
    });
}
