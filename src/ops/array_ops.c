/* array_ops.c: hk_copy_array over N-d strided views (hk_array): validation of
 * shapes, strides, broadcasting (view_check.c) and overlap, and the coalescing
 * of dimensions that lets kernels index with as few divisions as possible. */
#include <string.h>

#include "../../hip_kernels/common/kernels.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "core/layout.h"
#include "kinds/kind.h"
#include "ops/view_check.h"

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
    /* Merged, then split if still deeper than a kernel layout: one launch per outer coordinate. */
    int64_t shape[HK_MAX_DIMS], strides[2][HK_MAX_DIMS];
    int64_t *lists[2] = {strides[0], strides[1]};
    memcpy(shape, dst->shape, (size_t)dst->ndim * sizeof *shape);
    memcpy(strides[0], src_strides, (size_t)dst->ndim * sizeof *shape);
    memcpy(strides[1], dst->strides, (size_t)dst->ndim * sizeof *shape);
    int ndim = hk__coalesce_dims(dst->ndim, shape, lists, 2);
    if (ndim == 0) { /* a single element */
        ndim = 1;
        shape[0] = strides[0][0] = strides[1][0] = 1;
    }
    const int inner = ndim < HKK_MAX_DIMS ? ndim : HKK_MAX_DIMS, outer = ndim - inner;
    hkk_layout layout;
    memset(&layout, 0, sizeof layout);
    layout.ndim = inner;
    size_t n = 1;
    for (int k = 0; k < inner; k++) {
        layout.shape[k] = shape[outer + k];
        layout.src_strides[k] = strides[0][outer + k];
        layout.dst_strides[k] = strides[1][outer + k];
        n *= (size_t)shape[outer + k];
    }
    const size_t src_item = hk__dtype_bytes(src->dtype), dst_item = hk__dtype_bytes(dst->dtype);
    const int64_t launches = hk__outer_count(ndim, shape, inner);
    for (int64_t p = 0; p < launches; p++) {
        int64_t off[2];
        hk__outer_offsets(p, ndim, shape, lists, 2, inner, off);
        s = hk__kind_current()->copy_array(fn, vendor_stream, src->dtype, dst->dtype,
                                           (const char *)src->data + off[0] * (int64_t)src_item,
                                           (char *)dst->data + off[1] * (int64_t)dst_item, n, &layout);
        if (s != HK_SUCCESS)
            return s;
    }
    return hk__ok();
}
