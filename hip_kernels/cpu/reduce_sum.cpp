// reduce_sum.cpp: SUM, PROD and MEAN of the CPU device's hk_reduce for the ten dtypes (cpu/reduce_skeleton.h).
#include "cpu/reduce_skeleton.h"

extern "C" int hkc__reduce_sum_family(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
                                      const hkk_reduce_layout *layout, int ddof, size_t *query)
{
    return hkcr::family<hkr::kSumFamily, HK_DTYPES_ALL>(op, in_dtype, in, out, scratch, layout, ddof, query);
}
