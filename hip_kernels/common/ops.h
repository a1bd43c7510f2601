// ops.h: what each elementwise op means (NumPy's semantics, HK_OP_TABLE in
// hipkit.h), written once as device functors named op_<numpy name>. The map
// skeleton (hip_kernels/elementwise) runs every one of them; the reduce and
// scan skeletons combine with op_add and op_multiply (reduce's MIN and MAX
// keep another NaN rule: see ExtremeOp in reduce/skeleton.h).
// Each operator() takes values of the compute type C (hk_dt::traits<D>::compute):
// bool, the integer types, float (also for float16) or double, and is
// instantiated only for the dtypes the op's table row lists.
#ifndef HIPKIT_OPS_H
#define HIPKIT_OPS_H

#include <math.h>
#include <stdint.h>

#include <type_traits>

#if defined(HKC_HOST)
#include "cpu/host.h"
#else
#include "common/hipkit_device.h"
#endif

#include "common/cplx.h"

namespace hk_ops
{

template <typename C> constexpr bool is_bool = std::is_same<C, bool>::value;
template <typename C> constexpr bool is_complex = false;
template <typename R> constexpr bool is_complex<cplx<R>> = true;
template <typename C> constexpr bool is_float = std::is_floating_point<C>::value;
template <typename C> constexpr bool is_int = std::is_integral<C>::value && !is_bool<C>;
template <typename C> constexpr bool is_signed_int = is_int<C> &&std::is_signed<C>::value;

// ---- device math with one name per function for float and double
#define HK_OPS_MATH1(name)                                                                                             \
    HK_DEVICE float m_##name(float x)                                                                                  \
    {                                                                                                                  \
        return ::name##f(x);                                                                                           \
    }                                                                                                                  \
    HK_DEVICE double m_##name(double x)                                                                                \
    {                                                                                                                  \
        return ::name(x);                                                                                              \
    }
#define HK_OPS_MATH2(name)                                                                                             \
    HK_DEVICE float m_##name(float x, float y)                                                                         \
    {                                                                                                                  \
        return ::name##f(x, y);                                                                                        \
    }                                                                                                                  \
    HK_DEVICE double m_##name(double x, double y)                                                                      \
    {                                                                                                                  \
        return ::name(x, y);                                                                                           \
    }
HK_OPS_MATH1(exp)
HK_OPS_MATH1(log)
HK_OPS_MATH1(log2)
HK_OPS_MATH1(log10)
HK_OPS_MATH1(log1p)
HK_OPS_MATH1(expm1)
HK_OPS_MATH1(sqrt)
HK_OPS_MATH1(sin)
HK_OPS_MATH1(cos)
HK_OPS_MATH1(tan)
HK_OPS_MATH1(sinh)
HK_OPS_MATH1(cosh)
HK_OPS_MATH1(tanh)
HK_OPS_MATH1(asin)
HK_OPS_MATH1(acos)
HK_OPS_MATH1(atan)
HK_OPS_MATH1(asinh)
HK_OPS_MATH1(acosh)
HK_OPS_MATH1(atanh)
HK_OPS_MATH1(erf)
HK_OPS_MATH1(floor)
HK_OPS_MATH1(ceil)
HK_OPS_MATH1(trunc)
HK_OPS_MATH1(rint)
HK_OPS_MATH1(fabs)
HK_OPS_MATH2(pow)
HK_OPS_MATH2(fmod)
HK_OPS_MATH2(atan2)
HK_OPS_MATH2(hypot)
HK_OPS_MATH2(copysign)
HK_OPS_MATH2(nextafter)
#undef HK_OPS_MATH1
#undef HK_OPS_MATH2

template <typename C> HK_DEVICE bool is_nan(C x)
{
    if constexpr (is_complex<C>)
        return is_nan(x.re) || is_nan(x.im);
    else if constexpr (is_float<C>)
        return x != x;
    else
        return false;
}
template <typename C> HK_DEVICE bool is_inf(C x)
{
    if constexpr (is_complex<C>)
        return is_inf(x.re) || is_inf(x.im); // the array API: either part infinite
    else if constexpr (is_float<C>)
        return x == C(HUGE_VAL) || x == -C(HUGE_VAL);
    else
        return false;
}
HK_DEVICE bool sign_bit(float x)
{
    return (__float_as_uint(x) >> 31) != 0;
}
HK_DEVICE bool sign_bit(double x)
{
    return __double_as_longlong(x) < 0;
}

} // namespace hk_ops

