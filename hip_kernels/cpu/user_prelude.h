// user_prelude.h: the host prelude of user kernels on the CPU device. The system C++ compiler gets
// it in front of the user's source (src/kinds/cpu_rtc.c), so HIP/CUDA kernel source compiles for
// the host unchanged: __global__ and the other qualifiers, threadIdx ... gridDim, __shared__ (one
// copy per block), __syncthreads, warps of 32 lanes with their shuffles, votes and matches,
// atomics, fences, the device math and integer intrinsics, vector types. hipkit_device.h itself is
// the GPU prelude, compiled over these definitions.
//
// How it runs (cpu/user_abi.h): each block runs on one core; its threads run one after another
// until one waits for the others (a barrier or a warp collective), and from there as fibers that
// switch where they wait. threadIdx and friends are read from the running thread's hkcpu_thread.
// __shared__ variables are thread_local: the threads of a block share a core, so they share the
// variable, and blocks on other cores have their own.
#ifndef HIPKIT_CPU_USER_PRELUDE_H
#define HIPKIT_CPU_USER_PRELUDE_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <new>
#include <type_traits>
#include <utility>

#include "user_abi.h"

#define __HIPKIT_CPU__ 1

// ---------------------------------------------------------------- qualifiers

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __shared__ thread_local
// `extern __shared__ T name[];` is rewritten by the compiler step into a thread_local array of
// HKCPU_SHARED_BYTES; HIP's macro for it:
#define HIP_DYNAMIC_SHARED(type, var) static thread_local __attribute__((aligned(16))) type var[HKCPU_SHARED_BYTES / sizeof(type)];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

namespace hkcpu
{
// The thread running on this core (set by the entries below and after every switch).
static thread_local hkcpu_thread *current;

// Stops the calling thread: the library records `what`, and the thread leaves through the entry's
// jump point (its block and the rest of the launch are abandoned).
[[noreturn]] inline void stop(const char *what)
{
    hkcpu_thread *me = current;
    me->services->fail(me, what);
    siglongjmp(*static_cast<sigjmp_buf *>(me->abort_jump), 1);
}

[[noreturn]] inline void assert_failed(const char *expression, const char *file, int line)
{
    char what[224];
    snprintf(what, sizeof what, "assertion `%.120s' failed at %.60s:%d", expression, file, line);
    stop(what);
}

template <class T> inline int barrier(int predicate, int *participants)
{
    hkcpu_thread *me = current;
    const int count = me->services->barrier(me, predicate, participants);
    current = me;
    return count;
}

template <class T> inline uint64_t warp(int op, uint64_t value, unsigned operand, int width, unsigned mask,
                                        int *flag = nullptr)
{
    hkcpu_thread *me = current;
    const hkcpu_warp_request request = {op, width, operand, mask, value};
    const uint64_t result = me->services->warp(me, &request, flag);
    current = me;
    return result;
}

template <class T> inline uint64_t to_bits(T value)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "warp shuffles and matches on the CPU device take values of up to 8 bytes, as on the GPUs");
    uint64_t bits = 0;
    memcpy(&bits, &value, sizeof value);
    return bits;
}
template <class T> inline T from_bits(uint64_t bits)
{
    T value;
    memcpy(&value, &bits, sizeof value);
    return value;
}
template <class T> inline T shuffle(int op, T value, unsigned operand, int width, unsigned mask)
{
    return from_bits<T>(warp<T>(op, to_bits(value), operand, width, mask));
}

inline unsigned linear_thread()
{
    const hkcpu_thread *t = current;
    return t->thread_idx.x + t->block_dim.x * (t->thread_idx.y + t->block_dim.y * t->thread_idx.z);
}

template <class T> struct identity {
    typedef T type;
};
} // namespace hkcpu

// ---------------------------------------------------------- thread geometry

typedef hkcpu_dim3 uint3;
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(hkcpu_dim3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator hkcpu_dim3() const { return hkcpu_dim3{x, y, z}; }
};

