// dispatch.hip: hkk_reduce and its scratch query, sent to the file that
// instantiates the op (sum, minmax, arg, stat.hip).
#include "gpu/gpu.h"
#include "reduce/reduce.h"

namespace
{

int family(const hkk_launch *l, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
           const hkk_reduce_layout *layout, int ddof, size_t *query)
{
    switch (op) {
    case HK_REDUCE_SUM:
    case HK_REDUCE_PROD:
    case HK_REDUCE_MEAN: return hkk__reduce_sum_family(l, op, in_dtype, in, out, scratch, layout, ddof, query);
    case HK_REDUCE_MIN:
    case HK_REDUCE_MAX: return hkk__reduce_minmax_family(l, op, in_dtype, in, out, scratch, layout, ddof, query);
    case HK_REDUCE_ARGMIN:
    case HK_REDUCE_ARGMAX: return hkk__reduce_arg_family(l, op, in_dtype, in, out, scratch, layout, ddof, query);
    case HK_REDUCE_ANY:
    case HK_REDUCE_ALL:
    case HK_REDUCE_VAR:
    case HK_REDUCE_STD: return hkk__reduce_stat_family(l, op, in_dtype, in, out, scratch, layout, ddof, query);
    default: return (int)hipErrorInvalidValue;
    }
}

} // namespace

extern "C" size_t hkk_reduce_scratch_bytes(const hkk_launch *l, hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                           const hkk_reduce_layout *layout)
{
    size_t bytes = 0;
    if (family(l, op, in_dtype, in, nullptr, nullptr, layout, 0, &bytes) != (int)hipSuccess)
        return 0;
    return bytes;
}

extern "C" int hkk_reduce(const hkk_launch *l, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                          void *scratch, const hkk_reduce_layout *layout, int ddof)
{
    return family(l, op, in_dtype, in, out, scratch, layout, ddof, nullptr);
}