// Complex arithmetic and functions, written over the real functions above.
#include "common/complex.h"

namespace hk_ops
{

// The elementary functions of a complex number under the real ones' names, so each functor below is
// written once for real and complex dtypes.
#define HK_OPS_COMPLEX1(name, fn)                                                                                      \
    template <typename R> HK_DEVICE cplx<R> m_##name(cplx<R> z)                                                        \
    {                                                                                                                  \
        return fn(z);                                                                                                  \
    }
HK_OPS_COMPLEX1(exp, c_exp)
HK_OPS_COMPLEX1(log, c_log)
HK_OPS_COMPLEX1(log2, c_log2)
HK_OPS_COMPLEX1(log10, c_log10)
HK_OPS_COMPLEX1(log1p, c_log1p)
HK_OPS_COMPLEX1(expm1, c_expm1)
HK_OPS_COMPLEX1(sqrt, c_sqrt)
HK_OPS_COMPLEX1(sin, c_sin)
HK_OPS_COMPLEX1(cos, c_cos)
HK_OPS_COMPLEX1(tan, c_tan)
HK_OPS_COMPLEX1(sinh, c_sinh)
HK_OPS_COMPLEX1(cosh, c_cosh)
HK_OPS_COMPLEX1(tanh, c_tanh)
HK_OPS_COMPLEX1(asin, c_asin)
HK_OPS_COMPLEX1(acos, c_acos)
HK_OPS_COMPLEX1(atan, c_atan)
HK_OPS_COMPLEX1(asinh, c_asinh)
HK_OPS_COMPLEX1(acosh, c_acosh)
HK_OPS_COMPLEX1(atanh, c_atanh)
#undef HK_OPS_COMPLEX1

// ---- integers: two's complement wrap-around, computed unsigned (no UB)
template <typename C> HK_DEVICE C w_add(C a, C b)
{
    if constexpr (is_int<C>) {
        typedef typename std::make_unsigned<C>::type U;
        return (C)(U)((U)a + (U)b);
    } else {
        return a + b;
    }
}
template <typename C> HK_DEVICE C w_sub(C a, C b)
{
    if constexpr (is_int<C>) {
        typedef typename std::make_unsigned<C>::type U;
        return (C)(U)((U)a - (U)b);
    } else {
        return a - b;
    }
}
template <typename C> HK_DEVICE C w_mul(C a, C b)
{
    if constexpr (is_int<C>) {
        typedef typename std::make_unsigned<C>::type U;
        return (C)(U)((U)a * (U)b);
    } else {
        return a * b;
    }
}

// NumPy's npy_divmod (Python's convention): the remainder has the divisor's
// sign and the quotient is snapped to an integer. b must not be 0.
template <typename C> HK_DEVICE C float_divmod(C a, C b, C &mod)
{
    mod = m_fmod(a, b);
    C div = (a - mod) / b;
    if (mod != C(0)) { // NaN counts as non-zero, as C's `if (mod)`
        if ((b < C(0)) != (mod < C(0))) {
            mod += b;
            div -= C(1);
        }
    } else {
        mod = m_copysign(C(0), b);
    }
    C floordiv;
    if (div != C(0)) {
        floordiv = m_floor(div);
        if (div - floordiv > C(0.5))
            floordiv += C(1);
    } else {
        floordiv = m_copysign(C(0), a / b);
    }
    return floordiv;
}

template <typename C> HK_DEVICE bool truth(C x)
{
    if constexpr (is_bool<C>)
        return x;
    else if constexpr (is_complex<C>)
        return x.re != 0 || x.im != 0; // either part
    else
        return x != C(0); // NaN is true, -0.0 false
}

// ---- binary
struct op_add {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if constexpr (is_bool<C>)
            return a || b;
        else
            return w_add(a, b);
    }
};
struct op_subtract {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return w_sub(a, b); }
};
struct op_multiply {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if constexpr (is_bool<C>)
            return a && b;
        else
            return w_mul(a, b);
    }
};
struct op_divide {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return a / b; }
};
struct op_floor_divide {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if constexpr (is_float<C>) {
            if (b == C(0))
                return a / b; // inf or NaN, as NumPy
            if (is_inf(a) && !is_inf(b) && !is_nan(b))
                return a / b; // +-inf // finite: +-inf (the array API's special case)
            if (is_inf(b) && !is_inf(a) && !is_nan(a))
                return a / b; // finite // +-inf: the signed zero (the array API 2024.12's; NumPy: -5 // inf is -1)
            C mod;
            return float_divmod(a, b, mod);
        } else if constexpr (is_signed_int<C>) {
            if (b == 0)
                return 0;
            if (b == C(-1))
                return w_sub(C(0), a); // MIN // -1 wraps to MIN
            C q = (C)(a / b);
            if ((C)(a % b) != 0 && ((a < 0) != (b < 0)))
                q = (C)(q - 1);
            return q;
        } else {
            return b == 0 ? C(0) : (C)(a / b);
        }
    }
};
struct op_remainder {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if constexpr (is_float<C>) {
            if (b == C(0))
                return m_fmod(a, b); // NaN
            C mod;
            float_divmod(a, b, mod);
            return mod;
        } else if constexpr (is_signed_int<C>) {
            if (b == 0 || b == C(-1))
                return 0;
            C r = (C)(a % b);
            if (r != 0 && ((r < 0) != (b < 0)))
                r = (C)(r + b);
            return r;
        } else {
            return b == 0 ? C(0) : (C)(a % b);
        }
    }
};
struct op_power {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if constexpr (is_float<C>) {
            return m_pow(a, b);
        } else if constexpr (is_complex<C>) {
            return c_pow(a, b);
        } else {
            if constexpr (is_signed_int<C>) {
                if (b < 0) // NumPy raises; hipkit: 1 ** -n == 1, (-1) ** -n == +-1, else 0
                    return a == 1 ? C(1) : a == C(-1) ? ((b & 1) ? C(-1) : C(1)) : C(0);
            }
            typedef typename std::make_unsigned<C>::type U;
            U base = (U)a, e = (U)b, r = 1;
            while (e) {
                if (e & 1u)
                    r = (U)(r * base);
                base = (U)(base * base);
                e = (U)(e >> 1);
            }
            return (C)r;
        }
    }
};
// NumPy's scalar loops: (a <= b || isnan(a)) ? a : b, so NaN in either wins
// and of equal values the first.
struct op_minimum {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if constexpr (is_float<C>)
            return (a <= b || is_nan(a)) ? a : b;
        else
            return a <= b ? a : b;
    }
};
struct op_maximum {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if constexpr (is_float<C>)
            return (a >= b || is_nan(a)) ? a : b;
        else
            return a >= b ? a : b;
    }
};
struct op_equal {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return a == b; }
};
struct op_not_equal {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return a != b; }
};
struct op_less {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return a < b; }
};
struct op_less_equal {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return a <= b; }
};
struct op_greater {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return a > b; }
};
struct op_greater_equal {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return a >= b; }
};
struct op_logical_and {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return truth(a) && truth(b); }
};
struct op_logical_or {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return truth(a) || truth(b); }
};
struct op_logical_xor {
    template <typename C> HK_DEVICE bool operator()(C a, C b) const { return truth(a) != truth(b); }
};
struct op_bitwise_and {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return (C)(a & b); }
};
struct op_bitwise_or {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return (C)(a | b); }
};
struct op_bitwise_xor {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return (C)(a ^ b); }
};
struct op_arctan2 {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return m_atan2(a, b); }
};
struct op_hypot {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return m_hypot(a, b); }
};
struct op_copysign {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return m_copysign(a, b); }
};
// NumPy's npy_logaddexp: equal arguments (infinities included) give x + log 2;
// otherwise the larger plus log1p(exp(-|x - y|)); NaN propagates.
struct op_logaddexp {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if (a == b)
            return a + C(0.693147180559945309417232121458176568);
        const C d = a - b;
        if (d > C(0))
            return a + m_log1p(m_exp(-d));
        if (d <= C(0))
            return b + m_log1p(m_exp(d));
        return d; // NaN
    }
};
// Counts below 0 or at least the width shift every bit out, as NumPy's npy_lshift/npy_rshift.
struct op_left_shift {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        typedef typename std::make_unsigned<C>::type U;
        if ((U)b < (U)(8 * sizeof(C)))
            return (C)(U)((U)a << (U)b);
        return C(0);
    }
};
struct op_right_shift {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        typedef typename std::make_unsigned<C>::type U;
        if ((U)b < (U)(8 * sizeof(C)))
            return (C)(a >> (U)b); // arithmetic for signed types
        if constexpr (is_signed_int<C>)
            return a < 0 ? C(-1) : C(0);
        return C(0);
    }
};

