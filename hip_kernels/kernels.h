/* kernels.h: C entry points of the built-in kernels (the .hip files here),
 * called by the GPU backend. Each launches on `launch->stream` and returns the
 * vendor error code (0 = success) after checking the launch error. */
#ifndef HIPKIT_KERNELS_H
#define HIPKIT_KERNELS_H

#include <stddef.h>

#include "hipkit/hipkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels' benchmark knobs, read once from the environment by src/core/settings.c (which lists
 * them); the kernels read them here, never the environment. */
typedef struct hkk_tuning {
    int scan_variant;         /* HIPKIT_SCAN_VARIANT: -1 unset (by accumulator size), 0 capped, 1 uncapped */
    int lookback_ns_given;    /* HIPKIT_LOOKBACK_NS is set: lookback_ns replaces the scan's default pauses */
    unsigned lookback_ns;     /* HIPKIT_LOOKBACK_NS=poll[,first] as poll | first << 16; 0 unset or out of range */
    long reduce_column_bx;    /* HIPKIT_REDUCE_COLUMN_BX as given, 0 unset (the planner keeps valid values) */
    long reduce_column_waves; /* HIPKIT_REDUCE_COLUMN_WAVES likewise */
    int sort_hist_runs;       /* HIPKIT_SORT_HIST=runs */
    int sort_min_blocks;      /* HIPKIT_SORT_MIN_BLOCKS (atoi), -1 unset */
} hkk_tuning;

typedef struct hkk_launch {
    void *stream;             /* vendor stream, NULL = default */
    int multiprocessor_count; /* of the current device, sizes the grid */
    int device;               /* the current device (hk_device_get) */
    const hkk_tuning *tuning; /* NULL: every knob at its default */
} hkk_launch;

/* Bytes of scratch device memory hkk_sum needs for n elements. */
size_t hkk_sum_scratch_bytes(const hkk_launch *launch, hk_dtype dtype, size_t n);
int hkk_sum(const hkk_launch *launch, hk_dtype dtype, size_t n, const void *x, void *scratch, void *result);
/* Philox random numbers as hk_random_uniform (normal == 0: a = low, b = high)
 * or hk_random_normal (normal == 1: a = mean, b = stddev) define them. */
int hkk_random(const hkk_launch *launch, hk_dtype dtype, int normal, void *dst, size_t n, uint64_t seed,
               uint64_t offset, double a, double b);

/* A coalesced N-d layout: dims of size 1 dropped, mergeable neighbours
 * merged; strides in elements, src's already broadcast (0) to dst's shape. */
typedef struct hkk_layout {
    int ndim;
    int64_t shape[HK_MAX_DIMS];
    int64_t src_strides[HK_MAX_DIMS];
    int64_t dst_strides[HK_MAX_DIMS];
} hkk_layout;

int hkk_copy_array(const hkk_launch *launch, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src, void *dst,
                   size_t n, const hkk_layout *layout);

#ifdef __cplusplus
}
#endif
#endif
