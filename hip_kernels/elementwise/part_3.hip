// part_3.hip: the elementwise kernels of the ops whose enum value is 3 modulo
// HKK_EW_PARTS (see parts.h).
#include "elementwise/parts.h"

int hkk_ew_part_3(const hkk_launch *l, const hkk_ew_call *c)
{
    return part<3>(l, c);
}