#define threadIdx (::hkcpu::current->thread_idx)
#define blockIdx (::hkcpu::current->block_idx)
#define blockDim (::hkcpu::current->block_dim)
#define gridDim (::hkcpu::current->grid_dim)
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

static constexpr int warpSize = HKCPU_WARP_SIZE;

inline unsigned __lane_id()
{
    return hkcpu::linear_thread() % HKCPU_WARP_SIZE;
}
inline unsigned __lanemask_lt()
{
    return (1u << __lane_id()) - 1u;
}
inline unsigned __lanemask_le()
{
    return __lanemask_lt() | (1u << __lane_id());
}
inline unsigned __lanemask_gt()
{
    return ~__lanemask_le();
}
inline unsigned __lanemask_ge()
{
    return ~__lanemask_lt();
}
inline unsigned __lanemask_eq()
{
    return 1u << __lane_id();
}

// --------------------------------------------------------------- barriers

template <class T = void> inline void __syncthreads()
{
    int participants;
    (void)hkcpu::barrier<T>(1, &participants);
}
template <class T = void> inline int __syncthreads_count(int predicate)
{
    int participants;
    return hkcpu::barrier<T>(predicate != 0, &participants);
}
template <class T = void> inline int __syncthreads_and(int predicate)
{
    int participants;
    return hkcpu::barrier<T>(predicate != 0, &participants) == participants;
}
template <class T = void> inline int __syncthreads_or(int predicate)
{
    int participants;
    return hkcpu::barrier<T>(predicate != 0, &participants) != 0;
}
inline void __threadfence()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
inline void __threadfence_block()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
inline void __threadfence_system()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

// ---------------------------------------------------------- warp collectives

template <class T> inline T __shfl(T var, int src_lane, int width = warpSize)
{
    return hkcpu::shuffle<T>(HKCPU_SHFL_IDX, var, (unsigned)src_lane, width, 0xffffffffu);
}
template <class T> inline T __shfl_up(T var, unsigned int delta, int width = warpSize)
{
    return hkcpu::shuffle<T>(HKCPU_SHFL_UP, var, delta, width, 0xffffffffu);
}
template <class T> inline T __shfl_down(T var, unsigned int delta, int width = warpSize)
{
    return hkcpu::shuffle<T>(HKCPU_SHFL_DOWN, var, delta, width, 0xffffffffu);
}
template <class T> inline T __shfl_xor(T var, int lane_mask, int width = warpSize)
{
    return hkcpu::shuffle<T>(HKCPU_SHFL_XOR, var, (unsigned)lane_mask, width, 0xffffffffu);
}
template <class T> inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize)
{
    return hkcpu::shuffle<T>(HKCPU_SHFL_IDX, var, (unsigned)src_lane, width, mask);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = warpSize)
{
    return hkcpu::shuffle<T>(HKCPU_SHFL_UP, var, delta, width, mask);
}
template <class T> inline T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = warpSize)
{
    return hkcpu::shuffle<T>(HKCPU_SHFL_DOWN, var, delta, width, mask);
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize)
{
    return hkcpu::shuffle<T>(HKCPU_SHFL_XOR, var, (unsigned)lane_mask, width, mask);
}
template <class T = void> inline unsigned long long __ballot(int predicate)
{
    return hkcpu::warp<T>(HKCPU_BALLOT, predicate != 0, 0, warpSize, 0xffffffffu);
}
template <class T = void> inline unsigned __ballot_sync(unsigned mask, int predicate)
{
    return (unsigned)hkcpu::warp<T>(HKCPU_BALLOT, predicate != 0, 0, warpSize, mask);
}
template <class T = void> inline int __any(int predicate)
{
    return (int)hkcpu::warp<T>(HKCPU_ANY, predicate != 0, 0, warpSize, 0xffffffffu);
}
template <class T = void> inline int __all(int predicate)
{
    return (int)hkcpu::warp<T>(HKCPU_ALL, predicate != 0, 0, warpSize, 0xffffffffu);
}
template <class T = void> inline int __any_sync(unsigned mask, int predicate)
{
    return (int)hkcpu::warp<T>(HKCPU_ANY, predicate != 0, 0, warpSize, mask);
}
template <class T = void> inline int __all_sync(unsigned mask, int predicate)
{
    return (int)hkcpu::warp<T>(HKCPU_ALL, predicate != 0, 0, warpSize, mask);
}
template <class T = void> inline int __uni_sync(unsigned mask, int predicate)
{
    const unsigned votes = (unsigned)hkcpu::warp<T>(HKCPU_BALLOT, predicate != 0, 0, warpSize, mask);
    const unsigned present = (unsigned)hkcpu::warp<T>(HKCPU_ACTIVEMASK, 0, 0, warpSize, mask) & mask;
    return votes == 0 || votes == present;
}
template <class T = void> inline unsigned __activemask()
{
    return (unsigned)hkcpu::warp<T>(HKCPU_ACTIVEMASK, 0, 0, warpSize, 0xffffffffu);
}
template <class T = void> inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    (void)hkcpu::warp<T>(HKCPU_SYNCWARP, 0, 0, warpSize, mask);
}
template <class T> inline unsigned __match_any_sync(unsigned mask, T value)
{
    return (unsigned)hkcpu::warp<T>(HKCPU_MATCH_ANY, hkcpu::to_bits(value), sizeof(T), warpSize, mask);
}
template <class T> inline unsigned __match_all_sync(unsigned mask, T value, int *predicate)
{
    int flag = 0;
    const unsigned r = (unsigned)hkcpu::warp<T>(HKCPU_MATCH_ALL, hkcpu::to_bits(value), sizeof(T), warpSize, mask, &flag);
    *predicate = flag;
    return r;
}
#define HKCPU_WARP_REDUCE(name, type, op)                                                                              \
    template <class T = void> inline type name(unsigned mask, type value)                                             \
    {                                                                                                                  \
        return (type)hkcpu::warp<T>(op, (uint64_t)(uint32_t)value, 0, warpSize, mask);                                \
    }
