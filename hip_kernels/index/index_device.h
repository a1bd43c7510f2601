// index_device.h: what take.hip, put.hip and the CPU device's cpu/index.cpp
// share: NumPy's normalisation of an index for each hk_take_mode, a flat put's
// C-order position to offset, and the unsigned units elements are moved as
// (bytes, so one kernel per unit size serves all ten dtypes).
#ifndef HIPKIT_INDEX_DEVICE_H
#define HIPKIT_INDEX_DEVICE_H

#include <stdint.h>

#include "common/dtype_traits.h"
#include "index/index.h"
#if defined(HKC_HOST)
#include "cpu/host.h"
#define HK_INDEX_BAD_UNIT 1 // the CPU skeletons' internal error
#else
#include "common/hipkit_device.h"
#include "gpu/gpu.h"
#define HK_INDEX_BAD_UNIT ((int)hipErrorInvalidValue)
#endif

namespace hk_index
{

// RAISE (already checked) counts negatives from the end; WRAP is Python's
// modulo; CLIP clamps to 0..n-1 (negatives give 0). The final clamp keeps
// RAISE inside the array even if the indices changed after the check.
HK_DEVICE int64_t normalise(int64_t j, int64_t n, int mode)
{
    if (mode == HK_TAKE_WRAP) {
        j %= n;
        return j < 0 ? j + n : j;
    }
    if (mode == HK_TAKE_RAISE && j < 0)
        j += n;
    return j < 0 ? 0 : j >= n ? n - 1 : j;
}

// Element offset (units) of out's C-order position j (0 <= j < out's element count) in its own
// coalesced layout: where a flat put's index j lands.
HK_DEVICE int64_t flat_offset(int64_t j, const hkk_put_args &p)
{
    int64_t off = 0;
    for (int d = p.out_ndim - 1; d > 0; d--) {
        const int64_t extent = p.out_shape[d];
        off += (j % extent) * p.out_own_strides[d];
        j /= extent;
    }
    return off + j * p.out_own_strides[0];
}

struct alignas(16) unit16 {
    uint64_t lo, hi;
};

// Calls f(U()) for the unit of `bytes` (1, 2, 4, 8, or 16 if MaxBytes allows
// it); another size gives hipErrorInvalidValue (1 on the CPU device).
template <int MaxBytes, typename F> int dispatch_unit(int bytes, F &&f)
{
    switch (bytes) {
    case 1: return f(hk_dt::uint_of_size<1>::type());
    case 2: return f(hk_dt::uint_of_size<2>::type());
    case 4: return f(hk_dt::uint_of_size<4>::type());
    case 8: return f(hk_dt::uint_of_size<8>::type());
    case 16:
        if constexpr (MaxBytes >= 16)
            return f(unit16());
        break;
    }
    return HK_INDEX_BAD_UNIT;
}

} // namespace hk_index

#endif
