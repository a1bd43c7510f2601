// ops.h: what each hk_reduce op means, once for every kind of device: the op
// functors (SUM PROD MEAN, MIN MAX, ARGMIN ARGMAX, ANY ALL, VAR STD) that the
// GPU kernels (reduce/skeleton.h) and the CPU device's skeleton
// (cpu/reduce_skeleton.h) both run. Device code for nvcc/hipcc, host code
// under HKC_HOST (cpu/host.h), and the host emulation of the GPU kernels
// (HKR_EMULATION, tests/c/test_reduce_emulated.cpp).
//
// An op functor describes one reduction once for every skeleton:
//   typedef In (storage type read), Acc (accumulator state), Out (stored);
//   Acc identity() const;                   the empty state
//   Acc push(Acc a, In x, int64_t i) const;  add element x whose reduced index is i
//   Acc merge(Acc a, Acc b) const;           combine two states (any order)
//   Out finish(Acc a) const;                 the result of a whole reduction
// Indices matter only to ARGMIN/ARGMAX, whose states carry them (so ties and
// NaNs resolve by index, whatever order the threads merge in).
#ifndef HIPKIT_REDUCE_OPS_H
#define HIPKIT_REDUCE_OPS_H

#include <stdint.h>

#include <type_traits>

#include "common/dtype_traits.h"
#include "common/ops.h"

namespace hkr
{
namespace // every .hip file gets its own copy: no symbol is shared between them
{

// ------------------------------------------------------------------- ops
// In, Acc and Out come from hk_dt (common/dtype_traits.h): In is the dtype's
// stored type, elements are loaded into its compute type (bool as bool,
// float16 as float32); SUM/PROD accumulate in NumPy's accumulation dtype
// (hk_dt::accumulate), MEAN/VAR/STD in its mean dtype (hk_dt::mean_of). SUM,
// PROD and MEAN combine with hk_ops::op_add / op_multiply (common/ops.h).

// The value MIN/MAX/ARGMIN/ARGMAX states hold: the compute type, but bool as a
// byte (0 or 1): held as bool, these kernels get other code and registers
// from both compilers (gfx90a: 96 -> 99 VGPRs for MAX of rows).
template <hk_dtype D>
using state_value = typename std::conditional<D == HK_BOOL, uint8_t, typename hk_dt::traits<D>::compute>::type;

HK_DEVICE float quiet_nan(float)
{
    return __int_as_float(0x7fc00000);
}
HK_DEVICE double quiet_nan(double)
{
    return __longlong_as_double(0x7ff8000000000000LL);
}

// SUM and PROD: hk_ops::op_add / op_multiply in the accumulation dtype
// (integers wrap around in uint64).
template <hk_dtype D, class Combine, int Identity> struct AccumulateOp {
    typedef hk_dt::accumulate<D> A;
    typedef typename hk_dt::traits<D>::stored In;
    typedef typename A::acc Acc;
    typedef typename A::out Out;
    HK_DEVICE Acc identity() const { return hk_ops::number<Acc>::of(Identity); }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const { return Combine()(a, A::from(hk_dt::traits<D>::load(x))); }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return Combine()(a, b); }
    HK_DEVICE Out finish(Acc a) const { return A::finish(a); }
};
template <hk_dtype D> using SumOp = AccumulateOp<D, hk_ops::op_add, 0>;
template <hk_dtype D> using ProdOp = AccumulateOp<D, hk_ops::op_multiply, 1>;

// MIN and MAX reduce with the elementwise minimum / maximum. When NaNs of
// different bits meet, the first one merged is kept (NumPy keeps the first
// in its order); every other result is what the previous rule ("b wins when
// NaN or strictly better") gave, at the same instruction count.
template <hk_dtype D, bool IsMax> struct ExtremeOp {
    typedef hk_dt::traits<D> T;
    typedef typename T::stored In;
    typedef state_value<D> Acc;
    typedef typename T::stored Out;
    HK_DEVICE Acc identity() const { return IsMax ? (Acc)T::lowest() : (Acc)T::highest(); }
    // NumPy's minimum / maximum (common/ops.h), the state first: a NaN wins, the first NaN met stays, and of
    // equal values (0.0 and -0.0) the one already held.
    HK_DEVICE Acc merge(Acc a, Acc b) const
    {
        if constexpr (IsMax)
            return hk_ops::op_maximum()(a, b);
        else
            return hk_ops::op_minimum()(a, b);
    }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const { return merge(a, (Acc)T::load(x)); }
    HK_DEVICE Out finish(Acc a) const { return T::store(a); }
};

// (value, index) pairs; index -1 is the empty state. Preference: a NaN
// over any number, then the smaller (larger) value, then the smaller index.
template <typename C> struct ArgState {
    C v;
    int64_t i;
};
template <hk_dtype D, bool IsMax> struct ArgOp {
    typedef typename hk_dt::traits<D>::stored In;
    typedef state_value<D> C;
    typedef ArgState<C> Acc;
    typedef int64_t Out;
    // The same preference seen from the values: the element an index is reported for over a set is
    // the set's extreme as MIN/MAX find it, at the first index whose element is_extreme (a NaN when
    // the extreme is NaN; else equal, 0.0 and -0.0 alike). The CPU skeleton finds indices so.
    typedef ExtremeOp<D, IsMax> Extreme;
    static HK_DEVICE bool is_extreme(C x, C extreme)
    {
        return hk_ops::is_nan(extreme) ? hk_ops::is_nan(x) : x == extreme;
    }
    static HK_DEVICE bool better(C xv, int64_t xi, C yv, int64_t yi)
    {
        if (xi < 0)
            return false;
        if (yi < 0)
            return true;
        const bool xn = hk_ops::is_nan(xv), yn = hk_ops::is_nan(yv);
        if (xn || yn)
            return xn && (!yn || xi < yi);
        if (IsMax ? xv > yv : xv < yv)
            return true;
        return xv == yv && xi < yi;
    }
    HK_DEVICE Acc identity() const
    {
        Acc a;
        a.v = C(0);
        a.i = -1;
        return a;
    }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return better(b.v, b.i, a.v, a.i) ? b : a; }
    HK_DEVICE Acc push(Acc a, In x, int64_t i) const
    {
        const C c = (C)hk_dt::traits<D>::load(x);
        if (better(c, i, a.v, a.i)) {
            a.v = c;
            a.i = i;
        }
        return a;
    }
    HK_DEVICE Out finish(Acc a) const { return a.i; }
};

