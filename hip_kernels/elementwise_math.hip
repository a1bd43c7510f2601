// elementwise_math.hip: hk_elementwise's float functions (exp ... erf, floor,
// ceil, rint) for float16 (in float32), float32 and float64.
#include "elementwise_engine.h"

using namespace ew;
using namespace ewops;

int hkk_ew_math(const hkk_launch *l, const hkk_ew_call *c)
{
    switch (c->op) {
    case HK_OP_EXP: return float_dtypes<op_exp, 1>(l, c);
    case HK_OP_LOG: return float_dtypes<op_log, 1>(l, c);
    case HK_OP_LOG2: return float_dtypes<op_log2, 1>(l, c);
    case HK_OP_LOG1P: return float_dtypes<op_log1p, 1>(l, c);
    case HK_OP_EXPM1: return float_dtypes<op_expm1, 1>(l, c);
    case HK_OP_SQRT: return float_dtypes<op_sqrt, 1>(l, c);
    case HK_OP_SIN: return float_dtypes<op_sin, 1>(l, c);
    case HK_OP_COS: return float_dtypes<op_cos, 1>(l, c);
    case HK_OP_TAN: return float_dtypes<op_tan, 1>(l, c);
    case HK_OP_TANH: return float_dtypes<op_tanh, 1>(l, c);
    case HK_OP_ERF: return float_dtypes<op_erf, 1>(l, c);
    case HK_OP_FLOOR: return float_dtypes<op_floor, 1>(l, c); // integers: copy
    case HK_OP_CEIL: return float_dtypes<op_ceil, 1>(l, c);
    case HK_OP_RINT: return float_dtypes<op_rint, 1>(l, c);
    }
    return (int)hipErrorInvalidValue;
}
