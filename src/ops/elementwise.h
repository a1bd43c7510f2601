/* elementwise.h: what elementwise.c lends the other creation ops (hk_fill): the walk of one view. */
#ifndef HIPKIT_OPS_ELEMENTWISE_H
#define HIPKIT_OPS_ELEMENTWISE_H

#include "../../hip_kernels/elementwise/elementwise.h"

/* call->ndim, shape, strides[0] and out for a map over `out` alone (a view that passed hk__check_view,
 * with elements): its negative strides flipped, dimensions ordered and merged as hk_elementwise does. */
void hk__elementwise_walk(const hk_array *out, hkk_ew_call *call);

#endif