// C's fmod: the dividend's sign; integers: fmod(x, 0) == 0, and MIN % -1 == 0 without overflowing.
struct op_fmod {
    template <typename C> HK_DEVICE C operator()(C a, C b) const
    {
        if constexpr (is_float<C>)
            return m_fmod(a, b);
        else if constexpr (is_signed_int<C>)
            return b == 0 || b == C(-1) ? C(0) : (C)(a % b);
        else
            return b == 0 ? C(0) : (C)(a % b);
    }
};

// ---- unary
struct op_negative {
    template <typename C> HK_DEVICE C operator()(C a) const
    {
        if constexpr (is_float<C> || is_complex<C>)
            return -a;
        else
            return w_sub(C(0), a); // MIN wraps to MIN; unsigned wraps
    }
};
struct op_absolute {
    template <typename R> HK_DEVICE R operator()(cplx<R> a) const { return c_abs(a); } // the modulus, a real
    template <typename C> HK_DEVICE C operator()(C a) const
    {
        if constexpr (is_float<C>)
            return m_fabs(a);
        else if constexpr (is_signed_int<C>)
            return a < 0 ? w_sub(C(0), a) : a; // abs(MIN) wraps to MIN
        else
            return a;
    }
};
struct op_logical_not {
    template <typename C> HK_DEVICE bool operator()(C a) const { return !truth(a); }
};
struct op_bitwise_invert {
    template <typename C> HK_DEVICE C operator()(C a) const
    {
        if constexpr (is_bool<C>)
            return !a;
        else
            return (C)~a;
    }
};
#define HK_OPS_FLOAT_UNARY(op_name, fn)                                                                                \
    struct op_name {                                                                                                   \
        template <typename C> HK_DEVICE C operator()(C a) const { return fn(a); }                                      \
    };
