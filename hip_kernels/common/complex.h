// complex.h: complex numbers for device functors (hk_ops::cplx<float>,
// hk_ops::cplx<double>), written once for hipcc, nvcc and the host compiler.
//
// Semantics: C99 Annex G (branch cuts, infinities, signed zeros) as refined
// by the Python array API standard 2023.12 (elementwise_functions.py,
// "Special cases / For complex floating-point operands"); values aim at a few
// ulp of Python's cmath (double) and NumPy complex64 (float). Where NumPy and
// the spec disagree the spec wins, and the function's comment says so.
//
// The includer defines HK_DEVICE and, in namespace hk_ops, the real math this
// file calls (hip_kernels/common/ops.h): m_exp m_log m_log1p m_expm1 m_sqrt
// m_sin m_cos m_tan m_sinh m_cosh m_asinh m_floor m_trunc m_fabs m_atan2
// m_hypot m_copysign, is_nan, is_inf. No lookup tables, no static data, no
// recursion, no exceptions: every function is usable in device code.
//
// Algorithms are written from the literature, not copied from any library:
//  - W. Kahan, "Branch Cuts for Complex Elementary Functions, or Much Ado About
//    Nothing's Sign Bit" (1987): sqrt, tanh, asin/asinh, acos, acosh.
//  - T. E. Hull, T. F. Fairgrieve, P. T. P. Tang (1994/1997): log1p(|z|^2-1)
//    for log near the unit circle.
//  - R. L. Smith (1962), M. Baudin & R. L. Smith (2012): division.
//  - ISO C99 Annex G.5.1: infinity recovery for * and /.
#ifndef HIPKIT_COMPLEX_H
#define HIPKIT_COMPLEX_H

#include <math.h> // HUGE_VAL, NAN (macros only)

#include "common/cplx.h" // the layout: hk_ops::cplx<R>

