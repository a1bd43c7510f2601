// device.h: the device-side half of the vendor seam, for the built-in kernels
// (hip_kernels/). What differs between the vendors' device compilers is here
// and nowhere else in hip_kernels/: the half-precision header, warp shuffles
// and ballots with their lane masks, warp barriers, memory-ordered loads and
// stores for look-backs, sleep, 64-bit multiply-high, and launch bounds. The
// user-kernel prelude (hip_kernels/common/hipkit_device.h) stays
// self-contained because it is compiled at run time on its own; its shuffle is
// the same as hk_shfl_down.
#ifndef HIPKIT_GPU_DEVICE_H
#define HIPKIT_GPU_DEVICE_H

#include <stdint.h>

#include "common/hipkit_device.h"
#include "gpu.h"

#if defined(HIPKIT_PLATFORM_NVIDIA)
#include <cuda_fp16.h>
#else
#include <hip/hip_fp16.h>
#endif

namespace hk_dev
{

typedef unsigned long long lanemask; // 64 bits on both vendors (AMD wavefronts have 64 lanes)

// One bit per lane of a warp at the warp's own width, for lane sets built
// with shared-memory atomics (atomicOr): 32 bits where warps have 32 lanes
// (NVIDIA), 64 on AMD (wave32 targets use the low half).
#if defined(__CUDACC__)
typedef unsigned int lane_word;
#else
typedef unsigned long long lane_word;
#endif

// The number of lanes set in m.
HK_DEVICE uint32_t popc_lanes(lane_word m)
{
#if defined(__CUDACC__)
    return (uint32_t)__popc(m);
#else
    return (uint32_t)__popcll(m);
#endif
}

// Bit i set for every lane i whose `predicate` holds; all lanes must call it.
HK_DEVICE lanemask warp_ballot(bool predicate)
{
#if defined(__CUDACC__)
    return (lanemask)__ballot_sync(0xffffffffu, predicate);
#else
    return (lanemask)__ballot(predicate);
#endif
}

// The value of `value` in lane (this lane - delta); lanes below delta get their own.
template <typename T> HK_DEVICE T shfl_up(T value, int delta)
{
#if defined(__CUDACC__)
    return __shfl_up_sync(0xffffffffu, value, (unsigned)delta);
#else
    return __shfl_up(value, (unsigned)delta);
#endif
}

// The value of `value` in lane `source`.
template <typename T> HK_DEVICE T shfl_idx(T value, int source)
{
#if defined(__CUDACC__)
    return __shfl_sync(0xffffffffu, value, source);
#else
    return __shfl(value, source);
#endif
}

// The value of `value` in lane (this lane + delta); the last lanes get their own.
template <typename T> HK_DEVICE T shfl_down(T value, int delta)
{
    return hk_shfl_down(value, delta);
}

// Orders shared-memory accesses among the lanes of one warp (NVIDIA's lanes
// may run apart; an AMD wavefront runs in lockstep and only needs the compiler
// not to move memory operations across this point).
HK_DEVICE void syncwarp()
{
#if defined(__CUDACC__)
    __syncwarp();
#else
    __builtin_amdgcn_wave_barrier();
#endif
}

// Loads and stores that go to the device-coherent level (L2), never served
// from a stale L1 line: the look-backs read words other blocks publish while
// the kernel runs. A naturally aligned 32- or 64-bit access is single-copy
// atomic on both vendors.
template <typename W> HK_DEVICE W load_relaxed(const W *p)
{
#if defined(__CUDACC__)
    return *static_cast<const volatile W *>(p);
#else
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

template <typename W> HK_DEVICE void store_relaxed(W *p, W value)
{
#if defined(__CUDACC__)
    *static_cast<volatile W *>(p) = value;
#else
    __atomic_store_n(p, value, __ATOMIC_RELAXED);
#endif
}

// A pause of about `ns` nanoseconds (0: none), as CUB's delay constructors.
HK_DEVICE void sleep_ns(unsigned ns)
{
    if (ns == 0)
        return;
#if defined(__CUDACC__)
    __nanosleep(ns);
#else
    for (unsigned t = 0; t < ns; t += 32) // s_sleep 1: 64 clocks, about 32 ns at 2 GHz
        __builtin_amdgcn_s_sleep(1);
#endif
}

// The high half of a full-width product (magic-number division).
HK_DEVICE uint32_t mulhi(uint32_t a, uint32_t b)
{
    return __umulhi(a, b);
}
HK_DEVICE uint64_t mulhi(uint64_t a, uint64_t b)
{
    return __umul64hi(a, b);
}

// IEEE half <-> float through the half's 16 bits.
HK_DEVICE float half_bits_to_float(uint16_t bits)
{
    return __half2float(__ushort_as_half(bits));
}
HK_DEVICE uint16_t float_to_half_bits(float v) // round to nearest even
{
    return __half_as_ushort(__float2half_rn(v));
}

} // namespace hk_dev

// __launch_bounds__ with a minimum of resident blocks per multiprocessor.
// CUDA's second argument is that; HIP's means waves per execution unit, a
// different quantity, so on AMD only the thread count is given.
#if defined(HIPKIT_PLATFORM_NVIDIA)
#define HK_LAUNCH_BOUNDS_MIN_BLOCKS(threads, blocks) __launch_bounds__(threads, blocks)
#else
#define HK_LAUNCH_BOUNDS_MIN_BLOCKS(threads, blocks) __launch_bounds__(threads)
#endif

#endif
