/* kernels.h: C entry points of the legacy kernels elementwise.hip (fill,
 * iota, axpy, binary) and reduce.hip (hk_sum), which go with those files;
 * every other family's entry points are in its folder's header. */
#ifndef HIPKIT_KERNELS_H
#define HIPKIT_KERNELS_H

#include <stddef.h>

#include "common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

int hkk_fill(const hkk_launch *launch, hk_dtype dtype, void *dst, size_t n, const void *value);
int hkk_iota(const hkk_launch *launch, hk_dtype dtype, void *dst, size_t n, const void *start, const void *step);
int hkk_axpy(const hkk_launch *launch, hk_dtype dtype, size_t n, const void *alpha, const void *x, void *y);
int hkk_binary(const hkk_launch *launch, hk_binary_op op, hk_dtype dtype, size_t n, const void *a, const void *b,
               void *out);
/* Bytes of scratch device memory hkk_sum needs for n elements. */
size_t hkk_sum_scratch_bytes(const hkk_launch *launch, hk_dtype dtype, size_t n);
int hkk_sum(const hkk_launch *launch, hk_dtype dtype, size_t n, const void *x, void *scratch, void *result);

#ifdef __cplusplus
}
#endif
#endif
