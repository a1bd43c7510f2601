/* array_ops.c: hk_copy_array over N-d strided views (hk_array): validation of
 * shapes, strides, broadcasting (view_check.c) and overlap, and the coalescing
 * of dimensions that lets kernels index with as few divisions as possible. */
#include <string.h>

#include "../../hip_kernels/common/kernels.h"
#include "core/device.h"
#include "core/handles.h"
#include "kinds/kind.h"
#include "ops/view_check.h"

/* Drop size-1 dimensions, then merge neighbours that both views walk as one. */
static void coalesce(int ndim, const int64_t *shape, const int64_t *src, const int64_t *dst, hkk_layout *out)
{
    int n = 0;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] == 1)
            continue;
        if (n > 0 && src[k] * shape[k] == out->src_strides[n - 1] && dst[k] * shape[k] == out->dst_strides[n - 1]) {
            out->shape[n - 1] *= shape[k];
            out->src_strides[n - 1] = src[k];
            out->dst_strides[n - 1] = dst[k];
            continue;
        }
        out->shape[n] = shape[k];
        out->src_strides[n] = src[k];
        out->dst_strides[n] = dst[k];
        n++;
    }
    if (n == 0) { /* a single element */
        out->shape[0] = 1;
        out->src_strides[0] = out->dst_strides[0] = 1;
        n = 1;
    }
    out->ndim = n;
}

hk_status hk_copy_array(const hk_array *src, const hk_array *dst, hk_stream stream)
{
    static const char fn[] = "hk_copy_array";
    size_t n_src, n_dst;
    uintptr_t src_first = 0, src_last = 0, dst_first = 0, dst_last = 0;
    hk_status s = hk__check_view(fn, "src", src, 0, &n_src, &src_first, &src_last);
    if (s != HK_SUCCESS || (s = hk__check_view(fn, "dst", dst, 0, &n_dst, &dst_first, &dst_last)) != HK_SUCCESS)
        return s;
    int64_t src_strides[HK_MAX_DIMS];
    if ((s = hk__broadcast(fn, "src", src, "dst", dst, "", src_strides)) != HK_SUCCESS)
        return s;
    void *vendor_stream = NULL;
    if (stream && (s = hk__resolve_stream(fn, stream, &vendor_stream)) != HK_SUCCESS)
        return s;
    if (n_dst == 0)
        return hk__ok();
    if (src_first < dst_last && dst_first < src_last) {
        int same = src->data == dst->data && src->dtype == dst->dtype &&
                   memcmp(src_strides, dst->strides, (size_t)dst->ndim * sizeof *src_strides) == 0;
        if (same)
            return hk__ok(); /* a view copied onto itself */
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "src and dst overlap in memory; copy through a temporary (NumPy would buffer)");
    }
    if ((s = hk__require_device(fn)) != HK_SUCCESS)
        return s;
    hkk_layout layout;
    coalesce(dst->ndim, dst->shape, src_strides, dst->strides, &layout);
    s = hk__kind_current()->copy_array(fn, vendor_stream, src->dtype, dst->dtype, src->data, dst->data, n_dst, &layout);
    return s == HK_SUCCESS ? hk__ok() : s;
}
