/* layout.h: merging the dimensions of strided layouts, shared by the ops layer (which lays out each
 * call) and the kinds (which lay out their own copies). */
#ifndef HIPKIT_CORE_LAYOUT_H
#define HIPKIT_CORE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

/* Drop extent-1 dimensions, then merge neighbours that each of the `arrays` stride lists walks as one
 * (strides[a][k] * shape[k] == strides[a][k - 1]); in place. Returns the new ndim (0: one element). */
static inline int hk__coalesce_dims(int ndim, int64_t *shape, int64_t *const *strides, int arrays)
{
    int n = 0;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] == 1)
            continue;
        if (n > 0) {
            bool merge = true;
            for (int a = 0; a < arrays; a++)
                merge = merge && strides[a][k] * shape[k] == strides[a][n - 1];
            if (merge) {
                shape[n - 1] *= shape[k];
                for (int a = 0; a < arrays; a++)
                    strides[a][n - 1] = strides[a][k];
                continue;
            }
        }
        shape[n] = shape[k];
        for (int a = 0; a < arrays; a++)
            strides[a][n] = strides[a][k];
        n++;
    }
    return n;
}

/* Splitting a merged layout deeper than the kernels take (`keep` dims, HKK_MAX_DIMS): the outer
 * ndim - keep dims are walked on the host, one launch per coordinate of them, each over the inner
 * `keep` dims from an origin moved by that coordinate. How many launches (the outer extents' product): */
static inline int64_t hk__outer_count(int ndim, const int64_t *shape, int keep)
{
    int64_t count = 1;
    for (int k = 0; k < ndim - keep; k++)
        count *= shape[k];
    return count;
}

/* The element offset of outer coordinate number p (C order over shape[0 .. ndim - keep)) in each of
 * the `arrays` stride lists. */
static inline void hk__outer_offsets(int64_t p, int ndim, const int64_t *shape, int64_t *const *strides, int arrays,
                                     int keep, int64_t *offsets)
{
    for (int a = 0; a < arrays; a++)
        offsets[a] = 0;
    for (int k = ndim - keep - 1; k >= 0; k--) {
        const int64_t c = p % shape[k];
        p /= shape[k];
        for (int a = 0; a < arrays; a++)
            offsets[a] += c * strides[a][k];
    }
}

#endif