HKCPU_WARP_REDUCE(__reduce_add_sync, unsigned, HKCPU_REDUCE_ADD)
HKCPU_WARP_REDUCE(__reduce_add_sync, int, HKCPU_REDUCE_ADD)
HKCPU_WARP_REDUCE(__reduce_min_sync, unsigned, HKCPU_REDUCE_MIN_UNSIGNED)
HKCPU_WARP_REDUCE(__reduce_min_sync, int, HKCPU_REDUCE_MIN_SIGNED)
HKCPU_WARP_REDUCE(__reduce_max_sync, unsigned, HKCPU_REDUCE_MAX_UNSIGNED)
HKCPU_WARP_REDUCE(__reduce_max_sync, int, HKCPU_REDUCE_MAX_SIGNED)
HKCPU_WARP_REDUCE(__reduce_and_sync, unsigned, HKCPU_REDUCE_AND)
HKCPU_WARP_REDUCE(__reduce_or_sync, unsigned, HKCPU_REDUCE_OR)
HKCPU_WARP_REDUCE(__reduce_xor_sync, unsigned, HKCPU_REDUCE_XOR)
#undef HKCPU_WARP_REDUCE

// ------------------------------------------------------------------- atomics
// Relaxed read-modify-writes, as the GPUs' atomics; floating-point ones (and min/max) are
// compare-and-swap loops on the value's bits.

