/* gpu_scan_sort.c: the GPU kind's hk_scan and hk_sort: the kernels of hip_kernels/scan.hip and
 * hip_kernels/sort.hip, with the scratch their look-backs and radix passes need. */
#include "../../hip_kernels/scan/scan.h"
#include "../../hip_kernels/sort/sort.h"
#include "kinds/gpu_internal.h"

size_t hk__gpu_scan_scratch_bytes(const hkk_scan_args *args)
{
    hkk_launch l = hk__gpu_launch(NULL);
    return hkk_scan_scratch_bytes(&l, args);
}

hk_status hk__gpu_scan(const char *fn, void *stream, const hkk_scan_args *args, void *scratch)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_scan(&l, args, scratch), "launching the scan kernels");
}

size_t hk__gpu_sort_scratch_bytes(const hkk_sort_args *args)
{
    hkk_launch l = hk__gpu_launch(NULL);
    return hkk_sort_scratch_bytes(&l, args);
}

hk_status hk__gpu_sort(const char *fn, void *stream, const hkk_sort_args *args, void *scratch)
{
    hkk_launch l = hk__gpu_launch(stream);
    return hk__gpu_check(fn, hkk_sort(&l, args, scratch), "launching the sort kernels");
}
