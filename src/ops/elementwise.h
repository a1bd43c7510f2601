/* elementwise.h: what elementwise.c lends the other creation ops (hk_fill): the map over one view. */
#ifndef HIPKIT_OPS_ELEMENTWISE_H
#define HIPKIT_OPS_ELEMENTWISE_H

#include "../../hip_kernels/elementwise/elementwise.h"

/* Runs `call` (op, dtype, scalars set) as a map over `out` alone (a view that passed hk__check_view,
 * with elements), laid out as hk_elementwise lays out out: negative strides flipped, dimensions
 * ordered and merged, split into several launches when deeper than a kernel layout. Fills call->ndim,
 * shape, strides, n and out. */
hk_status hk__elementwise_over(const char *fn, void *vendor_stream, const hk_array *out, hkk_ew_call *call);

#endif
