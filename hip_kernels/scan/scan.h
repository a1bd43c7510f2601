/* scan.h: C entry points of the scan kernels (scan.hip: cumsum, cumprod),
 * called by the GPU backend (src/scan_sort_gpu.c) with arguments validated by
 * src/scan_sort.c. */
#ifndef HIPKIT_SCAN_H
#define HIPKIT_SCAN_H

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hkk_scan_args {
    int op;            /* hk_scan_op */
    hk_dtype in_dtype; /* out's dtype is acc(in_dtype) */
    const void *in;
    void *out;
    int64_t length;     /* extent along the axis (>= 1) */
    int64_t in_stride;  /* along the axis, elements */
    int64_t out_stride; /* along the axis, elements */
    int64_t rows;       /* product of rows.shape (>= 1) */
    hkk_rows rows_layout;
} hkk_scan_args;

/* Device scratch hkk_scan needs (0 when it needs none). */
size_t hkk_scan_scratch_bytes(const hkk_launch *launch, const hkk_scan_args *args);
int hkk_scan(const hkk_launch *launch, const hkk_scan_args *args, void *scratch);

#ifdef __cplusplus
}
#endif
#endif
