/* kernels.h: what every family's C entry points share: the launch each call
 * receives, and the coalesced layouts that several families take. Each entry
 * point launches on `launch->stream` and returns the vendor error code
 * (0 = success) after checking every launch. */
#ifndef HIPKIT_COMMON_KERNELS_H
#define HIPKIT_COMMON_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "hipkit/hipkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dimensions a kernel layout holds (every hkk_* struct's shape/stride arrays). hk_array holds up to
 * HK_MAX_DIMS (32); the ops layer (src/ops/) merges what it can (src/core/layout.h) and splits a layout
 * still deeper than this into several launches, or works through contiguous scratch copies. */
#define HKK_MAX_DIMS 8

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

/* A coalesced N-d layout (copy/, and sort/'s gathers): dims of size 1
 * dropped, mergeable neighbours merged; strides in elements, src's already
 * broadcast (0) to dst's shape. */
typedef struct hkk_layout {
    int ndim;
    int64_t shape[HKK_MAX_DIMS];
    int64_t src_strides[HKK_MAX_DIMS];
    int64_t dst_strides[HKK_MAX_DIMS];
} hkk_layout;

/* The dimensions other than the scanned (or sorted) one, coalesced: dims of
 * extent 1 dropped, neighbours that every view walks as one merged. Row r
 * (0 <= r < product of shape) sits at sum_k c_k * strides[v][k] elements from
 * view v's data, c being r's C-order coordinates. ndim 0: one row at offset 0.
 * Views: scan: 0 = in, 1 = out; sort: 0 = in, 1 = keys_out, 2 = indices_out. */
typedef struct hkk_rows {
    int ndim;
    int64_t shape[HKK_MAX_DIMS];
    int64_t strides[3][HKK_MAX_DIMS];
} hkk_rows;

#ifdef __cplusplus
}
#endif
#endif