namespace hk_ops
{

template <typename R> HK_DEVICE cplx<R> make_cplx(R re, R im)
{
    cplx<R> z = {re, im};
    return z;
}

namespace cplx_detail
{
// Per-type constants (functions, not static data, so device code can use them).
template <typename R> struct lim;
template <> struct lim<float> {
    static HK_DEVICE float max() { return 3.40282347e+38f; }         // FLT_MAX
    static HK_DEVICE float tiny() { return 0x1p-100f; }              // below: rescale
    static HK_DEVICE float up() { return 0x1p60f; }                  // tiny -> normal (even power)
    static HK_DEVICE float up_half() { return 0x1p-30f; }            // 1/sqrt(up)
    static HK_DEVICE float log_up() { return 41.5888308335967186f; } // ln(2^60)
    static HK_DEVICE float eps() { return 0x1p-23f; }
    static HK_DEVICE float min_normal() { return 0x1p-126f; }
    static HK_DEVICE float exp_big() { return 88.0f; }    // exp(x) overflows past 88.72
    static HK_DEVICE float tanh_big() { return 10.0f; }   // tanh(x) == 1 in float past ~9
    static HK_DEVICE float asym() { return 0x1p13f; }     // |z| past this: asymptotic inverses
    static HK_DEVICE float sqrt_big() { return 0x1p62f; } // squares stay finite below this
    static HK_DEVICE float split() { return 0x1p10f; }    // split3's binary points
    static HK_DEVICE float split2() { return 0x1p22f; }
};
template <> struct lim<double> {
    static HK_DEVICE double max() { return 1.7976931348623157e+308; }
    static HK_DEVICE double tiny() { return 0x1p-1000; }
    static HK_DEVICE double up() { return 0x1p600; }
    static HK_DEVICE double up_half() { return 0x1p-300; }
    static HK_DEVICE double log_up() { return 415.888308335967186; } // ln(2^600)
    static HK_DEVICE double eps() { return 0x1p-52; }
    static HK_DEVICE double min_normal() { return 0x1p-1022; }
    static HK_DEVICE double exp_big() { return 709.0; } // exp(x) overflows past 709.78
    static HK_DEVICE double tanh_big() { return 20.0; } // tanh(x) == 1 in double past ~19.1
    static HK_DEVICE double asym() { return 0x1p28; }
    static HK_DEVICE double sqrt_big() { return 0x1p510; }
    static HK_DEVICE double split() { return 0x1p24; }
    static HK_DEVICE double split2() { return 0x1p50; }
};

template <typename R> HK_DEVICE R inf()
{
    return R(HUGE_VAL);
}
template <typename R> HK_DEVICE R nan()
{
    return R(NAN);
}
template <typename R> HK_DEVICE R pi()
{
    return R(3.14159265358979323846);
}
template <typename R> HK_DEVICE R pi_2()
{
    return R(1.57079632679489661923);
}
template <typename R> HK_DEVICE R pi_4()
{
    return R(0.785398163397448309616);
}
template <typename R> HK_DEVICE R pi3_4()
{
    return R(2.35619449019234492885);
}
template <typename R> HK_DEVICE R ln2()
{
    return R(0.693147180559945309417);
}

template <typename R> HK_DEVICE bool finite(R x)
{
    return x - x == R(0);
} // false for inf, nan
template <typename R> HK_DEVICE R max2(R x, R y)
{
    return x > y ? x : y;
}
template <typename R> HK_DEVICE R min2(R x, R y)
{
    return x < y ? x : y;
}
template <typename R> HK_DEVICE R neg_if(bool neg, R x)
{
    return neg ? -x : x;
}

// Knuth's two-sum: s + e == a + b exactly. Only additions, so floating-point
// contraction (nvcc/hipcc fuse a*b+c by default) cannot change it.
template <typename R> HK_DEVICE void two_sum(R a, R b, R &s, R &e)
{
    s = a + b;
    R bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}

// x == h + m + t, for |x| < 4, cut at two fixed binary points (2^-24, 2^-50
// for double; 2^-10, 2^-22 for float) so that h*h, h*(m+t), m*m and m*t are
// exact products and t*t is below any rounding that matters. Truncation at a
// fixed point, not Veltkamp's c - (c - x): that one breaks when the compiler
// contracts it into an FMA (nvcc and hipcc do by default).
template <typename R> HK_DEVICE void split3(R x, R &h, R &m, R &t)
{
    h = m_trunc(x * lim<R>::split()) * (R(1) / lim<R>::split());
    R l = x - h; // exact
    m = m_trunc(l * lim<R>::split2()) * (R(1) / lim<R>::split2());
    t = l - m; // exact
}

// 0.5 * log1p(2d + d^2 + e^2) = log(|1 + d + i e|), for |d|, |e| < 4 and
// |1 + d + ie| near 1, where the naive sum cancels (Hull et al.). The squares
// become sums of exact products (split3); the eleven terms are summed by
// Ogita, Rump & Oishi's SumK with K = 3 (two error-free passes, then a plain
// sum), as if in triple precision, so the argument of log1p is right to
// ~1 ulp even when |z|^2 - 1 is 2^-50 of the terms.
template <typename R> HK_DEVICE R log1p_sq(R d, R e)
{
    R dh, dm, dt, eh, em, et;
    split3(d, dh, dm, dt);
    split3(e, eh, em, et);
    R p[11] = {R(2) * d, dh * dh, eh * eh,        R(2) * dh * (dm + dt), R(2) * eh * (em + et),
               dm * dm,  em * em, R(2) * dm * dt, R(2) * em * et,        dt * dt,
               et * et};
    for (int k = 0; k < 2; ++k)
        for (int i = 1; i < 11; ++i)
            two_sum(p[i], p[i - 1], p[i], p[i - 1]);
    R s = p[0];
    for (int i = 1; i < 11; ++i)
        s += p[i];
    return R(0.5) * m_log1p(s);
}

// log(hypot(x, y)) for finite x, y, not both zero, without overflow or
// underflow in hypot and accurate when the modulus is near 1.
template <typename R> HK_DEVICE R log_abs(R x, R y)
{
    R am = max2(m_fabs(x), m_fabs(y)), an = min2(m_fabs(x), m_fabs(y));
    if (am >= R(0.5) && am <= R(2)) {
        R r2 = am * am + an * an;
        if (r2 >= R(0.5) && r2 <= R(3))
            return log1p_sq(am - R(1), an); // am - 1 is exact (Sterbenz)
        return m_log(m_hypot(am, an));
    }
    if (am > lim<R>::max() * R(0.25))
        return m_log(m_hypot(am * R(0.5), an * R(0.5))) + ln2<R>();
    if (am < lim<R>::tiny())
        return m_log(m_hypot(am * lim<R>::up(), an * lim<R>::up())) - lim<R>::log_up();
    return m_log(m_hypot(am, an));
}

// C99 G.5.1 recovery step for products: a component is infinite, so the
// result is an infinity; "box" infinities to +-1 and NaNs to +-0 and redo.
template <typename R> HK_DEVICE void mul_recover(R a, R b, R c, R d, R ac, R bd, R ad, R bc, R &x, R &y)
{
    bool recalc = false;
    if (is_inf(a) || is_inf(b)) {
        a = m_copysign(is_inf(a) ? R(1) : R(0), a);
        b = m_copysign(is_inf(b) ? R(1) : R(0), b);
        if (is_nan(c))
            c = m_copysign(R(0), c);
        if (is_nan(d))
            d = m_copysign(R(0), d);
        recalc = true;
    }
    if (is_inf(c) || is_inf(d)) {
        c = m_copysign(is_inf(c) ? R(1) : R(0), c);
        d = m_copysign(is_inf(d) ? R(1) : R(0), d);
        if (is_nan(a))
            a = m_copysign(R(0), a);
        if (is_nan(b))
            b = m_copysign(R(0), b);
        recalc = true;
    }
    if (!recalc && (is_inf(ac) || is_inf(bd) || is_inf(ad) || is_inf(bc))) {
        // overflow in a partial product: recover infinities from it
        if (is_nan(a))
            a = m_copysign(R(0), a);
        if (is_nan(b))
            b = m_copysign(R(0), b);
        if (is_nan(c))
            c = m_copysign(R(0), c);
        if (is_nan(d))
            d = m_copysign(R(0), d);
        recalc = true;
    }
    if (recalc) {
        x = inf<R>() * (a * c - b * d);
        y = inf<R>() * (a * d + b * c);
    }
}
} // namespace cplx_detail

// ---- arithmetic ---------------------------------------------------------

// Componentwise (array API add/subtract tables; signed zeros per IEEE).
template <typename R> HK_DEVICE cplx<R> operator+(cplx<R> z, cplx<R> w)
{
    return make_cplx(z.re + w.re, z.im + w.im);
}
template <typename R> HK_DEVICE cplx<R> operator-(cplx<R> z, cplx<R> w)
{
    return make_cplx(z.re - w.re, z.im - w.im);
}
template <typename R> HK_DEVICE cplx<R> operator-(cplx<R> z)
{
    return make_cplx(-z.re, -z.im);
}
// Equal iff both parts compare equal (so any NaN part compares unequal).
template <typename R> HK_DEVICE bool operator==(cplx<R> z, cplx<R> w)
{
    return z.re == w.re && z.im == w.im;
}
template <typename R> HK_DEVICE bool operator!=(cplx<R> z, cplx<R> w)
{
    return !(z == w);
}

// Textbook product (ac - bd) + (ad + bc)i; when both parts come out NaN, the
// C99 G.5.1 recovery returns the infinity Annex G asks for (e.g.
// (inf + i inf) * (1 + i nan)). NumPy's multiply ufunc is the bare textbook
// product and gives NaN + NaN i there.
template <typename R> HK_DEVICE cplx<R> operator*(cplx<R> z, cplx<R> w)
{
    R a = z.re, b = z.im, c = w.re, d = w.im;
    R ac = a * c, bd = b * d, ad = a * d, bc = b * c;
    R x = ac - bd, y = ad + bc;
    if (is_nan(x) && is_nan(y))
        cplx_detail::mul_recover(a, b, c, d, ac, bd, ad, bc, x, y);
    return make_cplx(x, y);
}

// Smith's algorithm with Baudin & Smith's (2012) fixes: operands scaled by
// powers of two when near overflow/underflow, and the r == 0 variant when the
// ratio underflows; so (1e300 + 1e300i) / (1e300 + 1e300i) == 1.
// Zero divisor: as NumPy, each part divided by +0 (a/0, b/0: inf or NaN per
// part). Annex G would give copysign(inf, c) * (a + bi), which differs only in
// the sign of the infinities for a -0 divisor.
// Non-finite operands: if both parts come out NaN, C99 G.5.1's recovery:
// infinite / finite -> infinity, finite / infinite -> zero. NumPy (plain Smith)
// gives NaN + NaN i for e.g. (inf + i inf) / (1 + 0i).
template <typename R> HK_DEVICE cplx<R> operator/(cplx<R> z, cplx<R> w)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im, c = w.re, d = w.im;
    if (c == R(0) && d == R(0))
        return make_cplx(a / m_fabs(c), b / m_fabs(c));
    R ab = max2(m_fabs(a), m_fabs(b)), cd = max2(m_fabs(c), m_fabs(d));
    R s = R(1);
    const R half_max = lim<R>::max() * R(0.5);
    const R small = lim<R>::min_normal() * R(2) / lim<R>::eps();
    const R be = R(2) / (lim<R>::eps() * lim<R>::eps());
    if (ab > half_max) {
        a *= R(0.5);
        b *= R(0.5);
        s *= R(2);
    } else if (ab < small) {
        a *= be;
        b *= be;
        s /= be;
    }
    if (cd > half_max) {
        c *= R(0.5);
        d *= R(0.5);
        s *= R(0.5);
    } else if (cd < small) {
        c *= be;
        d *= be;
        s *= be;
    }
    R x, y;
    if (m_fabs(d) <= m_fabs(c)) {
        R r = d / c, t = R(1) / (c + d * r);
        if (r != R(0)) {
            x = (a + b * r) * t;
            y = (b - a * r) * t;
        } else {
            x = (a + d * (b / c)) * t;
            y = (b - d * (a / c)) * t;
        }
    } else {
        R r = c / d, t = R(1) / (d + c * r);
        if (r != R(0)) {
            x = (a * r + b) * t;
            y = (b * r - a) * t;
        } else {
            x = (c * (a / d) + b) * t;
            y = (c * (b / d) - a) * t;
        }
    }
    if (is_nan(x) && is_nan(y)) {
        if ((is_inf(a) || is_inf(b)) && finite(c) && finite(d)) {
            a = m_copysign(is_inf(a) ? R(1) : R(0), a);
            b = m_copysign(is_inf(b) ? R(1) : R(0), b);
            x = inf<R>() * (a * c + b * d);
            y = inf<R>() * (b * c - a * d);
        } else if ((is_inf(c) || is_inf(d)) && finite(a) && finite(b)) {
            c = m_copysign(is_inf(c) ? R(1) : R(0), c);
            d = m_copysign(is_inf(d) ? R(1) : R(0), d);
            x = R(0) * (a * c + b * d);
            y = R(0) * (b * c - a * d);
        }
    }
    return make_cplx(x * s, y * s);
}

