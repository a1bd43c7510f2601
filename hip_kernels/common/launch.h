// launch.h: what the built-in kernels' launch wrappers share: grid sizing from
// the device, the launch-error check and the launcher.
#ifndef HIPKIT_LAUNCH_H
#define HIPKIT_LAUNCH_H

#include <stdint.h>

#include "common/hipkit_device.h"
#include "common/kernels.h"
#include "gpu/fast_launch.h"
#include "gpu/gpu.h"

#define HK_BLOCK 256

static inline hipStream_t hk_vendor_stream(const hkk_launch *l)
{
    return static_cast<hipStream_t>(l->stream);
}

// Enough blocks to cover `work` items, capped at a few waves of the device so
// grid-stride loops amortise the index arithmetic.
static inline dim3 hk_grid_for(const hkk_launch *l, size_t work, int block)
{
    size_t blocks = (work + (size_t)block - 1) / (size_t)block;
    size_t cap = (size_t)l->multiprocessor_count * 32;
    if (blocks > cap)
        blocks = cap;
    if (blocks == 0)
        blocks = 1;
    return dim3((unsigned)blocks);
}

// The launch's own error. A "not ready" left behind by an earlier query is
// not an error of this launch.
static inline int hk_launch_error()
{
    hipError_t e = hipGetLastError();
    return e == hipErrorNotReady ? (int)hipSuccess : (int)e;
}

// hk_launcher<kernel>::launch(l, grid, block, shared, args...) is
// kernel<<<grid, block, shared, l's stream>>>(args...) followed by
// hk_launch_error(), done with less host work where the vendor allows it. On
// NVIDIA the runtime's launch looks the kernel up for the current context on
// every call; the driver's cuLaunchKernel takes the context's function, found
// once per kernel and device (cudaGetFuncBySymbol) and kept here
// (src/gpu/fast_launch.h; pool_bench: hk_elementwise vs the same kernel through
// <<<>>>). HIPKIT_LAUNCH_API=runtime, a device past the table, or a driver
// launch that fails: <<<>>>, which reports errors in the runtime's words. On
// AMD (HK_GPU_FAST_LAUNCH 0), <<<>>> (hipLaunchKernel) is the path.
#define HK_LAUNCH_DEVICES 64

template <auto Kernel> struct hk_launcher;
template <typename... P, void (*Kernel)(P...)> struct hk_launcher<Kernel> {
    static int launch(const hkk_launch *l, dim3 grid, dim3 block, unsigned shared, P... args)
    {
        if constexpr (HK_GPU_FAST_LAUNCH) {
            void *function = driver_function(l->device);
            if (function) {
                void *params[sizeof...(P) + 1] = {static_cast<void *>(&args)...};
                if (hk_gpu_fast_launch(function, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared,
                                       hk_vendor_stream(l), params) == 0)
                    return (int)hipSuccess;
            }
        }
        Kernel<<<grid, block, shared, hk_vendor_stream(l)>>>(args...);
        return hk_launch_error();
    }

  private:
    // The kernel's driver function on `device`, or NULL (none: use <<<>>>).
    // Entries: NULL not looked up yet, `none()` looked up and unavailable.
    static void *none() { return reinterpret_cast<void *>(&cache); }
    static void *cache[HK_LAUNCH_DEVICES];
    static void *driver_function(int device)
    {
        if (device < 0 || device >= HK_LAUNCH_DEVICES)
            return nullptr;
        void *f = __atomic_load_n(&cache[device], __ATOMIC_ACQUIRE);
        if (!f) {
            f = hk_gpu_static_function(reinterpret_cast<const void *>(Kernel));
            if (!f)
                f = none();
            __atomic_store_n(&cache[device], f, __ATOMIC_RELEASE); // two threads store the same value
        }
        return f == none() ? nullptr : f;
    }
};
template <typename... P, void (*Kernel)(P...)> void *hk_launcher<Kernel>::cache[HK_LAUNCH_DEVICES];

// On the host (launch choices) and in kernels alike.
static __host__ __device__ __forceinline__ bool hk_aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

#endif
