// dispatch.h: from a run-time hk_dtype to a compile-time one, once for every
// family. dispatch<Mask>(dtype, f) calls f(tag<D>()) for the dtype D, where
// bit D of Mask is set (the dtypes the caller instantiates), and returns what
// f returns; a dtype outside Mask gives hipErrorInvalidValue (the host has
// validated it before, so that is an internal error). f is a generic lambda:
//   return hk_dispatch::dispatch<HK_DTYPES_ALL>(dtype, [&](auto tag) {
//       constexpr hk_dtype D = decltype(tag)::value; ...; });
#ifndef HIPKIT_DISPATCH_H
#define HIPKIT_DISPATCH_H

#include "hipkit/hipkit.h"

namespace hk_dispatch
{

template <hk_dtype D> struct tag {
    static constexpr hk_dtype value = D;
};

constexpr unsigned bit(hk_dtype d)
{
    return 1u << (unsigned)d;
}

template <unsigned Mask, typename F> int dispatch(hk_dtype dtype, F &&f)
{
#define HK_DISPATCH_CASE(D)                                                                                            \
    case D:                                                                                                            \
        if constexpr ((Mask & bit(D)) != 0)                                                                            \
            return f(tag<D>());                                                                                        \
        break;
    switch (dtype) {
        HK_DISPATCH_CASE(HK_BOOL)
        HK_DISPATCH_CASE(HK_INT8)
        HK_DISPATCH_CASE(HK_UINT8)
        HK_DISPATCH_CASE(HK_INT32)
        HK_DISPATCH_CASE(HK_UINT32)
        HK_DISPATCH_CASE(HK_INT64)
        HK_DISPATCH_CASE(HK_UINT64)
        HK_DISPATCH_CASE(HK_FLOAT16)
        HK_DISPATCH_CASE(HK_FLOAT32)
        HK_DISPATCH_CASE(HK_FLOAT64)
        HK_DISPATCH_CASE(HK_INT16)
        HK_DISPATCH_CASE(HK_UINT16)
        HK_DISPATCH_CASE(HK_COMPLEX64)
        HK_DISPATCH_CASE(HK_COMPLEX128)
    }
#undef HK_DISPATCH_CASE
    return 1; // hipErrorInvalidValue on both vendors
}

} // namespace hk_dispatch

#endif
