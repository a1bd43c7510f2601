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

#endif
