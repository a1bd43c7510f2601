// iota.h: what hk_iota writes (NumPy's arange), for the GPU kernel (iota.hip) and the CPU device's
// (cpu/elementwise.cpp): out[i * stride] = start + i * step for these dtypes. float32 is computed in
// float64 and rounded once, so large i stay exact, as NumPy's arange; integers wrap around.
#ifndef HIPKIT_ELEMENTWISE_IOTA_H
#define HIPKIT_ELEMENTWISE_IOTA_H

#include <stddef.h>

#include "common/ops.h"
#include "hipkit/hipkit.h"

namespace hk_ew
{

constexpr unsigned iota_dtypes =
    HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64) | HK_DTYPE_BIT(HK_INT32) | HK_DTYPE_BIT(HK_INT64);

template <typename T> HK_DEVICE T iota_value(T start, T step, size_t i)
{
    if constexpr (hk_ops::is_float<T>)
        return (T)((double)start + (double)i * (double)step);
    else
        return hk_ops::w_add(start, hk_ops::w_mul((T)i, step));
}

} // namespace hk_ew

#endif
