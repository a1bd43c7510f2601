// stat.hip: ANY, ALL, VAR and STD of hk_reduce for the ten dtypes (the
// kernels are in skeleton.h; the functors, ANY/ALL and VAR/STD sharing one
// each, in ops.h).
#include "reduce/skeleton.h"

extern "C" int hkk__reduce_stat_family(const hkk_launch *l, hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                       void *out, void *scratch, const hkk_reduce_layout *layout, int ddof,
                                       size_t *query)
{
    const hkr::Call call = {l, in, out, scratch, layout, ddof, query, nullptr};
    return hk_dispatch::dispatch<HK_DTYPES_REAL>(in_dtype, [&](auto tag) {
        return hkr::with_op<hkr::kStatFamily, decltype(tag)::value>(op, layout->count, ddof, call);
    });
}
