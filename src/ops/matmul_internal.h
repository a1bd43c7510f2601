/* matmul_internal.h: what hk_take (matmul.c) and hk_put (put.c) share: copying whole rows as wider
 * units. Dimension merging is core/layout.h's. */
#ifndef HIPKIT_OPS_MATMUL_INTERNAL_H
#define HIPKIT_OPS_MATMUL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../../hip_kernels/index/index.h"
#include "../../hip_kernels/matmul/matmul.h"
#include "core/layout.h"
#include "core/status.h"

/* Whole rows copied as wider units (take and put): the widest power-of-two width in (item,
 * max_width] that divides the last extent, axis_stride and every other stride of a and b (all in
 * elements), with both pointers aligned to it. When one fits, rescales shape[ndim - 1], *count,
 * *axis_stride and the strides of a and b to units of that width and returns it in bytes; else
 * returns 0 and changes nothing. The caller has checked that the last dimension is contiguous. */
int hk__widen_units(int ndim, int64_t *shape, int64_t *count, int64_t *axis_stride, int64_t *a_strides,
                    int64_t *b_strides, const void *a, const void *b, size_t item, size_t max_width);

#endif
