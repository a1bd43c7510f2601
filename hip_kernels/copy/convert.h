// convert.h: what hk_copy_array's conversions mean (NumPy's astype: integers wrap, floats saturate
// into integers with NaN giving 0, anything to bool is "not zero"), for the GPU kernels
// (copy_cast.hip) and the CPU device's (cpu/copy.cpp): convert_to<D>::from<S>(a stored S value).
#ifndef HIPKIT_COPY_CONVERT_H
#define HIPKIT_COPY_CONVERT_H

#include <stdint.h>

#include "common/dtype_traits.h"

namespace hk_copy
{

// A source element: its stored type and its value in the compute type
// (hk_dt::traits: float16 as float), except that a bool source is read as a
// C++ bool, its byte as stored, as this kernel always has: traits<HK_BOOL>'s
// load would make any non-zero byte 1, where a cast of a byte other than 0 or 1
// (never written by hipkit, only reachable through raw memory) has exposed the
// byte, and costs a compare and a select per element. The host compiler reads
// the byte as a signed char, as NVIDIA's device compiler loads a bool (ld.s8):
// a C++ bool holding another byte is undefined behaviour on the host.
template <hk_dtype S> struct source {
    typedef typename hk_dt::traits<S>::stored stored;
    static HK_DEVICE typename hk_dt::traits<S>::compute value(stored v) { return hk_dt::traits<S>::load(v); }
};
template <> struct source<HK_BOOL> {
#if defined(HKC_HOST)
    typedef int8_t stored;
#else
    typedef bool stored;
#endif
    static HK_DEVICE stored value(stored v)
    {
        return v;
    }
};

// Everything converts through these: a source value into double (exact for
// every integer up to 2^53 and for every float; a complex number's real part,
// as NumPy's astype to a real dtype keeps it), or straight between integer
// types, which keeps 64-bit integers exact.
template <hk_dtype S> HK_DEVICE double to_double(typename source<S>::stored v)
{
    if constexpr (hk_dt::traits<S>::is_complex)
        return (double)v.re;
    else
        return (double)source<S>::value(v);
}
// Sources whose values go through double: floats and complex numbers.
template <hk_dtype S> constexpr bool through_double = hk_dt::traits<S>::is_float || hk_dt::traits<S>::is_complex;

// Integer destinations. Floats saturate at the range and NaN gives 0; the
// bounds compare as doubles, where int64's and uint64's highest() round up to
// 2^63 and 2^64, so anything at or above them saturates.
template <hk_dtype D> struct convert_to {
    typedef hk_dt::traits<D> T;
    typedef typename T::stored Out;
    template <hk_dtype S> static HK_DEVICE Out from(typename source<S>::stored v)
    {
        if constexpr (through_double<S>) {
            double x = to_double<S>(v);
            if (x != x)
                return Out(0);
            if (x >= (double)T::highest())
                return T::highest();
            if (x <= (double)T::lowest())
                return T::lowest();
            return (Out)x;
        } else {
            return (Out)source<S>::value(v); // integer to integer wraps, as NumPy's astype
        }
    }
};
template <> struct convert_to<HK_BOOL> {
    template <hk_dtype S> static HK_DEVICE uint8_t from(typename source<S>::stored v)
    {
        if constexpr (hk_dt::traits<S>::is_complex) // either part non-zero (NaN is true)
            return hk_dt::traits<HK_BOOL>::store(v.re != 0 || v.im != 0);
        else
            return hk_dt::traits<HK_BOOL>::store(to_double<S>(v) != 0.0); // NaN is true, as in NumPy
    }
};
template <> struct convert_to<HK_FLOAT32> {
    template <hk_dtype S> static HK_DEVICE float from(typename source<S>::stored v)
    {
        if constexpr (S == HK_FLOAT32)
            return v; // the same dtype: its bits as they are (NaN payloads, signalling NaNs), as NumPy's astype
        if constexpr (S == HK_COMPLEX64)
            return v.re; // the real part's bits
        else if constexpr (through_double<S>)
            return (float)to_double<S>(v);
        else
            return (float)source<S>::value(v); // int64 -> float rounds once, as NumPy does
    }
};
template <> struct convert_to<HK_FLOAT64> {
    template <hk_dtype S> static HK_DEVICE double from(typename source<S>::stored v)
    {
        if constexpr (S == HK_FLOAT64)
            return v; // the same dtype: its bits as they are (NaN payloads, signalling NaNs), as NumPy's astype
        if constexpr (S == HK_COMPLEX128)
            return v.re; // the real part's bits
        else if constexpr (through_double<S>)
            return to_double<S>(v);
        else
            return (double)source<S>::value(v);
    }
};
template <> struct convert_to<HK_FLOAT16> {
    template <hk_dtype S> static HK_DEVICE uint16_t from(typename source<S>::stored v)
    {
        if constexpr (S == HK_FLOAT16)
            return v; // the same dtype: its bits as they are (NaN payloads, signalling NaNs), as NumPy's astype
        // Through float: int64 -> float -> half rounds twice only for
        // magnitudes far beyond half's range, where both give infinity.
        if constexpr (through_double<S>)
            return hk_dt::traits<HK_FLOAT16>::store((float)to_double<S>(v));
        else
            return hk_dt::traits<HK_FLOAT16>::store((float)source<S>::value(v));
    }
};

// Complex destinations: the real part converted as into the part's float dtype, the imaginary part 0, from
// a real source; from a complex source both parts (the same dtype: their bits as they are).
template <hk_dtype D, typename R> struct convert_to_complex {
    typedef hk_ops::cplx<R> Out;
    template <hk_dtype S> static HK_DEVICE Out from(typename source<S>::stored v)
    {
        if constexpr (S == D) {
            return v;
        } else if constexpr (hk_dt::traits<S>::is_complex) {
            Out r = {(R)v.re, (R)v.im};
            return r;
        } else {
            Out r = {convert_to < D == HK_COMPLEX64 ? HK_FLOAT32 : HK_FLOAT64 > ::template from<S>(v), R(0)};
            return r;
        }
    }
};
template <> struct convert_to<HK_COMPLEX64> : convert_to_complex<HK_COMPLEX64, float> {
};
template <> struct convert_to<HK_COMPLEX128> : convert_to_complex<HK_COMPLEX128, double> {
};

} // namespace hk_copy

#endif
