// put.hip: hk_put's scatter, the inverse of take.hip: out[dst(j)] = values[src] for every element of
// values. Elements are copied as bytes, one kernel per unit size (1, 2, 4 or 8 bytes: never wider,
// so each store writes whole elements even when duplicate indices race); the host widens the unit
// when whole rows after the axis are contiguous. RAISE's index check runs before, in a separate pass
// (take.hip's check kernel, launched by the backend), so nothing is written when an index is bad.
#include "common/hipkit_device.h"
#include "common/launch.h"
#include "gpu/gpu.h"
#include "index/index.h"
#include "index/index_device.h"

namespace
{

// I: the index type of the walk over values, 32-bit when values has fewer than 2^32 units. FLAT: j
// is a position in out (flat_offset), else an index along the axis (j * axis_stride).
template <typename U, typename I, bool FLAT>
__global__ void put_kernel(const U *values, U *out, const int64_t *indices, hkk_put_args p)
{
    const I count = (I)p.count;
    for (I i = (I)hk_global_index(); i < count; i += (I)hk_grid_stride()) {
        I rest = i;
        int64_t src = 0, idx = 0, dst = 0;
        for (int d = p.ndim - 1; d > 0; d--) {
            const I extent = (I)p.shape[d];
            const int64_t c = (int64_t)(rest % extent);
            rest /= extent;
            src += c * p.values_strides[d];
            idx += c * p.idx_strides[d];
            dst += c * p.out_strides[d];
        }
        src += (int64_t)rest * p.values_strides[0];
        idx += (int64_t)rest * p.idx_strides[0];
        dst += (int64_t)rest * p.out_strides[0];
        const int64_t j = hk_index::normalise(indices[idx], p.axis_size, p.mode);
        dst += FLAT ? hk_index::flat_offset(j, p) : j * p.axis_stride;
        out[dst] = values[src];
    }
}

template <typename U, bool FLAT> int put_launch(const hkk_launch *l, const hkk_put_args *p)
{
    const dim3 grid = hk_grid_for(l, (size_t)p->count, HK_BLOCK);
    const U *values = static_cast<const U *>(p->values);
    U *out = static_cast<U *>(p->out);
    // 32-bit indexing needs the count and the last grid-stride step below 2^32.
    if ((uint64_t)p->count + (uint64_t)grid.x * HK_BLOCK <= UINT32_MAX)
        put_kernel<U, uint32_t, FLAT><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(values, out, p->indices, *p);
    else
        put_kernel<U, uint64_t, FLAT><<<grid, HK_BLOCK, 0, hk_vendor_stream(l)>>>(values, out, p->indices, *p);
    return hk_launch_error();
}

template <typename U> int put_typed(const hkk_launch *l, const hkk_put_args *p)
{
    return p->flat ? put_launch<U, true>(l, p) : put_launch<U, false>(l, p);
}

} // namespace

extern "C" int hkk_put(const hkk_launch *l, const hkk_put_args *p)
{
    return hk_index::dispatch_unit<16>(p->unit_bytes, [&](auto unit) { return put_typed<decltype(unit)>(l, p); });
}
