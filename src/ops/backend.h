/* backend.h: the op-family calls of ops.c and elementwise.c, with the signatures they had before the
 * device-kind table (kinds/kind.h) took its scratch from the caller: the current kind's entries, and
 * hk_sum's scratch taken from the pool here. Goes when those two files call the kind table. */
#ifndef HIPKIT_OPS_BACKEND_H
#define HIPKIT_OPS_BACKEND_H

#include "kinds/kind.h"

/* The kind's entries as they are, but for sum, which takes no scratch here. */
typedef struct hk__backend {
    __typeof__(((hk__kind *)0)->fill) fill;
    __typeof__(((hk__kind *)0)->iota) iota;
    __typeof__(((hk__kind *)0)->axpy) axpy;
    __typeof__(((hk__kind *)0)->binary) binary;
    hk_status (*sum)(const char *fn, void *stream, hk_dtype dtype, size_t n, const void *x, void *result);
    __typeof__(((hk__kind *)0)->elementwise) elementwise;
} hk__backend;

/* The calls for the calling thread's current device. */
const hk__backend *hk__backend_current(void);

#endif
