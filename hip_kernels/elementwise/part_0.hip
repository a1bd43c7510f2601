// part_0.hip: the elementwise kernels of the ops whose enum value is 0 modulo
// HKK_EW_PARTS (see parts.h).
#include "elementwise/parts.h"

int hkk_ew_part_0(const hkk_launch *l, const hkk_ew_call *c)
{
    return part<0>(l, c);
}

extern "C" int hkk_elementwise(const hkk_launch *l, const hkk_ew_call *c)
{
    static int (*const parts[HKK_EW_PARTS])(const hkk_launch *, const hkk_ew_call *) = {hkk_ew_part_0, hkk_ew_part_1,
                                                                                        hkk_ew_part_2, hkk_ew_part_3};
    if (c->op == HKK_EW_FILL)
        return ew::run_row<hk_ew::fill_row>(l, c);
    if (c->op < 0 || c->op >= HK_OP_COUNT)
        return (int)hipErrorInvalidValue;
    return parts[c->op % HKK_EW_PARTS](l, c);
}
