// whole_sum.hip: the sum of a whole contiguous float array, hk_reduce's path
// for large ones (src/kinds/gpu_ops.c chooses it). Pass one: each block reduces
// a grid-stride slice (16-byte loads where aligned) into one partial; pass two:
// one block reduces the partials. Two launches on one stream, no atomics,
// deterministic order; the adds are hk_ops::op_add.
#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/launch.h"
#include "common/ops.h"
#include "reduce/reduce.h"

namespace
{

constexpr int SUM_BLOCK = 512;

template <typename T> size_t sum_blocks(const hkk_launch *l, size_t n)
{
    size_t blocks = (n + SUM_BLOCK - 1) / SUM_BLOCK;
    size_t cap = (size_t)l->multiprocessor_count * 4;
    return blocks < cap ? (blocks ? blocks : 1) : cap;
}

template <typename T> __global__ void sum_partial_kernel(const T *x, size_t n, T *partials, bool vectorized)
{
    __shared__ T scratch[32];
    const hk_ops::op_add add;
    T acc = T(0);
    size_t start = 0;
    if (vectorized) {
        constexpr int W = 16 / sizeof(T);
        struct alignas(16) v16 {
            T v[W];
        };
        const v16 *vx = reinterpret_cast<const v16 *>(x);
        const size_t nvec = n / W;
        T lane_acc[W];
#pragma unroll
        for (int k = 0; k < W; k++)
            lane_acc[k] = T(0);
        for (size_t i = hk_global_index(); i < nvec; i += hk_grid_stride()) {
            v16 v = vx[i];
#pragma unroll
            for (int k = 0; k < W; k++)
                lane_acc[k] = add(lane_acc[k], v.v[k]);
        }
#pragma unroll
        for (int k = 0; k < W; k++)
            acc = add(acc, lane_acc[k]);
        start = nvec * W;
    }
    for (size_t i = start + hk_global_index(); i < n; i += hk_grid_stride())
        acc = add(acc, x[i]);
    acc = hk_block_sum(acc, scratch);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = acc;
}

template <typename T> __global__ void sum_final_kernel(const T *partials, size_t count, T *result)
{
    __shared__ T scratch[32];
    const hk_ops::op_add add;
    T acc = T(0);
    for (size_t i = threadIdx.x; i < count; i += blockDim.x)
        acc = add(acc, partials[i]);
    acc = hk_block_sum(acc, scratch);
    if (threadIdx.x == 0)
        *result = acc;
}

template <typename T> __global__ void store_zero_kernel(T *result)
{
    *result = T(0);
}

template <typename T> int sum_typed(const hkk_launch *l, size_t n, const void *x, void *scratch, void *result)
{
    T *out = static_cast<T *>(result);
    if (n == 0) {
        store_zero_kernel<T><<<1, 1, 0, hk_vendor_stream(l)>>>(out);
        return hk_launch_error();
    }
    const T *px = static_cast<const T *>(x);
    size_t blocks = sum_blocks<T>(l, n);
    T *partials = static_cast<T *>(scratch);
    sum_partial_kernel<T><<<(unsigned)blocks, SUM_BLOCK, 0, hk_vendor_stream(l)>>>(px, n, partials, hk_aligned16(x));
    int e = hk_launch_error();
    if (e != (int)hipSuccess)
        return e;
    sum_final_kernel<T><<<1, SUM_BLOCK, 0, hk_vendor_stream(l)>>>(partials, blocks, out);
    return hk_launch_error();
}

template <typename T> size_t scratch_typed(const hkk_launch *l, size_t n)
{
    return n ? sum_blocks<T>(l, n) * sizeof(T) : 0;
}

} // namespace

constexpr unsigned kFloats = HK_DTYPE_BIT(HK_FLOAT32) | HK_DTYPE_BIT(HK_FLOAT64);

extern "C" size_t hkk_whole_sum_scratch_bytes(const hkk_launch *l, hk_dtype dtype, size_t n)
{
    size_t bytes = 0;
    (void)hk_dispatch::dispatch<kFloats>(dtype, [&](auto tag) {
        bytes = scratch_typed<typename hk_dt::traits<decltype(tag)::value>::stored>(l, n);
        return 0;
    });
    return bytes;
}

extern "C" int hkk_whole_sum(const hkk_launch *l, hk_dtype dtype, size_t n, const void *x, void *scratch, void *result)
{
    return hk_dispatch::dispatch<kFloats>(dtype, [&](auto tag) {
        return sum_typed<typename hk_dt::traits<decltype(tag)::value>::stored>(l, n, x, scratch, result);
    });
}
