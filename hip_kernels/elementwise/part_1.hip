// part_1.hip: the elementwise kernels of the ops whose enum value is 1 modulo
// HKK_EW_PARTS (see parts.h).
#include "elementwise/parts.h"

int hkk_ew_part_1(const hkk_launch *l, const hkk_ew_call *c)
{
    return part<1>(l, c);
}
