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

typedef struct hkk_launch {
    void *stream;             /* vendor stream, NULL = default */
    int multiprocessor_count; /* of the current device, sizes the grid */
    int device;               /* the current device (hk_device_get) */
} hkk_launch;

/* A coalesced N-d layout (copy/, and sort/'s gathers): dims of size 1
 * dropped, mergeable neighbours merged; strides in elements, src's already
 * broadcast (0) to dst's shape. */
typedef struct hkk_layout {
    int ndim;
    int64_t shape[HK_MAX_DIMS];
    int64_t src_strides[HK_MAX_DIMS];
    int64_t dst_strides[HK_MAX_DIMS];
} hkk_layout;

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

#ifdef __cplusplus
}
#endif
#endif
