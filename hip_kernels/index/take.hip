// take.hip: numpy.take along an axis. Elements are copied as bytes, so one kernel per unit size
// (1, 2, 4, 8 or 16 bytes) serves all ten dtypes; the host widens the unit when whole rows after
// the axis are contiguous (a row gather of float32 moves 16-byte units). The index normalisation
// of each mode is one device function (index_device.h); RAISE checks every index first in a separate
// pass, so the gather never reads outside `in`.
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "gpu/gpu.h"
#include "index/index.h"
#include "index/index_device.h"

namespace
{

// I: the index type of the decomposition, 32-bit when out has fewer than 2^32 units (the divisions
// are then several times cheaper than 64-bit ones).
template <typename U, typename I>
__global__ void take_kernel(const U *in, U *out, const int64_t *indices, hkk_take_args p)
{
    const I count = (I)p.count;
    for (I i = (I)hk_global_index(); i < count; i += (I)hk_grid_stride()) {
        I rest = i;
        int64_t src = 0, idx = 0, dst = 0;
        for (int d = p.ndim - 1; d > 0; d--) {
            const I extent = (I)p.shape[d];
            const int64_t c = (int64_t)(rest % extent);
            rest /= extent;
            src += c * p.in_strides[d];
            idx += c * p.idx_strides[d];
            dst += c * p.out_strides[d];
        }
        src += (int64_t)rest * p.in_strides[0];
        idx += (int64_t)rest * p.idx_strides[0];
        dst += (int64_t)rest * p.out_strides[0];
        const int64_t j = hk_index::normalise(indices[idx], p.axis_size, p.mode);
        out[dst] = in[src + j * p.axis_stride];
    }
}

__global__ void take_check_kernel(const int64_t *indices, hkk_take_args p, unsigned long long *first_bad)
{
    for (size_t i = hk_global_index(); i < (size_t)p.idx_count; i += hk_grid_stride()) {
        size_t rest = i;
        int64_t off = 0;
        for (int d = p.idx_ndim - 1; d > 0; d--) {
            const size_t extent = (size_t)p.idx_shape[d];
            off += (int64_t)(rest % extent) * p.idx_own_strides[d];
            rest /= extent;
        }
        off += (int64_t)rest * p.idx_own_strides[0];
        const int64_t j = indices[off];
        if (j < -p.axis_size || j >= p.axis_size)
            atomicMin(first_bad, (unsigned long long)i);
    }
}

template <typename U> int take_typed(const hkk_launch *l, const hkk_take_args *p)
{
    const dim3 grid = hk_grid_for(l, (size_t)p->count, HK_BLOCK);
    // 32-bit indexing needs the count and the last grid-stride step below 2^32.
    if ((uint64_t)p->count + (uint64_t)grid.x * HK_BLOCK <= UINT32_MAX)
        take_kernel<U, uint32_t><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(static_cast<const U *>(p->in),
                                                                             static_cast<U *>(p->out), p->indices, *p);
    else
        take_kernel<U, uint64_t><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(static_cast<const U *>(p->in),
                                                                             static_cast<U *>(p->out), p->indices, *p);
    return hk_launch_error();
}

} // namespace

extern "C" int hkk_take(const hkk_launch *l, const hkk_take_args *p)
{
    return hk_index::dispatch_unit<16>(p->unit_bytes, [&](auto unit) { return take_typed<decltype(unit)>(l, p); });
}

extern "C" int hkk_take_check(const hkk_launch *l, const hkk_take_args *p, unsigned long long *first_bad)
{
    take_check_kernel<<<hk_grid_for(l, (size_t)p->idx_count, HK_BLOCK), HK_BLOCK, 0, hk_vendor_stream(l)>>>(
        p->indices, *p, first_bad);
    return hk_launch_error();
}