namespace hkcpu
{
template <size_t N> struct unsigned_of_size;
template <> struct unsigned_of_size<2> {
    typedef uint16_t type;
};
template <> struct unsigned_of_size<4> {
    typedef uint32_t type;
};
template <> struct unsigned_of_size<8> {
    typedef uint64_t type;
};

// *address = update(*address), atomically; returns the old value.
template <class T, class F> inline T atomic_update(T *address, F update)
{
    static_assert(std::is_trivially_copyable<T>::value && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                  "atomics on the CPU device take 2-, 4- and 8-byte values, as on the GPUs");
    typedef typename unsigned_of_size<sizeof(T)>::type U;
    U *word = reinterpret_cast<U *>(address);
    U expected = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        T old;
        memcpy(&old, &expected, sizeof old);
        const T next = update(old);
        U desired;
        memcpy(&desired, &next, sizeof desired);
        if (__atomic_compare_exchange_n(word, &expected, desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return old;
    }
}
template <class T>
using is_integer = std::integral_constant<bool, std::is_integral<T>::value && !std::is_same<T, bool>::value>;
template <class T> inline T add(T *a, T v, std::true_type)
{
    return __atomic_fetch_add(a, v, __ATOMIC_RELAXED);
}
template <class T> inline T add(T *a, T v, std::false_type)
{
    return atomic_update(a, [v](T old) { return (T)(old + v); });
}
template <class T> inline T sub(T *a, T v, std::true_type)
{
    return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED);
}
template <class T> inline T sub(T *a, T v, std::false_type)
{
    return atomic_update(a, [v](T old) { return (T)(old - v); });
}
} // namespace hkcpu

template <class T> inline T atomicAdd(T *address, typename hkcpu::identity<T>::type value)
{
    return hkcpu::add(address, value, hkcpu::is_integer<T>());
}
template <class T> inline T atomicSub(T *address, typename hkcpu::identity<T>::type value)
{
    return hkcpu::sub(address, value, hkcpu::is_integer<T>());
}
template <class T> inline T atomicExch(T *address, typename hkcpu::identity<T>::type value)
{
    return hkcpu::atomic_update(address, [value](T) { return value; });
}
template <class T> inline T atomicMin(T *address, typename hkcpu::identity<T>::type value)
{
    return hkcpu::atomic_update(address, [value](T old) { return value < old ? value : old; });
}
template <class T> inline T atomicMax(T *address, typename hkcpu::identity<T>::type value)
{
    return hkcpu::atomic_update(address, [value](T old) { return value > old ? value : old; });
}
template <class T>
inline T atomicCAS(T *address, typename hkcpu::identity<T>::type compare, typename hkcpu::identity<T>::type value)
{
    return hkcpu::atomic_update(address, [compare, value](T old) { return old == compare ? value : old; });
}
inline unsigned atomicInc(unsigned *address, unsigned limit)
{
    return hkcpu::atomic_update(address, [limit](unsigned old) { return old >= limit ? 0u : old + 1u; });
}
inline unsigned atomicDec(unsigned *address, unsigned limit)
{
    return hkcpu::atomic_update(address,
                                [limit](unsigned old) { return (old == 0u || old > limit) ? limit : old - 1u; });
}
template <class T> inline T atomicAnd(T *address, typename hkcpu::identity<T>::type value)
{
    static_assert(hkcpu::is_integer<T>::value, "atomicAnd takes an integer");
    return __atomic_fetch_and(address, value, __ATOMIC_RELAXED);
}
template <class T> inline T atomicOr(T *address, typename hkcpu::identity<T>::type value)
{
    static_assert(hkcpu::is_integer<T>::value, "atomicOr takes an integer");
    return __atomic_fetch_or(address, value, __ATOMIC_RELAXED);
}
template <class T> inline T atomicXor(T *address, typename hkcpu::identity<T>::type value)
{
    static_assert(hkcpu::is_integer<T>::value, "atomicXor takes an integer");
    return __atomic_fetch_xor(address, value, __ATOMIC_RELAXED);
}
// Scoped and HIP-named forms: one core's view is the whole machine's.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor
#define unsafeAtomicAdd atomicAdd
#define safeAtomicAdd atomicAdd

// --------------------------------------------------------- loads, time, traps

template <class T> inline T __ldg(const T *p)
{
    return *p;
}
#define __ldcg __ldg
#define __ldca __ldg
#define __ldcs __ldg
#define __ldlu __ldg
#define __ldcv __ldg
template <class T> inline void __stcg(T *p, T v)
{
    *p = v;
}
#define __stwb __stcg
#define __stcs __stcg
#define __stwt __stcg