HK_OPS_FLOAT_UNARY(op_exp, m_exp)
HK_OPS_FLOAT_UNARY(op_log, m_log)
HK_OPS_FLOAT_UNARY(op_log2, m_log2)
HK_OPS_FLOAT_UNARY(op_log10, m_log10)
HK_OPS_FLOAT_UNARY(op_log1p, m_log1p)
HK_OPS_FLOAT_UNARY(op_expm1, m_expm1)
HK_OPS_FLOAT_UNARY(op_sqrt, m_sqrt)
HK_OPS_FLOAT_UNARY(op_sin, m_sin)
HK_OPS_FLOAT_UNARY(op_cos, m_cos)
HK_OPS_FLOAT_UNARY(op_tan, m_tan)
HK_OPS_FLOAT_UNARY(op_sinh, m_sinh)
HK_OPS_FLOAT_UNARY(op_cosh, m_cosh)
HK_OPS_FLOAT_UNARY(op_tanh, m_tanh)
HK_OPS_FLOAT_UNARY(op_arcsin, m_asin)
HK_OPS_FLOAT_UNARY(op_arccos, m_acos)
HK_OPS_FLOAT_UNARY(op_arctan, m_atan)
HK_OPS_FLOAT_UNARY(op_arcsinh, m_asinh)
HK_OPS_FLOAT_UNARY(op_arccosh, m_acosh)
HK_OPS_FLOAT_UNARY(op_arctanh, m_atanh)
HK_OPS_FLOAT_UNARY(op_erf, m_erf)
#undef HK_OPS_FLOAT_UNARY
// Rounding: the identity for integers and bool.
#define HK_OPS_ROUNDING(op_name, fn)                                                                                   \
    struct op_name {                                                                                                   \
        template <typename C> HK_DEVICE C operator()(C a) const                                                        \
        {                                                                                                              \
            if constexpr (is_float<C>)                                                                                 \
                return fn(a);                                                                                          \
            else                                                                                                       \
                return a;                                                                                              \
        }                                                                                                              \
    };
