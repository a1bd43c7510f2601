// signature.h: what one elementwise op is for one dtype, shared by every skeleton that runs the op
// table (the GPU's elementwise/engine.h, the CPU device's cpu/elementwise.h): the switch over
// HK_OP_TABLE that picks an op's functor, arity and dtypes; the traits each input is loaded with
// (where's bool condition, raw bits for ops that only move values); the result's dtype (a bool result
// is stored as bool, anything else in the inputs' type); and a host scalar's bytes.
#ifndef HIPKIT_ELEMENTWISE_SIGNATURE_H
#define HIPKIT_ELEMENTWISE_SIGNATURE_H

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "common/dispatch.h"
#include "common/dtype_traits.h"
#include "common/ops.h"
#include "elementwise/elementwise.h"

namespace hk_ew
{

typedef hk_dt::traits<HK_BOOL> t_bool;

// ---- the op applied to A inputs; its result type picks out's traits
template <int A> struct apply;
template <> struct apply<1> {
    template <class Op, typename X, typename Y> static HK_DEVICE auto run(const Op &op, X a, Y, Y) { return op(a); }
};
template <> struct apply<2> {
    template <class Op, typename X, typename Y> static HK_DEVICE auto run(const Op &op, X a, Y b, Y)
    {
        return op(a, b);
    }
};
template <> struct apply<3> {
    template <class Op, typename X, typename Y> static HK_DEVICE auto run(const Op &op, X a, Y b, Y c)
    {
        return op(a, b, c);
    }
};

// The traits a result of C++ type R is stored with, from inputs of traits In: bool as bool; a complex
// input's real part (abs, real, imag) as that real dtype; anything else in the inputs' type.
template <class In, typename R> struct result_traits {
    typedef typename std::conditional<std::is_same<R, bool>::value && !std::is_same<typename In::compute, bool>::value,
                                      t_bool, In>::type type;
};
template <hk_dtype D, typename R>
struct complex_result { // R: the part type (or, in a compiler's host pass
                        // over device code, void)
    typedef
        typename std::conditional<std::is_same<R, typename hk_dt::traits<D>::real>::value,
                                  hk_dt::traits<D == HK_COMPLEX64 ? HK_FLOAT32 : HK_FLOAT64>, hk_dt::traits<D>>::type
            type;
};
template <typename R> struct result_traits<hk_dt::traits<HK_COMPLEX64>, R> {
    typedef typename std::conditional<std::is_same<R, bool>::value, t_bool,
                                      typename complex_result<HK_COMPLEX64, R>::type>::type type;
};
template <typename R> struct result_traits<hk_dt::traits<HK_COMPLEX128>, R> {
    typedef typename std::conditional<std::is_same<R, bool>::value, t_bool,
                                      typename complex_result<HK_COMPLEX128, R>::type>::type type;
};

// In0: traits of input 0; In: traits of inputs 1 and 2 (equal to In0 except for where).
template <class Op, class In0, class In, int A> struct signature {
    typedef Op op;
    typedef In0 in0;
    typedef In in;
    static constexpr int arity = A;
    typedef typename In0::compute C0;
    typedef typename In::compute C;
    typedef decltype(apply<A>::run(Op(), C0(), C(), C())) result;
    typedef typename result_traits<In, result>::type out;
    typedef typename out::stored SO;
    typedef typename In0::stored S0;
    typedef typename In::stored S;
};

// Host scalar: the value's bytes (memcpy'd into the call, the rest zero).
template <class T> HK_DEVICE typename T::stored stored_from_bits(const hkk_scalar &bits)
{
    static_assert(sizeof(typename T::stored) <= sizeof bits.bits, "a host scalar holds at most 16 bytes");
    typename T::stored s;
    memcpy(&s, bits.bits, sizeof s);
    return s;
}
template <class T> HK_DEVICE typename T::compute from_bits(const hkk_scalar &bits)
{
    return T::load(stored_from_bits<T>(bits));
}

// ---- a row of the op table as types
template <class Op, int Arity, unsigned Dtypes> struct row {
    typedef Op op;
    static constexpr int arity = Arity;
    static constexpr unsigned dtypes = Dtypes;
};
// HKK_EW_FILL, the map skeleton's op that is not in the table: out = in[0], every dtype.
typedef row<hk_ops::op_fill, 1, HK_DTYPES_ALL> fill_row;

// f(row<op_<name>, arity, dtypes>()) for the table's op `op` when its enum value is Part modulo Parts
// (the other parts' ops are discarded statements, never instantiated in this file); else 1
// (hipErrorInvalidValue on both vendors: the host validated the op, so that is an internal error).
template <int Part, int Parts, class F> int switch_op(int op, F &&f)
{
    switch (op) {
#define HK_EW_CASE(NAME, name, api, arity, dtypes, rule, identity, summary)                                            \
    case HK_OP_##NAME:                                                                                                 \
        if constexpr (HK_OP_##NAME % Parts == Part)                                                                    \
            return f(row<hk_ops::op_##name, arity, dtypes>());                                                         \
        break;
        HK_OP_TABLE(HK_EW_CASE)
#undef HK_EW_CASE
    default: break;
    }
    return 1;
}

// f(signature<Op, In0, In, arity>()) for `dtype`, one of the row's dtypes (else 1): where-like ops read
// a bool condition first and move their values as raw bits.
template <class Row, class F> int dispatch_dtype(hk_dtype dtype, F &&f)
{
    typedef typename Row::op Op;
    return hk_dispatch::dispatch<Row::dtypes>(dtype, [&](auto tag) {
        constexpr hk_dtype D = decltype(tag)::value;
        typedef
            typename std::conditional<hk_ops::moves_bits<Op>::value, hk_dt::raw_traits<D>, hk_dt::traits<D>>::type In;
        typedef typename std::conditional<hk_ops::bool_condition<Op>::value, t_bool, In>::type In0;
        return f(signature<Op, In0, In, Row::arity>());
    });
}

} // namespace hk_ew

#endif