// ---- classification (array API isnan / isinf / isfinite) ------------------
// isnan: either part NaN. isinf: either part infinite (even if the other is
// NaN). isfinite: both parts finite.
template <typename R> HK_DEVICE bool c_isnan(cplx<R> z)
{
    return is_nan(z.re) || is_nan(z.im);
}
template <typename R> HK_DEVICE bool c_isinf(cplx<R> z)
{
    return is_inf(z.re) || is_inf(z.im);
}
template <typename R> HK_DEVICE bool c_isfinite(cplx<R> z)
{
    return cplx_detail::finite(z.re) && cplx_detail::finite(z.im);
}

// ---- elementary functions -----------------------------------------------

// |z| = hypot(re, im): no undue overflow/underflow; inf if either part is inf
// (even with a NaN), else NaN if either is NaN (C99 hypot rules).
template <typename R> HK_DEVICE R c_abs(cplx<R> z)
{
    return m_hypot(z.re, z.im);
}

// arg z = atan2(im, re) in [-pi, pi]; signed zeros pick the side of the cut.
template <typename R> HK_DEVICE R c_arg(cplx<R> z)
{
    return m_atan2(z.im, z.re);
}

template <typename R> HK_DEVICE cplx<R> c_conj(cplx<R> z)
{
    return make_cplx(z.re, -z.im);
}

// z*z (array API square: special cases as multiply's, which the non-finite
// inputs take). Finite z: real part (a - b)(a + b), not a^2 - b^2, which
// keeps full relative accuracy when |a| ~ |b| and does not overflow to
// inf - inf; a zero real part falls back to a^2 - b^2 for its sign.
template <typename R> HK_DEVICE cplx<R> c_square(cplx<R> z)
{
    R a = z.re, b = z.im;
    if (!cplx_detail::finite(a) || !cplx_detail::finite(b))
        return z * z;
    R re = (a - b) * (a + b);
    if (re == R(0))
        re = a * a - b * b;
    return make_cplx(re, R(2) * a * b);
}

