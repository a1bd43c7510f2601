/* sort.h: C entry points of the sort kernels (sort.hip: sort, argsort),
 * called by the GPU backend (src/scan_sort_gpu.c) with arguments validated by
 * src/scan_sort.c. */
#ifndef HIPKIT_SORT_H
#define HIPKIT_SORT_H

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

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
