/* hipkit_device.h: the device prelude, for built-in kernels and for
 * run-time-compiled user kernels alike. Index helpers, the warp size of the
 * device, and warp/block reductions that are correct for 32- and 64-lane warps.
 * The lane count is HK_WARP_SIZE: 32 on NVIDIA, where every architecture has
 * 32-lane warps (a constant, so divisions by it become shifts; CUDA's warpSize
 * is read at run time), and warpSize on AMD (64, or 32 on RDNA). */
#ifndef HIPKIT_DEVICE_H
#define HIPKIT_DEVICE_H

#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#include <cuda_runtime.h>
#elif defined(__HIPCC__) && !defined(__HIPCC_RTC__)
#include <hip/hip_runtime.h>
#endif

#define HK_DEVICE __device__ __forceinline__

#if defined(__CUDACC__)
#define HK_WARP_SIZE 32
#else
#define HK_WARP_SIZE warpSize
#endif

/* Global index and grid-wide stride for grid-stride loops, in 64 bits so
 * arrays beyond 2^31 elements are safe. */
HK_DEVICE size_t hk_global_index()
{
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}
HK_DEVICE size_t hk_grid_stride()
{
    return (size_t)gridDim.x * blockDim.x;
}
HK_DEVICE int hk_warp_size()
{
    return HK_WARP_SIZE;
}
HK_DEVICE int hk_lane()
{
    return (int)(threadIdx.x % (unsigned)HK_WARP_SIZE);
}
HK_DEVICE int hk_warp_index()
{
    return (int)(threadIdx.x / (unsigned)HK_WARP_SIZE);
}

/* Shuffle down across the whole warp (all lanes active). */
template <typename T> HK_DEVICE T hk_shfl_down(T value, int delta)
{
#if defined(__CUDACC__)
    return __shfl_down_sync(0xffffffffu, value, delta);
#else
    return __shfl_down(value, delta);
#endif
}

/* Sum over a warp; the result is valid in lane 0. */
template <typename T> HK_DEVICE T hk_warp_sum(T value)
{
    for (int delta = warpSize / 2; delta > 0; delta /= 2)
        value += hk_shfl_down(value, delta);
    return value;
}

/* Sum over the block; the result is valid in thread 0. Every thread of the
 * block must call it. `scratch` holds one T per warp: 1024 / 32 = 32 at most. */
template <typename T> HK_DEVICE T hk_block_sum(T value, T *scratch)
{
    value = hk_warp_sum(value);
    const int warps = (int)((blockDim.x + warpSize - 1) / warpSize);
    if (hk_lane() == 0)
        scratch[hk_warp_index()] = value;
    __syncthreads();
    if (hk_warp_index() == 0) {
        value = hk_lane() < warps ? scratch[hk_lane()] : T(0);
        value = hk_warp_sum(value);
    }
    __syncthreads(); /* scratch may be reused by the caller */
    return value;
}

#endif