// ANY, and ALL as not-any-zero: the state says "some element differs from
// what the op looks for". NaN is nonzero, -0.0 is zero.
template <hk_dtype D> struct AnyAllOp {
    typedef typename hk_dt::traits<D>::stored In;
    typedef uint32_t Acc;
    typedef uint8_t Out;
    uint32_t all; // 0: ANY, 1: ALL
    HK_DEVICE Acc identity() const { return 0; }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const
    {
        return a | ((uint32_t)hk_ops::truth(hk_dt::traits<D>::load(x)) ^ all);
    }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return a | b; }
    HK_DEVICE Out finish(Acc a) const { return (Out)(a ^ all); }
};

template <hk_dtype D> struct MeanOp {
    typedef typename hk_dt::traits<D>::stored In;
    typedef typename hk_dt::mean_of<D>::acc Acc;
    typedef typename hk_dt::mean_of<D>::out Out;
    int64_t count;
    HK_DEVICE Acc identity() const { return hk_ops::number<Acc>::of(0); }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const { return hk_ops::op_add()(a, (Acc)hk_dt::traits<D>::load(x)); }
    HK_DEVICE Acc merge(Acc a, Acc b) const { return hk_ops::op_add()(a, b); }
    HK_DEVICE Out finish(Acc a) const // 0/0: NaN
    {
        return hk_dt::mean_of<D>::finish(a / hk_ops::number<Acc>::of(count));
    }
};

// Welford's update per element and Chan et al.'s merge of (n, mean, M2)
// states, in the mean dtype's accumulation precision.
template <typename M> struct MomentState {
    M mean;
    M m2;
    int64_t n;
};
template <hk_dtype D> struct VarOp {
    typedef typename hk_dt::traits<D>::stored In;
    typedef typename hk_dt::mean_of<D>::acc M;
    typedef MomentState<M> Acc;
    typedef typename hk_dt::mean_of<D>::out Out;
    int ddof;
    uint32_t take_sqrt; // STD
    HK_DEVICE Acc identity() const
    {
        Acc a;
        a.mean = M(0);
        a.m2 = M(0);
        a.n = 0;
        return a;
    }
    HK_DEVICE Acc push(Acc a, In x, int64_t) const
    {
        const M v = (M)hk_dt::traits<D>::load(x);
        a.n += 1;
        const M d = v - a.mean;
        a.mean += d / (M)a.n;
        a.m2 += d * (v - a.mean);
        return a;
    }
    HK_DEVICE Acc merge(Acc a, Acc b) const
    {
        if (a.n == 0)
            return b;
        if (b.n == 0)
            return a;
        Acc r;
        r.n = a.n + b.n;
        const M d = b.mean - a.mean;
        const M fb = (M)b.n / (M)r.n;
        r.mean = a.mean + d * fb;
        r.m2 = a.m2 + b.m2 + d * d * (M)a.n * fb;
        return r;
    }
    HK_DEVICE Out finish(Acc a) const
    {
        M var;
        // NumPy's var is NaN as soon as an element is NaN or infinite (x - mean
        // gives inf - inf); a non-finite mean marks exactly that case.
        if (a.n == 0 || !(a.mean - a.mean == M(0))) {
            var = quiet_nan(M(0));
        } else {
            const int64_t dof = a.n - (int64_t)ddof;
            var = a.m2 / (dof > 0 ? (M)dof : M(0)); // x/0: inf, 0/0: nan, as NumPy
        }
        if (take_sqrt)
            var = hk_ops::m_sqrt(var);
        return hk_dt::mean_of<D>::finish(var);
    }
};

