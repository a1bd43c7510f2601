// keys.h: what sorting's order means, once for the GPU kernels (sort.hip) and
// the CPU device's skeleton (cpu/sort.cpp): order_key(), a monotone map of a
// key's raw bits to unsigned integers. Integers flip the sign bit; floats flip
// the sign bit of positives and every bit of negatives, with -0.0 mapped onto
// +0.0's key (equal, so a stable sort keeps their order) and every NaN onto
// the largest key (last, in their original order): NumPy's order.
#ifndef HIPKIT_SORT_KEYS_H
#define HIPKIT_SORT_KEYS_H

#include <stdint.h>

#include "common/dispatch.h"
#include "common/dtype_traits.h"

namespace hk_sort_keys
{

enum { KIND_UNSIGNED = 0, KIND_SIGNED = 1, KIND_FLOAT = 2 };

template <typename U> struct float_bits;
template <> struct float_bits<uint8_t> { // there is no 8-bit float; never used
    static constexpr uint8_t inf = 0xFF;
};
template <> struct float_bits<uint16_t> {
    static constexpr uint16_t inf = 0x7C00;
};
template <> struct float_bits<uint32_t> {
    static constexpr uint32_t inf = 0x7F800000u;
};
template <> struct float_bits<uint64_t> {
    static constexpr uint64_t inf = 0x7FF0000000000000ull;
};

// The ordering with the kind resolved into two XOR masks and a flag: selects,
// not branches (a branch on the key would make the warp wait for its load
// before the next load issues; the pass kernel loads 16 at once). Made once
// per kernel where keys are many.
template <typename U> struct key_order {
    static constexpr U sign = (U)((U)1 << (8 * sizeof(U) - 1));
    U positive, negative; // XOR masks for a clear and a set sign bit
    bool is_float;
    HK_DEVICE explicit key_order(int kind)
        : positive(kind == KIND_UNSIGNED ? (U)0 : sign), negative(kind == KIND_FLOAT    ? (U) ~(U)0
                                                                  : kind == KIND_SIGNED ? sign
                                                                                        : (U)0),
          is_float(kind == KIND_FLOAT)
    {
    }
    HK_DEVICE U operator()(U raw) const
    {
        U key = (U)(raw ^ ((raw & sign) ? negative : positive));
        const U magnitude = (U)(raw & (U)~sign);
        key = is_float && magnitude == 0 ? sign : key;                      // -0.0 and +0.0: one key
        key = is_float && magnitude > float_bits<U>::inf ? (U) ~(U)0 : key; // NaN: after +inf
        return key;
    }
};

template <typename U> HK_DEVICE U order_key(U raw, int kind)
{
    return key_order<U>(kind)(raw);
}

// The raw bits of a key, where order_key is one-to-one: everywhere for
// integers, for floats everywhere but -0.0 and NaN (raw_of_key(order_key(x))
// != x exactly for those).
template <typename U> HK_DEVICE U raw_of_key(U key, int kind)
{
    constexpr U sign = (U)((U)1 << (8 * sizeof(U) - 1));
    return kind == KIND_UNSIGNED ? key
           : kind == KIND_SIGNED ? (U)(key ^ sign)
                                 : (U)(key ^ ((key & sign) ? sign : (U) ~(U)0));
}

// Raw bits whose key is the largest (padding that sorts after everything).
template <typename U> HK_DEVICE U max_key_raw(int kind)
{
    constexpr U sign = (U)((U)1 << (8 * sizeof(U) - 1));
    return kind == KIND_SIGNED ? (U)~sign : (U) ~(U)0; // all ones is a NaN for floats
}

// The ordering of a dtype's keys (order_key), from its traits: at compile
// time, and from a run-time dtype (host code).
template <hk_dtype D> constexpr int kind_of()
{
    typedef hk_dt::traits<D> T;
    return T::is_float ? (int)KIND_FLOAT : T::is_signed ? (int)KIND_SIGNED : (int)KIND_UNSIGNED;
}
inline int key_kind(hk_dtype dtype)
{
    return hk_dispatch::dispatch<HK_DTYPES_REAL>(dtype, [](auto tag) { return kind_of<decltype(tag)::value>(); });
}

} // namespace hk_sort_keys

#endif
