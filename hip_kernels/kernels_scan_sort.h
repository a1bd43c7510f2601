/* kernels_scan_sort.h: C entry points of the scan and sort kernels
 * (hip_kernels/scan.hip, hip_kernels/sort.hip), called by the GPU backend
 * (src/scan_sort_gpu.c). Arguments arrive validated by src/scan_sort.c.
 * Each function launches on `launch->stream` and returns the vendor error
 * code (0 = success) after checking every launch. */
#ifndef HIPKIT_KERNELS_SCAN_SORT_H
#define HIPKIT_KERNELS_SCAN_SORT_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dimensions other than the scanned (or sorted) one, coalesced: dims of
 * extent 1 dropped, neighbours that every view walks as one merged. Row r
 * (0 <= r < product of shape) sits at sum_k c_k * strides[v][k] elements from
 * view v's data, c being r's C-order coordinates. ndim 0: one row at offset 0.
 * Views: scan: 0 = in, 1 = out; sort: 0 = in, 1 = keys_out, 2 = indices_out. */
typedef struct hkk_rows {
    int ndim;
    int64_t shape[HK_MAX_DIMS];
    int64_t strides[3][HK_MAX_DIMS];
} hkk_rows;

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

typedef struct hkk_sort_args {
    hk_dtype dtype;
    const void *in;
    void *keys;       /* NULL: not wanted */
    int64_t *indices; /* NULL: not wanted */
    int64_t length;   /* N: extent of the last axis (>= 1) */
    int64_t rows;     /* R: product of the other extents (>= 1) */
    hkk_rows rows_layout;
    int64_t last_stride[3]; /* stride of the last axis per view (in, keys, indices) */
    /* Per view: does the whole view, read in C order, walk one stride? Then
     * flat_stride[v] is it (element i of the flattened view at data + i * stride). */
    int flat[3];
    int64_t flat_stride[3];
    int in_place; /* keys is the same view as in */
} hkk_sort_args;

size_t hkk_sort_scratch_bytes(const hkk_launch *launch, const hkk_sort_args *args);
int hkk_sort(const hkk_launch *launch, const hkk_sort_args *args, void *scratch);

#ifdef __cplusplus
}
#endif
#endif
