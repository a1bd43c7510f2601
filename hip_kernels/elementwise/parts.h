// parts.h: the body of each part_<k>.hip: one switch over the op table
// (HK_OP_TABLE in hipkit.h) that instantiates the kernels of the ops whose enum
// value is k modulo HKK_EW_PARTS, each for the dtypes of its row, with its
// functor hk_ops::op_<numpy name>. Nothing here names an op: a new table row
// and its functor are all a new op needs.
#include "elementwise/engine.h"

namespace
{
// Part is a template parameter so that the other parts' ops are discarded
// statements, never instantiated in this file.
template <int Part> int part(const hkk_launch *l, const hkk_ew_call *c)
{
    switch (c->op) {
#define HKK_EW_CASE(NAME, name, api, arity, dtypes, rule, identity, summary)                                           \
    case HK_OP_##NAME:                                                                                                 \
        if constexpr (HK_OP_##NAME % HKK_EW_PARTS == Part)                                                             \
            return ew::run_op<hk_ops::op_##name, arity, dtypes>(l, c);                                                 \
        break;
        HK_OP_TABLE(HKK_EW_CASE)
#undef HKK_EW_CASE
    default: break;
    }
    return (int)hipErrorInvalidValue;
}
} // namespace
