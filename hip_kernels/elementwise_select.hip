// elementwise_select.hip: hk_elementwise's minimum, maximum, clip, where,
// bitwise ops and the float classification (isnan, isinf, isfinite).
#include "elementwise_engine.h"

using namespace ew;
using namespace ewops;

int hkk_ew_select(const hkk_launch *l, const hkk_ew_call *c)
{
    switch (c->op) {
    case HK_OP_MINIMUM: return all_dtypes<op_minimum, 2>(l, c);
    case HK_OP_MAXIMUM: return all_dtypes<op_maximum, 2>(l, c);
    case HK_OP_CLIP: return all_dtypes<op_clip, 3>(l, c);
    case HK_OP_WHERE: return by_size<op_where, t_bool, 3>(l, c); // values move as raw bits
    case HK_OP_BITWISE_AND: return integer_dtypes<op_bitwise_and, 2>(l, c);
    case HK_OP_BITWISE_OR: return integer_dtypes<op_bitwise_or, 2>(l, c);
    case HK_OP_BITWISE_XOR: return integer_dtypes<op_bitwise_xor, 2>(l, c);
    case HK_OP_BITWISE_INVERT: return integer_dtypes<op_bitwise_invert, 1>(l, c);
    case HK_OP_ISNAN: return float_dtypes<op_isnan, 1>(l, c); // integers: a fill with false
    case HK_OP_ISINF: return float_dtypes<op_isinf, 1>(l, c);
    case HK_OP_ISFINITE: return float_dtypes<op_isfinite, 1>(l, c);
    }
    return (int)hipErrorInvalidValue;
}
