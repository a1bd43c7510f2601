// elementwise_compare.hip: hk_elementwise's comparisons and logical ops
// (bool results) for all ten dtypes.
#include "elementwise_engine.h"

using namespace ew;
using namespace ewops;

int hkk_ew_compare(const hkk_launch *l, const hkk_ew_call *c)
{
    switch (c->op) {
    case HK_OP_EQUAL: return all_dtypes<op_equal, 2>(l, c);
    case HK_OP_NOT_EQUAL: return all_dtypes<op_not_equal, 2>(l, c);
    case HK_OP_LESS: return all_dtypes<op_less, 2>(l, c);
    case HK_OP_LESS_EQUAL: return all_dtypes<op_less_equal, 2>(l, c);
    case HK_OP_GREATER: return all_dtypes<op_greater, 2>(l, c);
    case HK_OP_GREATER_EQUAL: return all_dtypes<op_greater_equal, 2>(l, c);
    case HK_OP_LOGICAL_AND: return all_dtypes<op_logical_and, 2>(l, c);
    case HK_OP_LOGICAL_OR: return all_dtypes<op_logical_or, 2>(l, c);
    case HK_OP_LOGICAL_XOR: return all_dtypes<op_logical_xor, 2>(l, c);
    case HK_OP_LOGICAL_NOT: return all_dtypes<op_logical_not, 1>(l, c);
    }
    return (int)hipErrorInvalidValue;
}