// 1/z, with divide's special cases (1/0 = inf + NaN i as np.divide gives;
// note np.reciprocal itself returns NaN + NaN i for 0).
template <typename R> HK_DEVICE cplx<R> c_reciprocal(cplx<R> z)
{
    return make_cplx(R(1), R(0)) / z;
}

// sign(z) = z/|z| (array API sign): 0 + 0i for z == 0; NaN + NaN i if either
// part is NaN (the spec's rule; NumPy gives 1 + 0i for inf + NaN i). One
// infinite part: +-1 on that axis and +0 on the other, as NumPy; both
// infinite: NaN + NaN i, as
// NumPy and the Annex G division (inf/inf) give. |z| is taken on a
// power-of-two rescaled z so huge and subnormal inputs stay accurate.
template <typename R> HK_DEVICE cplx<R> c_sign(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a) || is_nan(b))
        return make_cplx(nan<R>(), nan<R>());
    if (a == R(0) && b == R(0))
        return make_cplx(R(0), R(0));
    if (is_inf(a) || is_inf(b)) {
        if (is_inf(a) && is_inf(b))
            return make_cplx(nan<R>(), nan<R>());
        return make_cplx(is_inf(a) ? m_copysign(R(1), a) : R(0), is_inf(b) ? m_copysign(R(1), b) : R(0));
    }
    R m = max2(m_fabs(a), m_fabs(b));
    if (m > lim<R>::up()) { // hypot could overflow
        a *= R(1) / lim<R>::up();
        b *= R(1) / lim<R>::up();
    } else if (m < R(1) / lim<R>::up()) { // hypot could lose bits to underflow
        a *= lim<R>::up();
        b *= lim<R>::up();
    }
    R h = m_hypot(a, b);
    return make_cplx(a / h, b / h);
}

// exp(z) = e^a (cos b + i sin b). Special cases (array API exp / C99 G.6.3.1):
// exp(+-0 + 0i) = 1 + 0i; finite + i inf/NaN -> NaN + NaN i; +inf + 0i ->
// inf + 0i; -inf + i finite -> +0 cis(b); +inf + i finite -> inf cis(b);
// -inf + i inf/NaN -> 0 + 0i; +inf + i inf/NaN -> inf + NaN i;
// NaN + 0i -> NaN + 0i; NaN + any other -> NaN + NaN i. For e^a past the
// overflow threshold, e^(a/2) is applied twice so e^a cos b stays finite
// where it should.
template <typename R> HK_DEVICE cplx<R> c_exp(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a))
        return make_cplx(a, b == R(0) ? b : nan<R>());
    if (is_inf(a)) {
        if (a > R(0)) {
            if (b == R(0))
                return make_cplx(a, b);
            if (!finite(b))
                return make_cplx(a, nan<R>());
            return make_cplx(a * m_cos(b), a * m_sin(b));
        }
        if (!finite(b))
            return make_cplx(R(0), R(0));
        return make_cplx(R(0) * m_cos(b), R(0) * m_sin(b));
    }
    if (!finite(b))
        return make_cplx(nan<R>(), nan<R>());
    if (b == R(0))
        return make_cplx(m_exp(a), b);
    if (a > lim<R>::exp_big()) {
        R e = m_exp(R(0.5) * a);
        return make_cplx((m_cos(b) * e) * e, (m_sin(b) * e) * e);
    }
    R e = m_exp(a);
    return make_cplx(e * m_cos(b), e * m_sin(b));
}

// expm1(z) = exp(z) - 1: real part expm1(a) cos b - 2 sin^2(b/2) (no
// cancellation of 1 near 0), imaginary part e^a sin b. Special cases (array
// API expm1): as exp, minus 1: +-0 + 0i -> 0 + 0i; -inf + i finite ->
// -1 + 0 sin(b) i; -inf + i inf/NaN -> -1 + 0i; others as exp.
template <typename R> HK_DEVICE cplx<R> c_expm1(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a))
        return make_cplx(a, b == R(0) ? b : nan<R>());
    if (is_inf(a)) {
        if (a > R(0)) {
            if (b == R(0))
                return make_cplx(a, b);
            if (!finite(b))
                return make_cplx(a, nan<R>());
            return make_cplx(a * m_cos(b), a * m_sin(b));
        }
        if (!finite(b))
            return make_cplx(R(-1), R(0));
        return make_cplx(R(-1), R(0) * m_sin(b));
    }
    if (!finite(b))
        return make_cplx(nan<R>(), nan<R>());
    if (a == R(0) && b == R(0)) // +-0 + 0i -> +0 + 0i: the array API's special case (NumPy keeps -0)
        return make_cplx(R(0), b);
    if (b == R(0))
        return make_cplx(m_expm1(a), b);
    if (a > lim<R>::exp_big()) { // e^a >= 1e38: the -1 is below rounding
        R e = m_exp(R(0.5) * a);
        return make_cplx((m_cos(b) * e) * e, (m_sin(b) * e) * e);
    }
    R h = m_sin(R(0.5) * b);
    return make_cplx(m_expm1(a) * m_cos(b) - R(2) * h * h, m_exp(a) * m_sin(b));
}

// log(z) = log|z| + i arg z, arg in [-pi, pi], cut along the negative real
// axis (continuous from above for +0 imaginary parts). log|z| by log_abs (no
// overflow, and log1p(|z|^2 - 1)/2 near the unit circle). Special cases (array
// API log): -0 + 0i -> -inf + i pi; +0 + 0i -> -inf + 0i; finite + i inf ->
// inf + i pi/2; finite + i NaN -> NaN + NaN i; -inf + i y -> inf + i pi;
// +inf + i y -> inf + 0i; -inf + i inf -> inf + 3pi/4 i; inf + i inf ->
// inf + pi/4 i; +-inf + i NaN and NaN + i inf -> inf + NaN i; NaN + finite ->
// NaN + NaN i. All of these are what atan2 and an infinite modulus give.
template <typename R> HK_DEVICE cplx<R> c_log(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a) || is_nan(b))
        return make_cplx((is_inf(a) || is_inf(b)) ? inf<R>() : nan<R>(), nan<R>());
    R im = m_atan2(b, a);
    if (is_inf(a) || is_inf(b))
        return make_cplx(inf<R>(), im);
    if (a == R(0) && b == R(0))
        return make_cplx(-inf<R>(), im);
    return make_cplx(log_abs(a, b), im);
}

