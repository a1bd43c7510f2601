// dtype_traits.h: every fact about a dtype that device code needs, once:
// how it is stored (bool as a byte, float16 as its 16 bits), which type it
// computes in (bool as bool, float16 as float), loading and storing between
// the two, its range, and NumPy's accumulation and mean dtypes. The map,
// reduce, scan, sort and copy families all read these.
#ifndef HIPKIT_DTYPE_TRAITS_H
#define HIPKIT_DTYPE_TRAITS_H

#include <stdint.h>

#include <type_traits>

#include "hipkit/hipkit.h"

#if defined(HKC_HOST)
#include "cpu/host.h"
#elif !defined(HKR_EMULATION)
#include "gpu/device.h"
#endif

#include "common/cplx.h"

namespace hk_dt
{

// ---- storage and compute types
//   stored: the bytes in memory; compute: what the ops work on;
//   load(stored) -> compute, store(compute) -> stored (rounded once);
//   lowest()/highest(): the range in the compute type (floats: -inf, +inf).
template <hk_dtype D> struct traits;

template <hk_dtype D, typename T, bool Float, bool Signed> struct plain_traits {
    static constexpr hk_dtype dtype = D;
    typedef T stored;
    typedef T compute;
    static constexpr bool is_float = Float;
    static constexpr bool is_signed = Signed;
    static constexpr bool is_bool = false;
    static constexpr bool is_complex = false;
    static HK_DEVICE T load(T v) { return v; }
    static HK_DEVICE T store(T v) { return v; }
};

#define HK_DT_INTEGER(D, T, LO, HI)                                                                                    \
    template <> struct traits<D> : plain_traits<D, T, false, (LO) < 0> {                                               \
        static HK_DEVICE T lowest() { return (T)(LO); }                                                                \
        static HK_DEVICE T highest() { return (T)(HI); }                                                               \
    };
HK_DT_INTEGER(HK_INT8, int8_t, -128, 127)
HK_DT_INTEGER(HK_UINT8, uint8_t, 0, 255)
HK_DT_INTEGER(HK_INT16, int16_t, -32768, 32767)
HK_DT_INTEGER(HK_UINT16, uint16_t, 0, 65535)
HK_DT_INTEGER(HK_INT32, int32_t, -2147483647 - 1, 2147483647)
HK_DT_INTEGER(HK_UINT32, uint32_t, 0, 4294967295u)
HK_DT_INTEGER(HK_INT64, int64_t, -9223372036854775807LL - 1, 9223372036854775807LL)
HK_DT_INTEGER(HK_UINT64, uint64_t, 0, 18446744073709551615ULL)
#undef HK_DT_INTEGER

template <> struct traits<HK_FLOAT32> : plain_traits<HK_FLOAT32, float, true, true> {
    static HK_DEVICE float lowest() { return -__int_as_float(0x7f800000); }
    static HK_DEVICE float highest() { return __int_as_float(0x7f800000); }
};
template <> struct traits<HK_FLOAT64> : plain_traits<HK_FLOAT64, double, true, true> {
    static HK_DEVICE double lowest() { return -__longlong_as_double(0x7ff0000000000000LL); }
    static HK_DEVICE double highest() { return __longlong_as_double(0x7ff0000000000000LL); }
};

// Two floats (common/cplx.h), stored and computed as they are. Complex numbers
// have no order: no lowest()/highest(), and the ops that need one (min, max,
// sorting, comparisons other than == and !=) do not list them.
template <hk_dtype D, typename R> struct complex_traits {
    static constexpr hk_dtype dtype = D;
    typedef hk_ops::cplx<R> stored;
    typedef hk_ops::cplx<R> compute;
    typedef R real; // the real and imaginary parts' type
    static constexpr bool is_float = false;
    static constexpr bool is_signed = true;
    static constexpr bool is_bool = false;
    static constexpr bool is_complex = true;
    static HK_DEVICE compute load(stored v) { return v; }
    static HK_DEVICE stored store(compute v) { return v; }
};
template <> struct traits<HK_COMPLEX64> : complex_traits<HK_COMPLEX64, float> {
};
template <> struct traits<HK_COMPLEX128> : complex_traits<HK_COMPLEX128, double> {
};

// Bytes; any non-zero byte reads as true, true is stored as 1.
template <> struct traits<HK_BOOL> {
    static constexpr hk_dtype dtype = HK_BOOL;
    typedef uint8_t stored;
    typedef bool compute;
    static constexpr bool is_float = false;
    static constexpr bool is_signed = false;
    static constexpr bool is_bool = true;
    static constexpr bool is_complex = false;
    static HK_DEVICE bool load(uint8_t v) { return v != 0; }
    static HK_DEVICE uint8_t store(bool v) { return v ? 1 : 0; }
    static HK_DEVICE bool lowest() { return false; }
    static HK_DEVICE bool highest() { return true; }
};

// IEEE half bits, computed in float and rounded to nearest even once.
template <> struct traits<HK_FLOAT16> {
    static constexpr hk_dtype dtype = HK_FLOAT16;
    typedef uint16_t stored;
    typedef float compute;
    static constexpr bool is_float = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_bool = false;
    static constexpr bool is_complex = false;
    static HK_DEVICE float load(uint16_t v) { return hk_dev::half_bits_to_float(v); }
    static HK_DEVICE uint16_t store(float v) { return hk_dev::float_to_half_bits(v); }
    static HK_DEVICE float lowest() { return -__int_as_float(0x7f800000); }
    static HK_DEVICE float highest() { return __int_as_float(0x7f800000); }
};

// The unsigned integer of `Bytes` bytes (1, 2, 4 or 8), and of a dtype's
// width: ops that only move values (where, copies, sorting's keys, take and
// put) move these bits, so NaN payloads and bool bytes pass unchanged.
template <int Bytes> struct uint_of_size;
template <> struct uint_of_size<1> {
    typedef uint8_t type;
};
template <> struct uint_of_size<2> {
    typedef uint16_t type;
};
template <> struct uint_of_size<4> {
    typedef uint32_t type;
};
template <> struct uint_of_size<8> {
    typedef uint64_t type;
};
struct alignas(16) bits128 { // complex128's bits: moved, never computed on
    uint64_t lo, hi;
};
template <> struct uint_of_size<16> {
    typedef bits128 type;
};
template <hk_dtype D> struct bits_of {
    typedef typename uint_of_size<(int)sizeof(typename traits<D>::stored)>::type type;
};

// Raw bits of a dtype as a traits type (bool bytes are normalised to 0 or 1).
template <hk_dtype D> struct raw_traits {
    static constexpr hk_dtype dtype = D;
    typedef typename bits_of<D>::type stored;
    typedef stored compute;
    static constexpr bool is_float = false;
    static constexpr bool is_signed = false;
    static constexpr bool is_bool = false;
    static constexpr bool is_complex = false;
    static HK_DEVICE stored load(stored v) { return v; }
    static HK_DEVICE stored store(stored v) { return v; }
};
template <> struct raw_traits<HK_BOOL> : traits<HK_BOOL> {
};

// ---- NumPy's accumulation dtype (sum, prod, cumsum, cumprod): bool and
// signed integers -> int64, unsigned -> uint64 (both accumulate in uint64,
// whose wrap-around gives int64's bits), floats and complex -> themselves
// (float16 accumulates in float32 and is rounded once at the end).
template <hk_dtype D> struct accumulate {
    static constexpr hk_dtype out_dtype = traits<D>::is_signed || D == HK_BOOL ? HK_INT64 : HK_UINT64;
    typedef uint64_t acc;
    typedef typename traits<out_dtype>::stored out;
    static HK_DEVICE acc from(typename traits<D>::compute v)
    {
        if constexpr (traits<D>::is_signed)
            return (uint64_t)(int64_t)v; // sign-extends
        else
            return (uint64_t)v;
    }
    static HK_DEVICE out finish(acc a) { return (out)a; }
};
template <hk_dtype F> struct float_accumulate {
    static constexpr hk_dtype out_dtype = F;
    typedef typename traits<F>::compute acc;
    typedef typename traits<F>::stored out;
    static HK_DEVICE acc from(acc v) { return v; }
    static HK_DEVICE out finish(acc a) { return traits<F>::store(a); }
};
template <> struct accumulate<HK_FLOAT16> : float_accumulate<HK_FLOAT16> {
};
template <> struct accumulate<HK_FLOAT32> : float_accumulate<HK_FLOAT32> {
};
template <> struct accumulate<HK_FLOAT64> : float_accumulate<HK_FLOAT64> {
};
template <> struct accumulate<HK_COMPLEX64> : float_accumulate<HK_COMPLEX64> {
};
template <> struct accumulate<HK_COMPLEX128> : float_accumulate<HK_COMPLEX128> {
};

// ---- NumPy's mean dtype (mean, var, std): float64 for bool and integers,
// the float or complex dtype itself otherwise, accumulated in float32 for float16.
template <hk_dtype D> struct mean_of {
    static constexpr hk_dtype out_dtype = traits<D>::is_float || traits<D>::is_complex ? D : HK_FLOAT64;
    typedef typename traits<out_dtype>::compute acc;
    typedef typename traits<out_dtype>::stored out;
    static HK_DEVICE out finish(acc a) { return traits<out_dtype>::store(a); }
};

} // namespace hk_dt

#endif