inline long long clock64()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
inline unsigned long long __globaltimer()
{
    return (unsigned long long)clock64();
}
inline long long wall_clock64()
{
    return clock64();
}
inline void __nanosleep(unsigned int) {}
[[noreturn]] inline void __trap()
{
    hkcpu::stop("__trap() was called");
}
[[noreturn]] inline void __brkpt()
{
    hkcpu::stop("__brkpt() was called");
}
[[noreturn]] inline void abort_kernel()
{
    hkcpu::stop("abort_kernel() was called");
}

// ------------------------------------------------------------------ math

template <class A, class B,
          class = typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>::type>
inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)b < (C)a ? (C)b : (C)a;
}
template <class A, class B,
          class = typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>::type>
inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)a < (C)b ? (C)b : (C)a;
}
inline float min(float a, float b)
{
    return fminf(a, b);
}
inline float max(float a, float b)
{
    return fmaxf(a, b);
}
inline double min(double a, double b)
{
    return fmin(a, b);
}
inline double max(double a, double b)
{
    return fmax(a, b);
}

inline float rsqrtf(float x)
{
    return 1.0f / sqrtf(x);
}
inline double rsqrt(double x)
{
    return 1.0 / sqrt(x);
}
inline float rcbrtf(float x)
{
    return 1.0f / cbrtf(x);
}
inline double rcbrt(double x)
{
    return 1.0 / cbrt(x);
}
inline float rhypotf(float x, float y)
{
    return 1.0f / hypotf(x, y);
}
inline float norm3df(float a, float b, float c)
{
    return sqrtf(a * a + b * b + c * c);
}
inline float rnorm3df(float a, float b, float c)
{
    return 1.0f / norm3df(a, b, c);
}
inline float sinpif(float x)
{
    return sinf((float)M_PI * x);
}
inline float cospif(float x)
{
    return cosf((float)M_PI * x);
}
inline double sinpi(double x)
{
    return sin(M_PI * x);
}
inline double cospi(double x)
{
    return cos(M_PI * x);
}
inline void sincospif(float x, float *s, float *c)
{
    *s = sinpif(x);
    *c = cospif(x);
}
inline float normcdff(float x)
{
    return 0.5f * erfcf(-x * (float)M_SQRT1_2);
}
inline double normcdf(double x)
{
    return 0.5 * erfc(-x * M_SQRT1_2);
}
inline float fdividef(float a, float b)
{
    return a / b;
}
inline float __fdividef(float a, float b)
{
    return a / b;
}
inline float __saturatef(float x)
{
    return x != x ? 0.0f : fminf(fmaxf(x, 0.0f), 1.0f);
}
// The fast intrinsics are the precise functions here.
#define HKCPU_SAME_AS(name, precise)                                                                                   \
    inline float name(float x) { return precise(x); }
HKCPU_SAME_AS(__expf, expf)
HKCPU_SAME_AS(__logf, logf)
HKCPU_SAME_AS(__log2f, log2f)
HKCPU_SAME_AS(__log10f, log10f)
HKCPU_SAME_AS(__sinf, sinf)
HKCPU_SAME_AS(__cosf, cosf)
HKCPU_SAME_AS(__tanf, tanf)
#undef HKCPU_SAME_AS
inline float __exp10f(float x)
{
    return powf(10.0f, x);
}
inline void __sincosf(float x, float *s, float *c)
{
    *s = sinf(x);
    *c = cosf(x);
}
inline float __powf(float x, float y)
{
    return powf(x, y);
}
// Rounding-mode suffixes: the host rounds to nearest even, which is _rn; the others are the same
// operation here (documented: the CPU device does not honour directed rounding).
#define HKCPU_FLOAT_OP(name, type, expression)                                                                         \
    inline type name##_rn(type a, type b) { return expression; }                                                       \
    inline type name##_rz(type a, type b) { return expression; }                                                       \
    inline type name##_rd(type a, type b) { return expression; }                                                       \
    inline type name##_ru(type a, type b) { return expression; }
