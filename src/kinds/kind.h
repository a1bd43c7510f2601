/* backend.h: what differs per kind of device, as one small table of
 * functions (allocate, copy, order streams, launch an op family). The GPU
 * table is in backend_gpu.c; a host (CPU) table can stand beside it later
 * without touching the public API. Arguments arrive validated; each function
 * records its own error text and returns a status. */
#ifndef HIPKIT_BACKEND_H
#define HIPKIT_BACKEND_H

#include "core/internal.h"

struct hkk_layout; /* hip_kernels/kernels.h */
struct hkk_ew_call; /* hip_kernels/kernels_elementwise.h */
struct hkk_scan_args; /* hip_kernels/kernels_scan_sort.h */
struct hkk_sort_args;
struct hkk_matmul_args; /* hip_kernels/kernels_matmul.h */
struct hkk_take_args;
struct hkk_put_args;
struct hkk_layout;        /* hip_kernels/kernels.h */
struct hkk_reduce_layout; /* hip_kernels/kernels_reduce.h */

typedef enum hk__copy_kind { HK__HOST_TO_DEVICE, HK__DEVICE_TO_HOST, HK__DEVICE_TO_DEVICE } hk__copy_kind;

typedef struct hk__backend {
    /* memory of the current device (alloc, release) and pinned host memory */
    hk_status (*device_alloc)(const char *fn, void **ptr, size_t bytes);
    hk_status (*device_release)(const char *fn, void *ptr);
    hk_status (*host_alloc)(const char *fn, void **ptr, size_t bytes);
    hk_status (*host_release)(const char *fn, void *ptr);
    hk_status (*free_memory)(const char *fn, size_t *free_bytes);
    hk_status (*synchronize)(const char *fn);
    /* Work queued on `waiter` from now on waits for the work already queued on `producer`. */
    hk_status (*stream_order)(const char *fn, void *producer, void *waiter);
    /* copies and memset; a NULL stream with async=false means synchronous */
    hk_status (*copy)(const char *fn, void *dst, const void *src, size_t bytes, hk__copy_kind kind, void *stream,
                      bool async);
    hk_status (*memset)(const char *fn, void *dst, int value, size_t bytes, void *stream, bool async);
    /* op families; `stream` is the vendor stream */
    hk_status (*fill)(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *value);
    hk_status (*iota)(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *start,
                      const void *step);
    hk_status (*axpy)(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *alpha, const void *x,
                      void *y);
    hk_status (*binary)(const char *fn, void *stream, hk_binary_op op, hk_dtype dtype, size_t n, const void *a,
                        const void *b, void *out);
    hk_status (*sum)(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *x, void *result);
    /* Philox numbers (random.c): normal == 0: a = low, b = high; normal == 1: a = mean, b = stddev */
    hk_status (*random_numbers)(const char *fn, void *stream, hk_dtype dtype, int normal, void *dst, size_t n,
                                uint64_t seed, uint64_t offset, double a, double b);
    /* dst = convert(src) over a coalesced layout (struct hkk_layout of hip_kernels/kernels.h) */
    hk_status (*copy_array)(const char *fn, void *stream, hk_dtype src_dtype, hk_dtype dst_dtype, const void *src,
                            void *dst, size_t n, const struct hkk_layout *layout);
    /* elementwise (issue 3): one validated, coalesced hk_elementwise call
     * (struct hkk_ew_call of hip_kernels/kernels_elementwise.h) */
    hk_status (*elementwise)(const char *fn, void *stream, const struct hkk_ew_call *call);
    /* scan_sort (issue 3): hk_scan and hk_sort, arguments validated (src/scan_sort.c) */
    hk_status (*scan)(const char *fn, void *stream, const struct hkk_scan_args *args);
    hk_status (*sort)(const char *fn, void *stream, const struct hkk_sort_args *args);
    /* matmul family (issue 3; GPU: src/matmul_gpu.c): out = a @ b (use_vendor: the vendor BLAS, else the
     * own kernel); numpy.take (axis, normalised, only names the axis in messages) */
    hk_status (*matmul)(const char *fn, void *stream, const struct hkk_matmul_args *args, int use_vendor);
    hk_status (*take)(const char *fn, void *stream, const struct hkk_take_args *args, int axis);
    /* ---- reduce (issue 3): out = op over the reduced dims of a normalised layout (src/reduce.c);
     * in and out point at the layout's origin elements */
    hk_status (*reduce)(const char *fn, void *stream, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                        const struct hkk_reduce_layout *layout, int ddof);
    /* ---- put (issue 5): hk_put's scatter (src/put.c); `check` (RAISE mode, else NULL) describes the
     * indices for take's index check, run first; axis (normalised) only names the axis in messages */
    hk_status (*put)(const char *fn, void *stream, const struct hkk_put_args *args,
                     const struct hkk_take_args *check, int axis);
} hk__backend;

/* The table for the calling thread's current device. */
const hk__backend *hk__backend_current(void);

#endif
