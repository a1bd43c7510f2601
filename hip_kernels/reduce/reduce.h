/* reduce.h: C entry points of the reduction kernels (hk_reduce, this folder),
 * called by the GPU backend. The host (src/reduce.c) validates the views and
 * hands over a normalised layout; the kernels choose their launch shape. */
#ifndef HIPKIT_REDUCE_H
#define HIPKIT_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A reduction as (kept dims) x (reduced dims), both outer to inner, strides
 * in elements; the data pointers handed along with it already point at the
 * element where every index is 0 (reversed dims may have been flipped).
 *  - kept dims: extents above 1 only, sorted by input stride, descending
 *    (after flipping negative input strides), mergeable neighbours merged;
 *    kept_ndim 0 means one output. Output o (0 <= o < outputs) is the C-order
 *    position o over these dims; its element is at sum(coord * kept_out).
 *  - reduced dims: red_ndim >= 1. For the index-free ops they are sorted and
 *    flipped like the kept ones; for ARGMIN/ARGMAX they stay in the caller's
 *    order (neither sorted nor flipped, only C-order neighbours merged), so
 *    position j over them (C order) is the index the op reports.
 *    One dim of extent 1 and stride 1 when nothing is reduced; extent 0
 *    when the reduced extent is empty.
 *  - outputs = product of kept extents (>= 1), count = product of reduced
 *    extents (>= 0). */
typedef struct hkk_reduce_layout {
    int kept_ndim;
    int red_ndim;
    int64_t kept_shape[HKK_MAX_DIMS];
    int64_t kept_in[HKK_MAX_DIMS];
    int64_t kept_out[HKK_MAX_DIMS];
    int64_t red_shape[HKK_MAX_DIMS];
    int64_t red_in[HKK_MAX_DIMS];
    int64_t outputs;
    int64_t count;
} hkk_reduce_layout;

/* Bytes of scratch device memory hkk_reduce needs for this call (0: none). */
size_t hkk_reduce_scratch_bytes(const hkk_launch *launch, hk_reduce_op op, hk_dtype in_dtype, const void *in,
                                const hkk_reduce_layout *layout);

/* out[o] = op over the reduced elements of output o. `in` and `out` point at
 * the element of index 0 (see above); out's dtype is the one hk_reduce
 * documents for op and in_dtype; `scratch` has hkk_reduce_scratch_bytes. */
int hkk_reduce(const hkk_launch *launch, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out, void *scratch,
               const hkk_reduce_layout *layout, int ddof);

/* The sum of all n elements of a contiguous float32/float64 array into *result (0 for n == 0), with
 * scratch of hkk_whole_sum_scratch_bytes (whole_sum.hip): one pass over the data, the partials in a
 * second launch. */
size_t hkk_whole_sum_scratch_bytes(const hkk_launch *launch, hk_dtype dtype, size_t n);
int hkk_whole_sum(const hkk_launch *launch, hk_dtype dtype, size_t n, const void *x, void *scratch, void *result);

/* The per-file halves of the two calls above (sum, minmax, arg and stat.hip):
 * with `query` non-NULL they store the scratch bytes there and launch
 * nothing. */
int hkk__reduce_sum_family(const hkk_launch *launch, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                           void *scratch, const hkk_reduce_layout *layout, int ddof, size_t *query);
int hkk__reduce_minmax_family(const hkk_launch *launch, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                              void *scratch, const hkk_reduce_layout *layout, int ddof, size_t *query);
int hkk__reduce_arg_family(const hkk_launch *launch, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                           void *scratch, const hkk_reduce_layout *layout, int ddof, size_t *query);
int hkk__reduce_stat_family(const hkk_launch *launch, hk_reduce_op op, hk_dtype in_dtype, const void *in, void *out,
                            void *scratch, const hkk_reduce_layout *layout, int ddof, size_t *query);

#ifdef __cplusplus
}
#endif
#endif
