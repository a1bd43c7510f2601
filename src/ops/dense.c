/* dense.c: C-contiguous stand-ins for views (dense.h). */
#include <string.h>

#include "core/dtype.h"
#include "ops/dense.h"
#include "ops/scratch.h"

bool hk__is_c_contiguous(const hk_array *a)
{
    int64_t step = 1;
    for (int k = a->ndim - 1; k >= 0; k--) {
        if (a->shape[k] == 0)
            return true;
        if (a->shape[k] != 1 && a->strides[k] != step)
            return false;
        step *= a->shape[k];
    }
    return true;
}

void hk__dense_view(const hk_array *a, void *ptr, hk_array *dense)
{
    *dense = *a;
    dense->data = ptr;
    int64_t step = 1;
    for (int k = a->ndim - 1; k >= 0; k--) {
        dense->strides[k] = step;
        step *= a->shape[k] > 1 ? a->shape[k] : 1;
    }
}

hk_status hk__dense(const char *fn, const hk_array *a, bool copy, hk_array *dense, void **scratch, hk_stream stream,
                    void *vendor_stream)
{
    *scratch = NULL;
    if (hk__is_c_contiguous(a)) {
        *dense = *a;
        return HK_SUCCESS;
    }
    size_t n = 1;
    for (int k = 0; k < a->ndim; k++)
        n *= (size_t)a->shape[k];
    HK_TRY(hk__scratch_alloc(fn, scratch, n * hk__dtype_bytes(a->dtype), vendor_stream));
    hk__dense_view(a, *scratch, dense);
    if (!copy)
        return HK_SUCCESS;
    hk_status s = hk_copy_array(a, dense, stream);
    if (s != HK_SUCCESS) {
        s = hk__scratch_free(fn, *scratch, vendor_stream, s);
        *scratch = NULL;
    }
    return s;
}
