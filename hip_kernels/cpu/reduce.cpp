// reduce.cpp: the CPU device's hk_reduce and its scratch query, sent to the family file that
// instantiates the op (cpu/reduce_sum, _minmax, _arg, _stat.cpp; the skeleton is
// cpu/reduce_skeleton.h).
#include "cpu/reduce_skeleton.h"

namespace
{

int family(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
           const hkk_reduce_layout *layout, int ddof, size_t *query)
{
    const unsigned bit = (unsigned)op < 32u ? hkr::op_bit(op) : 0u;
    if (bit & hkr::kSumFamily)
        return hkc__reduce_sum_family(op, in_dtype, in, out, scratch, layout, ddof, query);
    if (bit & hkr::kMinMaxFamily)
        return hkc__reduce_minmax_family(op, in_dtype, in, out, scratch, layout, ddof, query);
    if (bit & hkr::kArgFamily)
        return hkc__reduce_arg_family(op, in_dtype, in, out, scratch, layout, ddof, query);
    if (bit & hkr::kStatFamily)
        return hkc__reduce_stat_family(op, in_dtype, in, out, scratch, layout, ddof, query);
    return 1;
}

} // namespace

extern "C" size_t hkc_reduce_scratch_bytes(hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                           const hkk_reduce_layout *layout)
{
    size_t bytes = 0;
    if (family(op, in_dtype, in, nullptr, nullptr, layout, 0, &bytes) != 0)
        return 0;
    return bytes;
}

extern "C" int hkc_reduce(hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
                          const hkk_reduce_layout *layout, int ddof)
{
    return family(op, in_dtype, in, out, scratch, layout, ddof, nullptr);
}
