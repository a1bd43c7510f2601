// stat.hip: ANY, ALL, VAR and STD of hk_reduce for the ten dtypes (the
// kernels are in skeleton.h). ANY/ALL share one instantiation (ALL is
// "no element is zero"), as do VAR/STD (STD takes the square root at the end).
#include "reduce/skeleton.h"

namespace
{

template <hk_dtype D> int stat_family(hk_reduce_op op, const hkr::Call &call)
{
    switch (op) {
    case HK_REDUCE_ANY:
    case HK_REDUCE_ALL: {
        hkr::AnyAllOp<D> any_all;
        any_all.all = op == HK_REDUCE_ALL;
        return call(any_all);
    }
    case HK_REDUCE_VAR:
    case HK_REDUCE_STD: {
        hkr::VarOp<D> var;
        var.ddof = call.ddof;
        var.take_sqrt = op == HK_REDUCE_STD;
        return call(var);
    }
    default: return (int)hipErrorInvalidValue;
    }
}

} // namespace

extern "C" int hkk__reduce_stat_family(const hkk_launch *l, hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                       void *out, void *scratch, const hkk_reduce_layout *layout, int ddof,
                                       size_t *query)
{
    const hkr::Call call = {l, in, out, scratch, layout, ddof, query, nullptr};
    return hk_dispatch::dispatch<HK_DTYPES_ALL>(in_dtype,
                                                [&](auto tag) { return stat_family<decltype(tag)::value>(op, call); });
}
