/* backend.h: the op-family calls of ops.c and elementwise.c, with the signatures they had before the
 * device-kind table (kinds/kind.h) took its scratch from the caller: the current kind's entries, and
 * hk_sum's scratch taken from the pool here. Goes when those two files call the kind table. */
#ifndef HIPKIT_OPS_BACKEND_H
#define HIPKIT_OPS_BACKEND_H

#include "kinds/kind.h"

typedef struct hk__backend {
    hk_status (*fill)(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *value);
    hk_status (*iota)(const char *fn, void *stream, hk_dtype dtype, void *dst, size_t n, const void *start,
                      const void *step);
    hk_status (*axpy)(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *alpha, const void *x,
                      void *y);
    hk_status (*binary)(const char *fn, void *stream, hk_binary_op op, hk_dtype dtype, size_t n, const void *a,
                        const void *b, void *out);
    hk_status (*sum)(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *x, void *result);
    hk_status (*elementwise)(const char *fn, void *stream, const struct hkk_ew_call *call);
} hk__backend;

/* The calls for the calling thread's current device. */
const hk__backend *hk__backend_current(void);

#endif