// log1p(z) = log(1 + z), accurate for small z: arg = atan2(b, 1 + a) and
// log|1 + z| = log1p(2a + a^2 + b^2)/2 (computed exactly-ish by log1p_sq)
// while |1 + z|^2 is in [0.5, 3]; otherwise log|1 + z| directly (1 + a is exact
// or harmless there). Special cases (array API log1p): -1 + 0i -> -inf + 0i;
// then as log(1 + z): finite + i inf -> inf + i pi/2, finite + i NaN ->
// NaN + NaN i, -inf + i y -> inf + i pi, +inf + i y -> inf + 0i, etc.
template <typename R> HK_DEVICE cplx<R> c_log1p(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a) || is_nan(b))
        return make_cplx((is_inf(a) || is_inf(b)) ? inf<R>() : nan<R>(), nan<R>());
    R x1 = R(1) + a;
    R im = m_atan2(b, x1);
    if (is_inf(a) || is_inf(b))
        return make_cplx(inf<R>(), im);
    if (max2(m_fabs(a), m_fabs(b)) < R(4)) {
        R r2 = x1 * x1 + b * b;
        if (r2 >= R(0.5) && r2 <= R(3))
            return make_cplx(log1p_sq(a, b), im);
        if (x1 == R(0) && b == R(0))
            return make_cplx(-inf<R>(), im);
        return make_cplx(m_log(m_hypot(x1, b)), im);
    }
    return make_cplx(log_abs(x1, b), im);
}

// log2(z), log10(z): the change of base log(z) / log(base) applied to both
// parts (array API: special cases as that formula gives).
template <typename R> HK_DEVICE cplx<R> c_log2(cplx<R> z)
{
    cplx<R> w = c_log(z);
    const R k = R(1.44269504088896340736); // 1/ln 2
    return make_cplx(w.re * k, w.im * k);
}
template <typename R> HK_DEVICE cplx<R> c_log10(cplx<R> z)
{
    cplx<R> w = c_log(z);
    const R k = R(0.434294481903251827651); // 1/ln 10
    return make_cplx(w.re * k, w.im * k);
}

// sqrt(z), principal branch (re >= 0), cut along the negative real axis
// (Kahan 1987): t = sqrt((|a| + |z|)/2); a >= 0: t + i b/(2t); a < 0:
// |b|/(2t) + i copysign(t, b). Huge or tiny z is scaled by an even power of
// two first. Special cases (array API sqrt / C99 G.6.4.2): +-0 + 0i -> +0 + 0i
// (imaginary sign kept); any + i inf -> inf + i inf; finite + i NaN ->
// NaN + NaN i; -inf + i y -> +0 + i inf; +inf + i y -> inf + 0i;
// -inf + i NaN -> NaN + i inf; +inf + i NaN -> inf + NaN i; NaN + any ->
// NaN + NaN i.
template <typename R> HK_DEVICE cplx<R> c_sqrt(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_inf(b))
        return make_cplx(inf<R>(), b);
    if (is_nan(a))
        return make_cplx(a, a);
    if (is_inf(a)) {
        if (a > R(0))
            return make_cplx(a, is_nan(b) ? b : m_copysign(R(0), b));
        return make_cplx(is_nan(b) ? b : R(0), m_copysign(inf<R>(), b));
    }
    if (is_nan(b))
        return make_cplx(b, b);
    if (a == R(0) && b == R(0))
        return make_cplx(R(0), b);
    R m = max2(m_fabs(a), m_fabs(b)), sc = R(1);
    if (m > lim<R>::max() * R(0.25)) {
        a *= R(0.25);
        b *= R(0.25);
        sc = R(2);
    } else if (m < lim<R>::tiny()) {
        a *= lim<R>::up();
        b *= lim<R>::up();
        sc = lim<R>::up_half();
    }
    R t = m_sqrt((m_fabs(a) + m_hypot(a, b)) * R(0.5));
    if (a >= R(0))
        return make_cplx(t * sc, (b / (R(2) * t)) * sc);
    return make_cplx((m_fabs(b) / (R(2) * t)) * sc, m_copysign(t, b) * sc);
}

// sinh(z) = sinh a cos b + i cosh a sin b. Past exp's overflow threshold
// cosh a = |sinh a| = e^|a|/2 is applied as (e^(|a|/2)/2) * e^(|a|/2).
// Special cases (array API sinh / C99 G.6.2.5), with sinh(conj z) =
// conj sinh z and sinh(-z) = -sinh z: +0 + 0i -> +0 + 0i; +0 + i inf/NaN ->
// 0 + NaN i (sign of 0 unspecified: we keep a's); positive finite + i inf/NaN
// -> NaN + NaN i; +inf + 0i -> inf + 0i; +inf + i y -> inf cis(y);
// +inf + i inf/NaN -> inf + NaN i (sign of real unspecified: we keep a's);
// NaN + 0i -> NaN + 0i; NaN + i y, NaN + i NaN -> NaN + NaN i.
template <typename R> HK_DEVICE cplx<R> c_sinh(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (finite(a) && finite(b)) {
        if (b == R(0))
            return make_cplx(m_sinh(a), b);
        if (m_fabs(a) > lim<R>::exp_big()) {
            R e = m_exp(R(0.5) * m_fabs(a)), h = R(0.5) * e;
            return make_cplx(neg_if(a < R(0), (m_cos(b) * h) * e), (m_sin(b) * h) * e);
        }
        return make_cplx(m_sinh(a) * m_cos(b), m_cosh(a) * m_sin(b));
    }
    if (is_nan(a))
        return make_cplx(a, b == R(0) ? b : nan<R>());
    if (is_inf(a)) {
        if (b == R(0))
            return make_cplx(a, b);
        if (!finite(b))
            return make_cplx(a, nan<R>());
        return make_cplx(a * m_cos(b), inf<R>() * m_sin(b));
    }
    // a finite, b inf or NaN
    if (a == R(0))
        return make_cplx(a, nan<R>());
    return make_cplx(nan<R>(), nan<R>());
}