HKCPU_FLOAT_OP(__fadd, float, a + b)
HKCPU_FLOAT_OP(__fsub, float, a - b)
HKCPU_FLOAT_OP(__fmul, float, a * b)
HKCPU_FLOAT_OP(__fdiv, float, a / b)
HKCPU_FLOAT_OP(__dadd, double, a + b)
HKCPU_FLOAT_OP(__dsub, double, a - b)
HKCPU_FLOAT_OP(__dmul, double, a * b)
HKCPU_FLOAT_OP(__ddiv, double, a / b)
#undef HKCPU_FLOAT_OP
inline float __fmaf_rn(float a, float b, float c)
{
    return fmaf(a, b, c);
}
inline double __fma_rn(double a, double b, double c)
{
    return fma(a, b, c);
}
inline float __fsqrt_rn(float x)
{
    return sqrtf(x);
}
inline double __dsqrt_rn(double x)
{
    return sqrt(x);
}
inline float __frcp_rn(float x)
{
    return 1.0f / x;
}
inline double __drcp_rn(double x)
{
    return 1.0 / x;
}
inline float __frsqrt_rn(float x)
{
    return 1.0f / sqrtf(x);
}

// Conversions: _rn rounds to nearest even, _rz truncates, _rd and _ru round down and up.
#define HKCPU_CONVERT(from_name, from, to_name, to)                                                                    \
    inline to __##from_name##2##to_name##_rn(from x) { return (to)nearbyint((double)x); }                              \
    inline to __##from_name##2##to_name##_rz(from x) { return (to)x; }                                                 \
    inline to __##from_name##2##to_name##_rd(from x) { return (to)floor((double)x); }                                  \
    inline to __##from_name##2##to_name##_ru(from x) { return (to)ceil((double)x); }
