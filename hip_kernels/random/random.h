/* random.h: C entry point of the random-number kernels (random.hip), called
 * by the GPU backend. */
#ifndef HIPKIT_RANDOM_H
#define HIPKIT_RANDOM_H

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Philox random numbers as hk_random_uniform (normal == 0: a = low, b = high)
 * or hk_random_normal (normal == 1: a = mean, b = stddev) define them. */
int hkk_random(const hkk_launch *launch, hk_dtype dtype, int normal, void *dst, size_t n, uint64_t seed,
               uint64_t offset, double a, double b);

#ifdef __cplusplus
}
#endif
#endif
