/* scan_sort_internal.h: the GPU backend's entry points for the scan_sort
 * family (src/scan_sort_gpu.c), placed in the backend table (backend_gpu.c).
 * Arguments arrive validated by src/scan_sort.c. */
#ifndef HIPKIT_SCAN_SORT_INTERNAL_H
#define HIPKIT_SCAN_SORT_INTERNAL_H

#include "../hip_kernels/scan/scan.h"
#include "../hip_kernels/sort/sort.h"
#include "internal.h"

hk_status hk__gpu_scan(const char *fn, void *stream, const hkk_scan_args *args);
hk_status hk__gpu_sort(const char *fn, void *stream, const hkk_sort_args *args);

#endif
