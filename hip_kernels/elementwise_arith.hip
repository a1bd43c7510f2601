// elementwise_arith.hip: hk_elementwise's arithmetic ops (add, subtract,
// multiply, divide, floor_divide, remainder, power, negative, absolute, and
// the identity copy), and the entry point that routes every op to its file.
#include "elementwise_engine.h"

using namespace ew;
using namespace ewops;

int hkk_ew_arith(const hkk_launch *l, const hkk_ew_call *c)
{
    switch (c->op) {
    case HK_OP_ADD: return all_dtypes<op_add, 2>(l, c);
    case HK_OP_SUBTRACT: return numeric_dtypes<op_subtract, 2>(l, c);
    case HK_OP_MULTIPLY: return all_dtypes<op_multiply, 2>(l, c);
    case HK_OP_DIVIDE: return float_dtypes<op_divide, 2>(l, c);
    case HK_OP_FLOOR_DIVIDE: return numeric_dtypes<op_floor_divide, 2>(l, c);
    case HK_OP_REMAINDER: return numeric_dtypes<op_remainder, 2>(l, c);
    case HK_OP_POWER: return numeric_dtypes<op_power, 2>(l, c);
    case HK_OP_NEGATIVE: return numeric_dtypes<op_negative, 1>(l, c);
    case HK_OP_ABSOLUTE: return signed_and_float_dtypes<op_absolute, 1>(l, c); // the rest: copy
    case HKK_EW_COPY: return by_size<op_copy, t_u8, 1>(l, c);
    }
    return (int)hipErrorInvalidValue;
}

extern "C" int hkk_elementwise(const hkk_launch *l, const hkk_ew_call *c)
{
    switch (c->op) {
    case HK_OP_EQUAL:
    case HK_OP_NOT_EQUAL:
    case HK_OP_LESS:
    case HK_OP_LESS_EQUAL:
    case HK_OP_GREATER:
    case HK_OP_GREATER_EQUAL:
    case HK_OP_LOGICAL_AND:
    case HK_OP_LOGICAL_OR:
    case HK_OP_LOGICAL_XOR:
    case HK_OP_LOGICAL_NOT: return hkk_ew_compare(l, c);
    case HK_OP_MINIMUM:
    case HK_OP_MAXIMUM:
    case HK_OP_CLIP:
    case HK_OP_WHERE:
    case HK_OP_BITWISE_AND:
    case HK_OP_BITWISE_OR:
    case HK_OP_BITWISE_XOR:
    case HK_OP_BITWISE_INVERT:
    case HK_OP_ISNAN:
    case HK_OP_ISINF:
    case HK_OP_ISFINITE: return hkk_ew_select(l, c);
    case HK_OP_EXP:
    case HK_OP_LOG:
    case HK_OP_LOG2:
    case HK_OP_LOG1P:
    case HK_OP_EXPM1:
    case HK_OP_SQRT:
    case HK_OP_SIN:
    case HK_OP_COS:
    case HK_OP_TAN:
    case HK_OP_TANH:
    case HK_OP_ERF:
    case HK_OP_FLOOR:
    case HK_OP_CEIL:
    case HK_OP_RINT: return hkk_ew_math(l, c);
    default: return hkk_ew_arith(l, c);
    }
}
