// minmax.hip: MIN and MAX of hk_reduce (NaN-propagating) for the ten
// dtypes (the kernels are in skeleton.h).
#include "reduce/skeleton.h"

extern "C" int hkk__reduce_minmax_family(const hkk_launch *l, hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                         void *out, void *scratch, const hkk_reduce_layout *layout, int ddof,
                                         size_t *query)
{
    const hkr::Call call = {l, in, out, scratch, layout, ddof, query, nullptr};
    return hk_dispatch::dispatch<HK_DTYPES_REAL>(in_dtype, [&](auto tag) {
        return hkr::with_op<hkr::kMinMaxFamily, decltype(tag)::value>(op, layout->count, ddof, call);
    });
}
