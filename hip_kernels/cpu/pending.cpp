// pending.cpp: the CPU device's entry points for the families whose skeleton
// is not written yet, as weak definitions: each says HKC_NOT_SUPPORTED, and a
// family's own file (cpu/<family>.cpp) replaces them by defining the entry.
#include "cpu/cpu.h"

#define HKC_PENDING extern "C" __attribute__((weak))

HKC_PENDING int hkc_elementwise(const hkk_ew_call *) { return HKC_NOT_SUPPORTED; }
HKC_PENDING int hkc_iota(hk_dtype, void *, int64_t, size_t, const void *, const void *) { return HKC_NOT_SUPPORTED; }
HKC_PENDING int hkc_copy_array(hk_dtype, hk_dtype, const void *, void *, size_t, const hkk_layout *)
{
    return HKC_NOT_SUPPORTED;
}
HKC_PENDING int hkc_random(hk_dtype, int, void *, size_t, uint64_t, uint64_t, double, double)
{
    return HKC_NOT_SUPPORTED;
}
HKC_PENDING size_t hkc_reduce_scratch_bytes(hk_reduce_op, hk_dtype, const void *, const hkk_reduce_layout *)
{
    return 0;
}
HKC_PENDING int hkc_reduce(hk_reduce_op, hk_dtype, const void *, void *, void *, const hkk_reduce_layout *, int)
{
    return HKC_NOT_SUPPORTED;
}
HKC_PENDING size_t hkc_scan_scratch_bytes(const hkk_scan_args *) { return 0; }
HKC_PENDING int hkc_scan(const hkk_scan_args *, void *) { return HKC_NOT_SUPPORTED; }
HKC_PENDING size_t hkc_sort_scratch_bytes(const hkk_sort_args *) { return 0; }
HKC_PENDING int hkc_sort(const hkk_sort_args *, void *) { return HKC_NOT_SUPPORTED; }
HKC_PENDING int hkc_matmul(const hkk_matmul_args *) { return HKC_NOT_SUPPORTED; }
HKC_PENDING int hkc_take(const hkk_take_args *) { return HKC_NOT_SUPPORTED; }
HKC_PENDING int hkc_take_check(const hkk_take_args *, unsigned long long *) { return HKC_NOT_SUPPORTED; }
HKC_PENDING int hkc_put(const hkk_put_args *) { return HKC_NOT_SUPPORTED; }