HKCPU_CONVERT(float, float, int, int)
HKCPU_CONVERT(float, float, uint, unsigned)
HKCPU_CONVERT(float, float, ll, long long)
HKCPU_CONVERT(float, float, ull, unsigned long long)
HKCPU_CONVERT(double, double, int, int)
HKCPU_CONVERT(double, double, uint, unsigned)
HKCPU_CONVERT(double, double, ll, long long)
HKCPU_CONVERT(double, double, ull, unsigned long long)
#undef HKCPU_CONVERT
inline float __int2float_rn(int x)
{
    return (float)x;
}
inline float __uint2float_rn(unsigned x)
{
    return (float)x;
}
inline float __ll2float_rn(long long x)
{
    return (float)x;
}
inline float __ull2float_rn(unsigned long long x)
{
    return (float)x;
}
inline double __int2double_rn(int x)
{
    return (double)x;
}
inline double __ll2double_rn(long long x)
{
    return (double)x;
}
inline float __double2float_rn(double x)
{
    return (float)x;
}
inline float __int_as_float(int v)
{
    return hkcpu::from_bits<float>((uint32_t)v);
}
inline float __uint_as_float(unsigned v)
{
    return hkcpu::from_bits<float>(v);
}
inline int __float_as_int(float v)
{
    return (int)(uint32_t)hkcpu::to_bits(v);
}
inline unsigned __float_as_uint(float v)
{
    return (uint32_t)hkcpu::to_bits(v);
}
inline double __longlong_as_double(long long v)
{
    return hkcpu::from_bits<double>((uint64_t)v);
}
inline long long __double_as_longlong(double v)
{
    return (long long)hkcpu::to_bits(v);
}
inline int __double2hiint(double v)
{
    return (int)(hkcpu::to_bits(v) >> 32);
}
inline int __double2loint(double v)
{
    return (int)(uint32_t)hkcpu::to_bits(v);
}
inline double __hiloint2double(int hi, int lo)
{
    return hkcpu::from_bits<double>((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo);
}

// -------------------------------------------------------- integer intrinsics

inline int __popc(unsigned x)
{
    return __builtin_popcount(x);
}
inline int __popcll(unsigned long long x)
{
    return __builtin_popcountll(x);
}
inline int __clz(int x)
{
    return x == 0 ? 32 : __builtin_clz((unsigned)x);
}
inline int __clzll(long long x)
{
    return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
inline int __ffs(int x)
{
    return __builtin_ffs(x);
}
inline int __ffsll(long long x)
{
    return __builtin_ffsll(x);
}
inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++, x >>= 1)
        r = (r << 1) | (x & 1u);
    return r;
}
inline unsigned long long __brevll(unsigned long long x)
{
    return (unsigned long long)__brev((unsigned)x) << 32 | __brev((unsigned)(x >> 32));
}
inline int __mulhi(int a, int b)
{
    return (int)(((long long)a * b) >> 32);
}
inline unsigned __umulhi(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
inline long long __mul64hi(long long a, long long b)
{
    return (long long)(((__int128)a * b) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __mul24(int a, int b)
{
    return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8));
}
inline unsigned __umul24(unsigned a, unsigned b)
{
    return (a & 0xffffffu) * (b & 0xffffffu);
}
inline unsigned __sad(int a, int b, unsigned c)
{
    return (unsigned)(a > b ? a - b : b - a) + c;
}
inline unsigned __usad(unsigned a, unsigned b, unsigned c)
{
    return (a > b ? a - b : b - a) + c;
}
inline int __hadd(int a, int b)
{
    return (int)(((long long)a + b) >> 1);
}
inline int __rhadd(int a, int b)
{
    return (int)(((long long)a + b + 1) >> 1);
}
inline unsigned __uhadd(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a + b) >> 1);
}
inline unsigned __urhadd(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const unsigned long long both = (unsigned long long)y << 32 | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned)((both >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)((((unsigned long long)hi << 32 | lo) << (shift & 31u)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)((((unsigned long long)hi << 32 | lo) << (shift < 32u ? shift : 32u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)(((unsigned long long)hi << 32 | lo) >> (shift & 31u));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift)
{
    return (unsigned)(((unsigned long long)hi << 32 | lo) >> (shift < 32u ? shift : 32u));
}

// ------------------------------------------------------------- vector types

#define HKCPU_VECTOR_TYPES(base, name)                                                                                 \
    struct name##1 {                                                                                                   \
        base x;                                                                                                        \
    };                                                                                                                 \
    struct __attribute__((aligned(2 * sizeof(base) < 16 ? 2 * sizeof(base) : 16))) name##2 {                           \
        base x, y;                                                                                                     \
    };                                                                                                                 \
    struct name##3 {                                                                                                   \
        base x, y, z;                                                                                                  \
    };                                                                                                                 \
    struct __attribute__((aligned(4 * sizeof(base) < 16 ? 4 * sizeof(base) : 16))) name##4 {                           \
        base x, y, z, w;                                                                                               \
    };                                                                                                                 \
    inline name##1 make_##name##1(base x) { return name##1{x}; }                                                       \
    inline name##2 make_##name##2(base x, base y) { return name##2{x, y}; }                                            \
    inline name##3 make_##name##3(base x, base y, base z) { return name##3{x, y, z}; }                                 \
    inline name##4 make_##name##4(base x, base y, base z, base w) { return name##4{x, y, z, w}; }
HKCPU_VECTOR_TYPES(signed char, char)
HKCPU_VECTOR_TYPES(unsigned char, uchar)
HKCPU_VECTOR_TYPES(short, short)
HKCPU_VECTOR_TYPES(unsigned short, ushort)
HKCPU_VECTOR_TYPES(int, int)
HKCPU_VECTOR_TYPES(long, long)
HKCPU_VECTOR_TYPES(unsigned long, ulong)
HKCPU_VECTOR_TYPES(long long, longlong)
HKCPU_VECTOR_TYPES(unsigned long long, ulonglong)
HKCPU_VECTOR_TYPES(float, float)
HKCPU_VECTOR_TYPES(double, double)
#undef HKCPU_VECTOR_TYPES
// uint3 is threadIdx's type, hkcpu_dim3; the other unsigned vectors:
struct uint1 {
    unsigned int x;
};
struct __attribute__((aligned(8))) uint2 {
    unsigned int x, y;
};
struct __attribute__((aligned(16))) uint4 {
    unsigned int x, y, z, w;
};
inline uint1 make_uint1(unsigned x)
{
    return uint1{x};
}
inline uint2 make_uint2(unsigned x, unsigned y)
{
    return uint2{x, y};
}
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z)
{
    return uint3{x, y, z};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w)
{
    return uint4{x, y, z, w};
}

