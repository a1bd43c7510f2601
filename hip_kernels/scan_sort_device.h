// scan_sort_device.h: warp-level building blocks of the scan and sort kernels
// (scan.hip, sort.hip), written once for NVIDIA (32 lanes) and AMD (64 lanes,
// or 32 on RDNA). Lane masks are 64-bit everywhere; the warp size is read from
// warpSize, never assumed. Also the memory-ordered loads and stores that the
// decoupled look-backs use to read other blocks' published tile states.
#ifndef HIPKIT_SCAN_SORT_DEVICE_H
#define HIPKIT_SCAN_SORT_DEVICE_H

#include <stdint.h>
#include <stdlib.h>

#include "common/hipkit_device.h"
#include "kernels.h"

namespace hk_ss
{

typedef unsigned long long lanemask;

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

template <typename T> HK_DEVICE T shfl_down(T value, int delta)
{
#if defined(__CUDACC__)
    return __shfl_down_sync(0xffffffffu, value, (unsigned)delta);
#else
    return __shfl_down(value, (unsigned)delta);
#endif
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
// this kernel runs. A naturally aligned 32- or 64-bit access is single-copy
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

// Pauses in the look-backs, as CUB's delay constructors: spinning warps
// otherwise take issue slots and L2 bandwidth from the blocks that do the
// work. `ns` packs two durations: the low 16 bits between polls of a tile state
// not yet published, the high 16 bits once before the first poll (the
// predecessors' words are then more likely to have landed). 0: no pause.
HK_DEVICE void backoff(unsigned ns)
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
HK_DEVICE void backoff_poll(unsigned ns)
{
    backoff(ns & 0xffffu);
}
HK_DEVICE void backoff_first(unsigned ns)
{
    backoff(ns >> 16);
}

// Host side: the packed pauses, from HIPKIT_LOOKBACK_NS=poll[,first]
// (nanoseconds, each below 65536; default 0,0), read once by src/core/settings.c.
inline unsigned lookback_ns_wanted(const hkk_launch *l)
{
    return l->tuning ? l->tuning->lookback_ns : 0u;
}

HK_DEVICE bool aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

// The bits of a value as an unsigned integer of the same size, and back.
template <typename To, typename From> HK_DEVICE To bit_cast(From value)
{
    static_assert(sizeof(To) == sizeof(From), "bit_cast between different sizes");
    To out;
    __builtin_memcpy(&out, &value, sizeof out);
    return out;
}

} // namespace hk_ss

#endif
