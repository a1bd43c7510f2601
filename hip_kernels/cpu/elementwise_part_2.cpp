// elementwise_part_2.cpp: the CPU map skeleton's instantiations for the ops whose enum value is 2
// modulo HKC_EW_PARTS (cpu/elementwise.h).
#include "cpu/elementwise.h"

int hkc::ew_part_2(const hkk_ew_call *call)
{
    return ew::part<2>(call);
}