// ---------------------------------------------------------------- assert

// A failed assert stops the kernel with a sentence (the GPUs trap); it never aborts the process.
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : ::hkcpu::assert_failed(#e, __FILE__, __LINE__))
#endif

// ---------------------------------------------------------------- entries

namespace hkcpu
{
template <size_t I, class T> struct slot {
    T value;
};
template <class Indices, class... A> struct arguments;
// The kernel's arguments, copied out of the launch's bytes once per block.
template <size_t... I, class... A> struct arguments<std::index_sequence<I...>, A...> : slot<I, A>... {
    explicit arguments(void *const *params) : slot<I, A>{load<A>(params[I])}... {}
    template <class A1> static A1 load(const void *bytes)
    {
        alignas(A1) unsigned char raw[sizeof(A1)];
        memcpy(raw, bytes, sizeof(A1));
        return *reinterpret_cast<A1 *>(raw);
    }
    template <void (*f)(A...)> void call() { f(static_cast<slot<I, A> &>(*this).value...); }
};

template <class F, F f> struct entry;
template <class... A, void (*f)(A...)> struct entry<void (*)(A...), f> {
    static_assert(sizeof...(A) <= HKCPU_MAX_PARAMS, "a kernel on the CPU device takes at most 64 parameters");
    typedef arguments<std::index_sequence_for<A...>, typename std::decay<A>::type...> args;

    // The kernel is inlined (flatten) into the loop over the block's threads, in functions of their
    // own: next to sigsetjmp every local would live in memory, not in registers.
    __attribute__((noinline, flatten)) static int block_body(hkcpu_thread *t)
    {
        try {
            args a(t->params);
            const unsigned bx = t->block_dim.x, by = t->block_dim.y, bz = t->block_dim.z;
            for (unsigned z = 0; z < bz; z++)
                for (unsigned y = 0; y < by; y++)
                    for (unsigned x = 0; x < bx; x++) {
                        t->thread_idx = hkcpu_dim3{x, y, z};
                        a.template call<f>();
                        if (t->rest_on_fibers)
                            return 0;
                    }
        } catch (...) {
            return threw(t);
        }
        return 0;
    }

    __attribute__((noinline, flatten)) static int thread_body(hkcpu_thread *t)
    {
        try {
            args(t->params).template call<f>();
        } catch (...) {
            return threw(t);
        }
        return 0;
    }

    static int threw(hkcpu_thread *t)
    {
        t->services->fail(t, "the kernel threw a C++ exception");
        return 1;
    }

    // The jump point a stopping thread leaves through (hkcpu::stop), around a body.
    template <int (*body)(hkcpu_thread *)> static int with_jump_point(hkcpu_thread *t)
    {
        sigjmp_buf jump;
        t->abort_jump = &jump;
        current = t;
        if (sigsetjmp(jump, 0))
            return 1;
        return body(t);
    }

    static constexpr hkcpu_kernel_info info()
    {
        return hkcpu_kernel_info{HKCPU_ABI_VERSION, (int)sizeof...(A), {(unsigned)sizeof(A)...},
                                 &with_jump_point<block_body>, &with_jump_point<thread_body>};
    }
};
} // namespace hkcpu

// The compiler step appends HKCPU_KERNEL(name, qualified name) for each extern "C" __global__
// kernel, then HKCPU_MODULE().
#define HKCPU_KERNEL(symbol, function)                                                                                 \
    extern "C" __attribute__((visibility("default")))                                                                  \
    const hkcpu_kernel_info __hkcpu_kernel_##symbol = ::hkcpu::entry<decltype(&function), &function>::info();
#define HKCPU_MODULE()                                                                                                 \
    extern "C" __attribute__((visibility("default"))) const int __hkcpu_abi_version = HKCPU_ABI_VERSION;

#endif
