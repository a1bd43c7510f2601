// part_2.hip: the elementwise kernels of the ops whose enum value is 2 modulo
// HKK_EW_PARTS (see parts.h).
#include "elementwise/parts.h"

int hkk_ew_part_2(const hkk_launch *l, const hkk_ew_call *c)
{
    return part<2>(l, c);
}