// cosh(z) = cosh a cos b + i sinh a sin b (overflow handled as in sinh).
// Special cases (array API cosh / C99 G.6.2.4), with cosh(conj z) =
// conj cosh z and cosh(-z) = cosh z: +0 + 0i -> 1 + 0i; +0 + i inf/NaN ->
// NaN + 0i (sign of 0 unspecified); nonzero finite + i inf/NaN ->
// NaN + NaN i; +inf + 0i -> inf + 0i; +inf + i y -> inf cis(y);
// +inf + i inf/NaN -> inf + NaN i; NaN + 0i -> NaN + 0i (sign unspecified);
// NaN + nonzero -> NaN + NaN i.
template <typename R> HK_DEVICE cplx<R> c_cosh(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (finite(a) && finite(b)) {
        if (b == R(0))
            return make_cplx(m_cosh(a), a * b);
        if (m_fabs(a) > lim<R>::exp_big()) {
            R e = m_exp(R(0.5) * m_fabs(a)), h = R(0.5) * e;
            return make_cplx((m_cos(b) * h) * e, neg_if(a < R(0), (m_sin(b) * h) * e));
        }
        return make_cplx(m_cosh(a) * m_cos(b), m_sinh(a) * m_sin(b));
    }
    if (is_nan(a))
        return make_cplx(a, b == R(0) ? b : nan<R>());
    if (is_inf(a)) {
        if (b == R(0))
            return make_cplx(inf<R>(), m_copysign(R(0), a) * b);
        if (!finite(b))
            return make_cplx(inf<R>(), nan<R>());
        return make_cplx(inf<R>() * m_cos(b), a * m_sin(b));
    }
    // a finite, b inf or NaN
    if (a == R(0))
        return make_cplx(nan<R>(), R(0));
    return make_cplx(nan<R>(), nan<R>());
}

// tanh(z), Kahan's formula: t = tan b, beta = 1 + t^2, s = sinh a,
// rho = sqrt(1 + s^2): tanh z = (beta rho s + i t) / (1 + beta s^2); for
// |a| past where tanh a rounds to +-1: +-1 + i 4 sin b cos b e^(-2|a|).
// Special cases (array API tanh / C11 G.6.2.6): +0 + 0i -> +0 + 0i; nonzero
// finite + i inf/NaN -> NaN + NaN i; +0 + i inf/NaN -> +0 + NaN i (C11, not
// C99's NaN + NaN i); +inf + i y (finite y > 0) -> 1 + 0i; +inf + i inf/NaN
// -> 1 + 0i (sign of 0 unspecified); NaN + 0i -> NaN + 0i; NaN + nonzero ->
// NaN + NaN i. For +inf + i y the spec says +0 where C99 and NumPy give
// 0 * sin(2y) (-0 when sin(2y) < 0); we follow the spec: copysign(0, y).
template <typename R> HK_DEVICE cplx<R> c_tanh(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a))
        return make_cplx(a, b == R(0) ? b : nan<R>());
    if (is_inf(a))
        return make_cplx(m_copysign(R(1), a), m_copysign(R(0), b));
    if (!finite(b))
        return make_cplx(a == R(0) ? a : nan<R>(), nan<R>());
    if (m_fabs(a) > lim<R>::tanh_big()) {
        R e = m_exp(R(-2) * m_fabs(a));
        return make_cplx(m_copysign(R(1), a), (R(4) * m_sin(b)) * (m_cos(b) * e));
    }
    R t = m_tan(b), beta = R(1) + t * t, s = m_sinh(a), rho = m_sqrt(R(1) + s * s);
    R den = R(1) + beta * s * s;
    return make_cplx((beta * rho * s) / den, t / den);
}

// sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz): the array
// API defines their special cases by exactly these identities.
template <typename R> HK_DEVICE cplx<R> c_sin(cplx<R> z)
{
    cplx<R> w = c_sinh(make_cplx(-z.im, z.re));
    return make_cplx(w.im, -w.re);
}
template <typename R> HK_DEVICE cplx<R> c_cos(cplx<R> z)
{
    return c_cosh(make_cplx(-z.im, z.re));
}
template <typename R> HK_DEVICE cplx<R> c_tan(cplx<R> z)
{
    cplx<R> w = c_tanh(make_cplx(-z.im, z.re));
    return make_cplx(w.im, -w.re);
}