// ---------------------------------------------------- an op's functor, by family
// The family files instantiate a few ops each (GPU: sum, minmax, arg and
// stat.hip; CPU: cpu/reduce_<family>.cpp): with_op<Ops, D>(op, ...) calls
// f(the functor of op over dtype D, its parameters set) when op is one of Ops
// and returns what f returns, else 1 (hipErrorInvalidValue on both vendors,
// the CPU skeletons' internal error: the host validated op).
constexpr unsigned op_bit(hk_reduce_op op)
{
    return 1u << (unsigned)op;
}
constexpr unsigned kSumFamily = op_bit(HK_REDUCE_SUM) | op_bit(HK_REDUCE_PROD) | op_bit(HK_REDUCE_MEAN);
constexpr unsigned kMinMaxFamily = op_bit(HK_REDUCE_MIN) | op_bit(HK_REDUCE_MAX);
constexpr unsigned kArgFamily = op_bit(HK_REDUCE_ARGMIN) | op_bit(HK_REDUCE_ARGMAX);
constexpr unsigned kStatFamily =
    op_bit(HK_REDUCE_ANY) | op_bit(HK_REDUCE_ALL) | op_bit(HK_REDUCE_VAR) | op_bit(HK_REDUCE_STD);

// count: the reduced extent (MEAN divides by it); ddof: VAR and STD's.
template <unsigned Ops, hk_dtype D, typename F> int with_op(hk_reduce_op op, int64_t count, int ddof, const F &f)
{
#define HKR_OP_CASE(OP, ...)                                                                                           \
    case OP:                                                                                                           \
        if constexpr ((Ops & op_bit(OP)) != 0) {                                                                       \
            __VA_ARGS__                                                                                                \
        }                                                                                                              \
        break;
    switch (op) {
        HKR_OP_CASE(HK_REDUCE_SUM, return f(SumOp<D>{});)
        HKR_OP_CASE(HK_REDUCE_PROD, return f(ProdOp<D>{});)
        HKR_OP_CASE(HK_REDUCE_MEAN, MeanOp<D> mean; mean.count = count; return f(mean);)
        HKR_OP_CASE(HK_REDUCE_MIN, return f(ExtremeOp<D, false>{});)
        HKR_OP_CASE(HK_REDUCE_MAX, return f(ExtremeOp<D, true>{});)
        HKR_OP_CASE(HK_REDUCE_ARGMIN, return f(ArgOp<D, false>{});)
        HKR_OP_CASE(HK_REDUCE_ARGMAX, return f(ArgOp<D, true>{});)
        // ANY/ALL share one instantiation (ALL is "no element is zero"), as do VAR/STD (STD takes the
        // square root at the end).
        HKR_OP_CASE(HK_REDUCE_ANY, AnyAllOp<D> any; any.all = 0; return f(any);)
        HKR_OP_CASE(HK_REDUCE_ALL, AnyAllOp<D> all; all.all = 1; return f(all);)
        HKR_OP_CASE(HK_REDUCE_VAR, VarOp<D> var; var.ddof = ddof; var.take_sqrt = 0; return f(var);)
        HKR_OP_CASE(HK_REDUCE_STD, VarOp<D> std_dev; std_dev.ddof = ddof; std_dev.take_sqrt = 1; return f(std_dev);)
    default: break;
    }
#undef HKR_OP_CASE
    (void)count;
    (void)ddof;
    return 1;
}

} // namespace
} // namespace hkr

#endif
