// arg.hip: ARGMIN and ARGMAX of hk_reduce ((value, index) states: the
// first NaN, else the first extreme) for the ten dtypes (the kernels are in
// skeleton.h).
#include "reduce/skeleton.h"

extern "C" int hkk__reduce_arg_family(const hkk_launch *l, hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                      void *out, void *scratch, const hkk_reduce_layout *layout, int ddof,
                                      size_t *query)
{
    const hkr::Call call = {l, in, out, scratch, layout, ddof, query, nullptr};
    return hk_dispatch::dispatch<HK_DTYPES_REAL>(in_dtype, [&](auto tag) {
        return hkr::with_op<hkr::kArgFamily, decltype(tag)::value>(op, layout->count, ddof, call);
    });
}