// asinh(z), cuts on the imaginary axis beyond +-i (Kahan 1987): with
// s1 = sqrt(1 + b - ia), s2 = sqrt(1 - b + ia),
// asinh z = asinh(Re s1 Im s2 - Im s1 Re s2) + i atan2(b, Re s1 Re s2 - Im s1 Im s2)
// (both sums are of like-signed terms: no cancellation). For |z| past
// 2^28 (double) / 2^13 (float): log(2|z|) + i arg z, signed like a (its
// error, 1/(4|z|^2), is below rounding). Special cases (array API asinh /
// C99 G.6.2.2), with asinh(conj z) = conj asinh z, asinh(-z) = -asinh z:
// +0 + 0i -> +0 + 0i; positive finite + i inf -> inf + i pi/2; finite + i NaN
// -> NaN + NaN i; +inf + i y -> inf + 0i; +inf + i inf -> inf + i pi/4;
// +inf + i NaN -> inf + NaN i (C99; the spec lists no rule); NaN + 0i ->
// NaN + 0i; NaN + nonzero finite -> NaN + NaN i; NaN + i inf -> inf + NaN i
// (sign of real unspecified); NaN + NaN i -> NaN + NaN i.
template <typename R> HK_DEVICE cplx<R> c_asinh(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a)) {
        if (b == R(0))
            return make_cplx(a, b);
        if (is_inf(b))
            return make_cplx(inf<R>(), nan<R>());
        return make_cplx(nan<R>(), nan<R>());
    }
    if (is_nan(b))
        return make_cplx(is_inf(a) ? a : nan<R>(), nan<R>());
    if (is_inf(a))
        return make_cplx(a, m_copysign(is_inf(b) ? pi_4<R>() : R(0), b));
    if (is_inf(b))
        return make_cplx(m_copysign(inf<R>(), a), m_copysign(pi_2<R>(), b));
    if (max2(m_fabs(a), m_fabs(b)) > lim<R>::asym())
        return make_cplx(m_copysign(log_abs(a, b) + ln2<R>(), a), m_atan2(b, m_fabs(a)));
    cplx<R> s1 = c_sqrt(make_cplx(R(1) + b, -a));
    cplx<R> s2 = c_sqrt(make_cplx(R(1) - b, a));
    return make_cplx(m_asinh(s1.re * s2.im - s1.im * s2.re), m_atan2(b, s1.re * s2.re - s1.im * s2.im));
}

// asin(z) = -i asinh(iz) (the array API's definition of its special cases);
// cuts on the real axis beyond +-1.
template <typename R> HK_DEVICE cplx<R> c_asin(cplx<R> z)
{
    cplx<R> w = c_asinh(make_cplx(-z.im, z.re));
    return make_cplx(w.im, -w.re);
}

// acos(z), cuts on the real axis beyond +-1, real part in [0, pi] (Kahan
// 1987): with s1 = sqrt(1 - z), s2 = sqrt(1 + z),
// acos z = 2 atan2(Re s1, Re s2) + i asinh(Re s2 Im s1 - Im s2 Re s1);
// for |z| past 2^28 / 2^13: atan2(|b|, a) - i copysign(log(2|z|), b).
// Special cases (array API acos / C99 G.6.1.1), with acos(conj z) =
// conj acos z: +-0 + 0i -> pi/2 - 0i; +-0 + i NaN -> pi/2 + NaN i;
// finite + i inf -> pi/2 - i inf; nonzero finite + i NaN -> NaN + NaN i;
// -inf + i y (y >= 0 finite) -> pi - i inf; +inf + i y -> +0 - i inf;
// -inf + i inf -> 3pi/4 - i inf; +inf + i inf -> pi/4 - i inf;
// +-inf + i NaN -> NaN + i inf (sign unspecified); NaN + finite ->
// NaN + NaN i; NaN + i inf -> NaN - i inf; NaN + NaN i -> NaN + NaN i.
template <typename R> HK_DEVICE cplx<R> c_acos(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a))
        return make_cplx(a, is_inf(b) ? -b : nan<R>());
    if (is_nan(b)) {
        if (a == R(0))
            return make_cplx(pi_2<R>(), b);
        return make_cplx(nan<R>(), is_inf(a) ? inf<R>() : nan<R>());
    }
    if (is_inf(a)) {
        R re = is_inf(b) ? (a < R(0) ? pi3_4<R>() : pi_4<R>()) : (a < R(0) ? pi<R>() : R(0));
        return make_cplx(re, m_copysign(inf<R>(), -b));
    }
    if (is_inf(b))
        return make_cplx(pi_2<R>(), -b);
    if (max2(m_fabs(a), m_fabs(b)) > lim<R>::asym())
        return make_cplx(m_atan2(m_fabs(b), a), m_copysign(log_abs(a, b) + ln2<R>(), -b));
    cplx<R> s1 = c_sqrt(make_cplx(R(1) - a, -b));
    cplx<R> s2 = c_sqrt(make_cplx(R(1) + a, b));
    return make_cplx(R(2) * m_atan2(s1.re, s2.re), m_asinh(s2.re * s1.im - s2.im * s1.re));
}

// acosh(z), cut on the real axis below 1, real part >= 0, imaginary part in
// [-pi, pi] (Kahan 1987): with s1 = sqrt(z - 1), s2 = sqrt(z + 1),
// acosh z = asinh(Re s1 Re s2 + Im s1 Im s2) + i 2 atan2(Im s1, Re s2);
// for |z| past 2^28 / 2^13: log(2|z|) + i arg z.
// Special cases (array API acosh / C99 G.6.2.1), with acosh(conj z) =
// conj acosh z: +-0 + 0i -> +0 + i pi/2; finite + i inf -> inf + i pi/2;
// nonzero finite + i NaN -> NaN + NaN i; +0 + i NaN -> NaN + i pi/2 (sign
// unspecified); -inf + i y -> inf + i pi; +inf + i y -> inf + 0i;
// -inf + i inf -> inf + 3pi/4 i; +inf + i inf -> inf + pi/4 i;
// +-inf + i NaN -> inf + NaN i; NaN + finite -> NaN + NaN i;
// NaN + i inf -> inf + NaN i; NaN + NaN i -> NaN + NaN i.
template <typename R> HK_DEVICE cplx<R> c_acosh(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a))
        return make_cplx(is_inf(b) ? inf<R>() : nan<R>(), nan<R>());
    if (is_nan(b)) {
        if (is_inf(a))
            return make_cplx(inf<R>(), b);
        return make_cplx(nan<R>(), a == R(0) ? pi_2<R>() : nan<R>());
    }
    if (is_inf(a)) {
        R im = is_inf(b) ? (a < R(0) ? pi3_4<R>() : pi_4<R>()) : (a < R(0) ? pi<R>() : R(0));
        return make_cplx(inf<R>(), m_copysign(im, b));
    }
    if (is_inf(b))
        return make_cplx(inf<R>(), m_copysign(pi_2<R>(), b));
    if (max2(m_fabs(a), m_fabs(b)) > lim<R>::asym())
        return make_cplx(log_abs(a, b) + ln2<R>(), m_atan2(b, a));
    cplx<R> s1 = c_sqrt(make_cplx(a - R(1), b));
    cplx<R> s2 = c_sqrt(make_cplx(a + R(1), b));
    return make_cplx(m_asinh(s1.re * s2.re + s1.im * s2.im), R(2) * m_atan2(s1.im, s2.re));
}