HK_OPS_ROUNDING(op_floor, m_floor)
HK_OPS_ROUNDING(op_ceil, m_ceil)
HK_OPS_ROUNDING(op_trunc, m_trunc)
HK_OPS_ROUNDING(op_rint, m_rint) // round half to even
#undef HK_OPS_ROUNDING
struct op_isnan {
    template <typename C> HK_DEVICE bool operator()(C a) const { return is_nan(a); }
};
struct op_isinf {
    template <typename C> HK_DEVICE bool operator()(C a) const { return is_inf(a); }
};
struct op_isfinite {
    template <typename C> HK_DEVICE bool operator()(C a) const { return !is_nan(a) && !is_inf(a); }
};
// The complex conjugate, and a complex number's parts (real numbers are their own conjugate and real
// part, with an imaginary part 0). The parts are reals: the op table's HK_RULE_REAL_PART.
struct op_conjugate {
    template <typename C> HK_DEVICE C operator()(C a) const
    {
        if constexpr (is_complex<C>)
            return c_conj(a);
        else
            return a;
    }
};
struct op_real {
    template <typename R> HK_DEVICE R operator()(cplx<R> a) const { return a.re; }
    template <typename C> HK_DEVICE C operator()(C a) const { return a; }
};
struct op_imag {
    template <typename R> HK_DEVICE R operator()(cplx<R> a) const { return a.im; }
    template <typename C> HK_DEVICE C operator()(C) const { return C(0); }
};
struct op_nextafter {
    template <typename C> HK_DEVICE C operator()(C a, C b) const { return m_nextafter(a, b); }
};
struct op_signbit {
    template <typename C> HK_DEVICE bool operator()(C a) const { return sign_bit(a); }
};
// NaN stays NaN; -0.0 and 0.0 give 0.0.
struct op_sign {
    template <typename C> HK_DEVICE C operator()(C a) const
    {
        if constexpr (is_complex<C>)
            return c_sign(a); // z / |z|, 0 for 0 (the array API's)
        else if constexpr (is_float<C>)
            return a > C(0) ? C(1) : a < C(0) ? C(-1) : a == C(0) ? C(0) : a;
        else if constexpr (is_signed_int<C>)
            return a > 0 ? C(1) : a < 0 ? C(-1) : C(0);
        else
            return a > 0 ? C(1) : C(0);
    }
};
// Integers: 1 / x truncated, and 0 for x == 0 (as x // 0).
struct op_reciprocal {
    template <typename C> HK_DEVICE C operator()(C a) const
    {
        if constexpr (is_complex<C>)
            return c_reciprocal(a);
        else if constexpr (is_float<C>)
            return C(1) / a;
        else
            return a == 0 ? C(0) : (C)(C(1) / a);
    }
};
struct op_square {
    template <typename C> HK_DEVICE C operator()(C a) const { return w_mul(a, a); }
};

// ---- ternary
// where moves its values as raw bits (hk_dt::raw_traits): NaN payloads and
// float16 bits pass unchanged. Its first input is the bool condition.
struct op_where {
    static constexpr bool moves_bits = true;
    static constexpr bool bool_condition = true;
    template <typename C> HK_DEVICE C operator()(bool c, C a, C b) const { return c ? a : b; }
};
struct op_clip {
    template <typename C> HK_DEVICE C operator()(C a, C lo, C hi) const
    {
        return op_minimum()(op_maximum()(a, lo), hi);
    }
};

// ---- not NumPy functions: the map skeleton's other uses
// hk_fill: the host value as it is, bit for bit.
struct op_fill {
    static constexpr bool moves_bits = true;
    template <typename C> HK_DEVICE C operator()(C a) const { return a; }
};

// ---- what the skeletons ask of a functor beyond operator()
template <class Op, typename = void> struct moves_bits : std::false_type {
};
template <class Op> struct moves_bits<Op, std::void_t<decltype(Op::moves_bits)>> : std::bool_constant<Op::moves_bits> {
};
template <class Op, typename = void> struct bool_condition : std::false_type {
};
template <class Op>
struct bool_condition<Op, std::void_t<decltype(Op::bool_condition)>> : std::bool_constant<Op::bool_condition> {
};

} // namespace hk_ops

#endif
