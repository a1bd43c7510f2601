// sum.hip: SUM, PROD and MEAN of hk_reduce for the ten dtypes (the
// kernels are in skeleton.h).
#include "reduce/skeleton.h"

namespace
{

template <hk_dtype D> int sum_family(hk_reduce_op op, const hkr::Call &call, int64_t count)
{
    switch (op) {
    case HK_REDUCE_SUM: return call(hkr::SumOp<D>{});
    case HK_REDUCE_PROD: return call(hkr::ProdOp<D>{});
    case HK_REDUCE_MEAN: {
        hkr::MeanOp<D> mean;
        mean.count = count;
        return call(mean);
    }
    default: return (int)hipErrorInvalidValue;
    }
}

} // namespace

extern "C" int hkk__reduce_sum_family(const hkk_launch *l, hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                      void *out, void *scratch, const hkk_reduce_layout *layout, int ddof,
                                      size_t *query)
{
    const hkr::Call call = {l, in, out, scratch, layout, ddof, query, nullptr};
    return hk_dispatch::dispatch<HK_DTYPES_ALL>(
        in_dtype, [&](auto tag) { return sum_family<decltype(tag)::value>(op, call, layout->count); });
}