// atanh(z) = (log(1 + z) - log(1 - z))/2, cuts on the real axis outside
// (-1, 1). Computed for a >= 0 (atanh(-z) = -atanh z) as
// re = log1p(4a / ((1 - a)^2 + b^2)) / 4, im = atan2(2b, (1 - a)(1 + a) - b^2) / 2;
// for |z| past 2^510 / 2^62 (where the squares would overflow):
// a/|z|^2 + i copysign(pi/2, b) (the dropped terms are O(1/|z|) relative to
// pi/2, below rounding); at a == 1 with b^2 underflowing: (ln 2 - log|b|)/2 + i the
// generic angle. Special cases (array API atanh / C99 G.6.2.3): +0 + 0i ->
// +0 + 0i; +0 + i NaN -> +0 + NaN i; 1 + 0i -> inf + 0i; positive finite +
// i inf -> +0 + i pi/2; nonzero finite + i NaN -> NaN + NaN i; +inf + i y ->
// +0 + i pi/2; +inf + i inf -> +0 + i pi/2; +inf + i NaN -> +0 + NaN i;
// NaN + finite -> NaN + NaN i; NaN + i inf -> +-0 + i pi/2 (sign unspecified);
// NaN + NaN i -> NaN + NaN i.
template <typename R> HK_DEVICE cplx<R> c_atanh(cplx<R> z)
{
    using namespace cplx_detail;
    R a = z.re, b = z.im;
    if (is_nan(a)) {
        if (is_inf(b))
            return make_cplx(R(0), m_copysign(pi_2<R>(), b));
        return make_cplx(a, nan<R>());
    }
    if (is_nan(b)) {
        if (a == R(0) || is_inf(a))
            return make_cplx(m_copysign(R(0), a), b);
        return make_cplx(b, b);
    }
    if (is_inf(a) || is_inf(b))
        return make_cplx(m_copysign(R(0), a), m_copysign(pi_2<R>(), b));
    bool neg = a < R(0) || (a == R(0) && m_copysign(R(1), a) < R(0));
    if (neg) {
        a = -a;
        b = -b;
    }
    R ay = m_fabs(b), re, im;
    if (max2(a, ay) > lim<R>::sqrt_big()) {
        R h = m_hypot(a * R(0.5), b * R(0.5)); // |z|/2, no overflow
        re = ((a * R(0.25)) / h) / h;
        im = m_copysign(pi_2<R>(), b);
    } else if (a == R(1) && ay * ay < lim<R>::min_normal() * R(4)) {
        if (b == R(0))
            return make_cplx(neg_if(neg, inf<R>()), neg_if(neg, b));
        re = R(0.5) * (ln2<R>() - m_log(ay));
        im = R(0.5) * m_atan2(R(2) * b, -(ay * ay));
    } else {
        R d = R(1) - a;
        re = R(0.25) * m_log1p(R(4) * a / (d * d + ay * ay));
        im = R(0.5) * m_atan2(R(2) * b, d * (R(1) + a) - ay * ay);
    }
    return make_cplx(neg_if(neg, re), neg_if(neg, im));
}

// atan(z) = -i atanh(iz) (the array API's definition of its special cases);
// cuts on the imaginary axis beyond +-i.
template <typename R> HK_DEVICE cplx<R> c_atan(cplx<R> z)
{
    cplx<R> w = c_atanh(make_cplx(-z.im, z.re));
    return make_cplx(w.im, -w.re);
}

// pow(z, w) as NumPy's complex power: w == 0 -> 1 + 0i for any z (NaN
// included; array API: x2 == 0 gives 1); z == 0 -> 0 if Re w > 0 (any Im w), else
// NaN + NaN i; real integer w with |w| < 100 -> binary powering by repeated
// multiplication (1/z^|w| for w < 0); otherwise exp(w log z), the array API's
// formula for the special cases.
template <typename R> HK_DEVICE cplx<R> c_pow(cplx<R> z, cplx<R> w)
{
    using namespace cplx_detail;
    R br = w.re, bi = w.im;
    if (br == R(0) && bi == R(0))
        return make_cplx(R(1), R(0));
    if (z.re == R(0) && z.im == R(0)) {
        if (br > R(0))
            return make_cplx(R(0), R(0));
        return make_cplx(nan<R>(), nan<R>());
    }
    if (bi == R(0) && br == m_trunc(br) && m_fabs(br) < R(100)) {
        int n = (int)m_fabs(br);
        cplx<R> acc = make_cplx(R(1), R(0)), p = z;
        bool first = true;
        while (true) {
            if (n & 1) {
                acc = first ? p : acc * p;
                first = false;
            }
            n >>= 1;
            if (n == 0)
                break;
            p = p * p;
        }
        return br < R(0) ? make_cplx(R(1), R(0)) / acc : acc;
    }
    return c_exp(w * c_log(z));
}

} // namespace hk_ops

#endif // HIPKIT_COMPLEX_H
