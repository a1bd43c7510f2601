/* index.h: C entry points of the index kernels: numpy.take's gather
 * (take.hip) and hk_put's scatter (put.hip), called by the GPU backend with
 * arguments validated and laid out by src/matmul.c (take) and src/put.c. */
#ifndef HIPKIT_INDEX_H
#define HIPKIT_INDEX_H

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* numpy.take over a coalesced layout of out's dimensions. Each dimension d of `shape` walks in, indices
 * and out with the strides given (in units of `unit_bytes`, except idx_strides, which count int64
 * elements); the index value j read at the indices offset, normalised by `mode` against axis_size,
 * adds j * axis_stride (units) to the in offset. unit_bytes is 1, 2, 4, 8 or 16: the element size, or a
 * multiple of it when whole rows are copied as wider units. */
typedef struct hkk_take_args {
    const void *in;
    void *out;
    const int64_t *indices;
    int unit_bytes;
    int mode;      /* hk_take_mode */
    int64_t count; /* units of out */
    int64_t axis_size;
    int64_t axis_stride;
    int ndim;
    int64_t shape[HKK_MAX_DIMS];
    int64_t in_strides[HKK_MAX_DIMS];
    int64_t idx_strides[HKK_MAX_DIMS];
    int64_t out_strides[HKK_MAX_DIMS];
    /* The indices alone, coalesced (C order kept), for the RAISE check. */
    int idx_ndim;
    int64_t idx_count;
    int64_t idx_shape[HKK_MAX_DIMS];
    int64_t idx_own_strides[HKK_MAX_DIMS];
} hkk_take_args;

int hkk_take(const hkk_launch *launch, const hkk_take_args *args);

/* RAISE mode's check: *first_bad (device memory, set to UINT64_MAX by the caller) becomes the smallest
 * C-order position p < idx_count whose index is outside [-axis_size, axis_size). */
int hkk_take_check(const hkk_launch *launch, const hkk_take_args *args, unsigned long long *first_bad);

/* hk_put's scatter (put.hip), called by the GPU backend (src/backend_gpu.c) with arguments validated
 * and laid out by src/put.c. Each dimension d of `shape` (values' dimensions,
 * coalesced) walks values, indices and out with the strides given (units of `unit_bytes`, except
 * idx_strides, which count int64 elements). The index j read at the indices offset is normalised by
 * `mode` against axis_size; then, along an axis, j * axis_stride (units) is added to the out offset;
 * flat (flat != 0; out_strides are then all 0), j is out's C-order position, turned into an offset
 * through out's own coalesced layout (out_ndim, out_shape, out_own_strides; units). unit_bytes is
 * 1, 2, 4 or 8: the element size, or a multiple of it (at most 8, so each store is whole) when whole
 * rows after the axis are contiguous in values and out. */
typedef struct hkk_put_args {
    const void *values;
    void *out;
    const int64_t *indices;
    int unit_bytes;
    int mode; /* hk_take_mode */
    int flat;
    int64_t count; /* units of values */
    int64_t axis_size;
    int64_t axis_stride;
    int ndim;
    int64_t shape[HKK_MAX_DIMS];
    int64_t values_strides[HKK_MAX_DIMS];
    int64_t idx_strides[HKK_MAX_DIMS];
    int64_t out_strides[HKK_MAX_DIMS];
    int out_ndim;
    int64_t out_shape[HKK_MAX_DIMS];
    int64_t out_own_strides[HKK_MAX_DIMS];
} hkk_put_args;

int hkk_put(const hkk_launch *launch, const hkk_put_args *args);

#ifdef __cplusplus
}
#endif
#endif
