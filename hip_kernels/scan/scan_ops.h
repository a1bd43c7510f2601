// scan_ops.h: what a scan's elements and steps mean, once for the GPU kernels
// (scan.hip) and the CPU device's skeleton (cpu/scan.cpp): the types an
// element is stored, accumulated and written in (NumPy's cumsum/cumprod
// dtype, hk_dt::accumulate), and the ops (hk_ops::op_add, op_multiply) with
// their identities.
#ifndef HIPKIT_SCAN_OPS_H
#define HIPKIT_SCAN_OPS_H

#include "common/dtype_traits.h"
#include "common/ops.h"

namespace hk_scan_ops
{

// ---- element types: what is stored, what accumulates, what is written, for
// In = hk_dt::traits<D>

template <typename In> struct scan_types {
    typedef hk_dt::accumulate<In::dtype> accumulate;
    typedef typename In::stored storage;
    typedef typename accumulate::acc acc;
    typedef typename accumulate::out out;
    static HK_DEVICE acc load(storage v) { return accumulate::from(In::load(v)); }
    static HK_DEVICE out store(acc a) { return accumulate::finish(a); }
};

// ---- the ops: hk_ops::op_add and op_multiply with their identities. The
// identity of a float sum is -0.0, not op_add's +0.0, so that a row starting
// with -0.0 keeps it (-0.0 + x == x for every x, +0.0 + -0.0 would not).

template <typename A, int OP> struct scan_op;
template <typename A> struct scan_op<A, HK_SCAN_CUMSUM> : hk_ops::op_add {
    static HK_DEVICE A identity()
    {
        if constexpr (A(0.5) != A(0))
            return -A(0);
        else
            return A(0);
    }
};
template <typename A> struct scan_op<A, HK_SCAN_CUMPROD> : hk_ops::op_multiply {
    static HK_DEVICE A identity() { return A(1); }
};

} // namespace hk_scan_ops

#endif
