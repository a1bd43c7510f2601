// elementwise_part_1.cpp: the CPU map skeleton's instantiations for the ops whose enum value is 1
// modulo HKC_EW_PARTS (cpu/elementwise.h).
#include "cpu/elementwise.h"

int hkc::ew_part_1(const hkk_ew_call *call)
{
    return ew::part<1>(call);
}
