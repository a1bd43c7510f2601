// elementwise_ops.h: what each hk_op means (NumPy's semantics), written once
// as device functors. Each functor's templated operator() takes values of the
// compute type C: bool, the integer types, float (also for float16, which is
// loaded into float and rounded back once) or double. Included by the
// elementwise_*.hip files; only the (op, dtype) pairs the host accepts are
// instantiated there.
#ifndef HIPKIT_ELEMENTWISE_OPS_H
#define HIPKIT_ELEMENTWISE_OPS_H

#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "hipkit_device.h"

namespace
{
namespace ewops
{

template <typename C> constexpr bool is_bool = std::is_same<C, bool>::value;
template <typename C> constexpr bool is_float = std::is_floating_point<C>::value;
template <typename C> constexpr bool is_int = std::is_integral<C>::value && !is_bool<C>;
template <typename C> constexpr bool is_signed_int = is_int<C> &&std::is_signed<C>::value;

// ---- device math with one name per function for float and double
#define HKEW_MATH1(name)                                                                                               \
    HK_DEVICE float m_##name(float x)                                                                                  \
    {                                                                                                                  \
        return name##f(x);                                                                                             \
    }                                                                                                                  \
    HK_DEVICE double m_##name(double x)                                                                                \
    {                                                                                                                  \
        return name(x);                                                                                                \
    }
#define HKEW_MATH2(name)                                                                                               \
    HK_DEVICE float m_##name(float x, float y)                                                                         \
    {                                                                                                                  \
        return name##f(x, y);                                                                                          \
    }                                                                                                                  \
    HK_DEVICE double m_##name(double x, double y)                                                                      \
    {                                                                                                                  \
        return name(x, y);                                                                                             \
    }
HKEW_MATH1(exp)
HKEW_MATH1(log)
HKEW_MATH1(log2)
HKEW_MATH1(log1p)
HKEW_MATH1(expm1)
HKEW_MATH1(sqrt)
HKEW_MATH1(sin)
HKEW_MATH1(cos)
HKEW_MATH1(tan)
HKEW_MATH1(tanh)
HKEW_MATH1(erf)
HKEW_MATH1(floor)
HKEW_MATH1(ceil)
HKEW_MATH1(rint)
HKEW_MATH1(fabs)
HKEW_MATH2(pow)
HKEW_MATH2(fmod)
HKEW_MATH2(copysign)
#undef HKEW_MATH1
#undef HKEW_MATH2

template <typename C> HK_DEVICE bool is_nan(C x)
{
    return x != x;
}
template <typename C> HK_DEVICE bool is_inf(C x)
{
    return x == C(HUGE_VAL) || x == -C(HUGE_VAL);
}

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
// NumPy's scalar loops: (a <= b || isnan(a)) ? a : b, so NaN in either wins.
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

// ---- unary
struct op_negative {
    template <typename C> HK_DEVICE C operator()(C a) const
    {
        if constexpr (is_float<C>)
            return -a;
        else
            return w_sub(C(0), a); // MIN wraps to MIN; unsigned wraps
    }
};
struct op_absolute {
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
#define HKEW_FLOAT_UNARY(op_name, fn)                                                                                  \
    struct op_name {                                                                                                   \
        template <typename C> HK_DEVICE C operator()(C a) const { return fn(a); }                                      \
    };
HKEW_FLOAT_UNARY(op_exp, m_exp)
HKEW_FLOAT_UNARY(op_log, m_log)
HKEW_FLOAT_UNARY(op_log2, m_log2)
HKEW_FLOAT_UNARY(op_log1p, m_log1p)
HKEW_FLOAT_UNARY(op_expm1, m_expm1)
HKEW_FLOAT_UNARY(op_sqrt, m_sqrt)
HKEW_FLOAT_UNARY(op_sin, m_sin)
HKEW_FLOAT_UNARY(op_cos, m_cos)
HKEW_FLOAT_UNARY(op_tan, m_tan)
HKEW_FLOAT_UNARY(op_tanh, m_tanh)
HKEW_FLOAT_UNARY(op_erf, m_erf)
HKEW_FLOAT_UNARY(op_floor, m_floor)
HKEW_FLOAT_UNARY(op_ceil, m_ceil)
HKEW_FLOAT_UNARY(op_rint, m_rint) // round half to even
#undef HKEW_FLOAT_UNARY
struct op_isnan {
    template <typename C> HK_DEVICE bool operator()(C a) const { return is_nan(a); }
};
struct op_isinf {
    template <typename C> HK_DEVICE bool operator()(C a) const { return is_inf(a); }
};
struct op_isfinite {
    template <typename C> HK_DEVICE bool operator()(C a) const { return !is_nan(a) && !is_inf(a); }
};
// out = in[0]: the identity ops (integer floor/ceil/rint, unsigned absolute)
// and, with a host-scalar input, a fill.
struct op_copy {
    template <typename C> HK_DEVICE C operator()(C a) const { return a; }
};

// ---- ternary
struct op_where {
    template <typename C> HK_DEVICE C operator()(bool c, C a, C b) const { return c ? a : b; }
};
struct op_clip {
    template <typename C> HK_DEVICE C operator()(C a, C lo, C hi) const
    {
        return op_minimum()(op_maximum()(a, lo), hi);
    }
};

} // namespace ewops
} // namespace

#endif
