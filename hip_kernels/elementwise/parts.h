// parts.h: the body of each part_<k>.hip: the switch over the op table
// (hk_ew::switch_op, elementwise/signature.h) instantiating the kernels of the
// ops whose enum value is k modulo HKK_EW_PARTS, each for the dtypes of its
// row, with its functor hk_ops::op_<numpy name>. Nothing here names an op: a
// new table row and its functor are all a new op needs.
#include "elementwise/engine.h"

namespace
{
// Part is a template parameter so that the other parts' ops are discarded
// statements, never instantiated in this file.
template <int Part> int part(const hkk_launch *l, const hkk_ew_call *c)
{
    return hk_ew::switch_op<Part, HKK_EW_PARTS>(c->op, [&](auto row) { return ew::run_row<decltype(row)>(l, c); });
}
} // namespace
