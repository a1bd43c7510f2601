// launch.h: what the built-in kernels' launch wrappers share: grid sizing from
// the device, the launch-error check, dtype dispatch, and the per-dtype
// arithmetic that NumPy defines (wrapping integers, floor division).
#ifndef HIPKIT_LAUNCH_H
#define HIPKIT_LAUNCH_H

#include <stdint.h>

#include "gpu/fast_launch.h"
#include "gpu/gpu.h"
#include "hipkit_device.h"
#include "kernels.h"

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
// (src/gpu/fast_launch.h; pool_bench: hk_binary vs the same kernel through
// <<<>>>). HIPKIT_LAUNCH_API=runtime, a device past the table, or a driver
// launch that fails: <<<>>>, which reports errors in the runtime's words. On
// AMD, <<<>>> (hipLaunchKernel) is the path.
#define HK_LAUNCH_DEVICES 64

template <auto Kernel> struct hk_launcher;
template <typename... P, void (*Kernel)(P...)> struct hk_launcher<Kernel> {
    static int launch(const hkk_launch *l, dim3 grid, dim3 block, unsigned shared, P... args)
    {
#if defined(HIPKIT_PLATFORM_NVIDIA)
        void *function = driver_function(l->device);
        if (function) {
            void *params[sizeof...(P) + 1] = {static_cast<void *>(&args)...};
            if (hk_gpu_fast_launch(function, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared,
                                   hk_vendor_stream(l), params) == 0)
                return (int)hipSuccess;
        }
#endif
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

static inline bool hk_aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

// Calls fn<T>(args...) for the four arithmetic dtypes of the foundation.
#define HK_DISPATCH_ARITHMETIC(dtype, fn, ...)                                                                         \
    switch (dtype) {                                                                                                   \
    case HK_FLOAT32: return fn<float>(__VA_ARGS__);                                                                    \
    case HK_FLOAT64: return fn<double>(__VA_ARGS__);                                                                   \
    case HK_INT32: return fn<int32_t>(__VA_ARGS__);                                                                    \
    case HK_INT64: return fn<int64_t>(__VA_ARGS__);                                                                    \
    default: return (int)hipErrorInvalidValue;                                                                         \
    }

#define HK_DISPATCH_FLOAT(dtype, fn, ...)                                                                              \
    switch (dtype) {                                                                                                   \
    case HK_FLOAT32: return fn<float>(__VA_ARGS__);                                                                    \
    case HK_FLOAT64: return fn<double>(__VA_ARGS__);                                                                   \
    default: return (int)hipErrorInvalidValue;                                                                         \
    }

// ---- integer semantics: two's complement wrap-around, computed unsigned so
// the C++ compiler sees no signed overflow.
template <typename T> struct hk_unsigned_of;
template <> struct hk_unsigned_of<int32_t> {
    typedef uint32_t type;
};
template <> struct hk_unsigned_of<int64_t> {
    typedef uint64_t type;
};

template <typename T> HK_DEVICE T hk_wrap_add(T a, T b)
{
    return a + b;
}
template <typename T> HK_DEVICE T hk_wrap_sub(T a, T b)
{
    return a - b;
}
template <typename T> HK_DEVICE T hk_wrap_mul(T a, T b)
{
    return a * b;
}
#define HK_WRAPPING_INT(T)                                                                                             \
    template <> HK_DEVICE T hk_wrap_add<T>(T a, T b)                                                                   \
    {                                                                                                                  \
        typedef hk_unsigned_of<T>::type U;                                                                             \
        return (T)((U)a + (U)b);                                                                                       \
    }                                                                                                                  \
    template <> HK_DEVICE T hk_wrap_sub<T>(T a, T b)                                                                   \
    {                                                                                                                  \
        typedef hk_unsigned_of<T>::type U;                                                                             \
        return (T)((U)a - (U)b);                                                                                       \
    }                                                                                                                  \
    template <> HK_DEVICE T hk_wrap_mul<T>(T a, T b)                                                                   \
    {                                                                                                                  \
        typedef hk_unsigned_of<T>::type U;                                                                             \
        return (T)((U)a * (U)b);                                                                                       \
    }
HK_WRAPPING_INT(int32_t)
HK_WRAPPING_INT(int64_t)

// Floats divide; integers floor-divide as NumPy's floor_divide does:
// x // 0 == 0 and MIN // -1 == MIN (wraps).
template <typename T> HK_DEVICE T hk_divide(T a, T b)
{
    return a / b;
}
#define HK_FLOOR_DIVIDE_INT(T)                                                                                         \
    template <> HK_DEVICE T hk_divide<T>(T a, T b)                                                                     \
    {                                                                                                                  \
        if (b == 0)                                                                                                    \
            return 0;                                                                                                  \
        if (b == -1)                                                                                                   \
            return hk_wrap_sub<T>(0, a);                                                                               \
        T q = a / b;                                                                                                   \
        if ((a % b != 0) && ((a < 0) != (b < 0)))                                                                      \
            q -= 1;                                                                                                    \
        return q;                                                                                                      \
    }
HK_FLOOR_DIVIDE_INT(int32_t)
HK_FLOOR_DIVIDE_INT(int64_t)

// start + i * step: float32 in double so large i stays exact, as NumPy's arange.
template <typename T> HK_DEVICE T hk_iota_value(T start, T step, size_t i)
{
    return start + (T)i * step;
}
template <> HK_DEVICE float hk_iota_value<float>(float start, float step, size_t i)
{
    return (float)((double)start + (double)i * (double)step);
}
#define HK_IOTA_INT(T)                                                                                                 \
    template <> HK_DEVICE T hk_iota_value<T>(T start, T step, size_t i)                                                \
    {                                                                                                                  \
        return hk_wrap_add<T>(start, hk_wrap_mul<T>((T)i, step));                                                      \
    }
HK_IOTA_INT(int32_t)
HK_IOTA_INT(int64_t)

#endif
