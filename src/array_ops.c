/* array_ops.c: operations on N-d strided views (hk_array): validation of
 * shapes, strides, broadcasting and overlap, and the coalescing of
 * dimensions that lets kernels index with as few divisions as possible. */
#include <string.h>

#include "../hip_kernels/kernels.h"
#include "backend.h"
#include "internal.h"

static hk_status check_view(const char *fn, const char *name, const hk_array *a, size_t *count, uintptr_t *first,
                            uintptr_t *last)
{
    size_t item;
    if (!a)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s must not be NULL", name);
    if (hk_dtype_size(a->dtype, &item) != HK_SUCCESS)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.dtype %d is not a hk_dtype", name, (int)a->dtype);
    if (a->ndim < 0 || a->ndim > HK_MAX_DIMS)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.ndim is %d; it must be 0..%d", name, a->ndim, HK_MAX_DIMS);
    size_t n = 1;
    int64_t low = 0, high = 0; /* element offsets reached, relative to data */
    for (int k = 0; k < a->ndim; k++) {
        if (a->shape[k] < 0)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.shape[%d] is negative (%lld)", name, k,
                            (long long)a->shape[k]);
        if (hk__mul_overflows(n, (size_t)a->shape[k], &n))
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s has more elements than size_t can count", name);
        if (a->shape[k] > 0) {
            int64_t reach;
            if (__builtin_mul_overflow(a->strides[k], a->shape[k] - 1, &reach))
                return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.strides[%d] * shape overflows", name, k);
            if ((reach < 0 ? __builtin_add_overflow(low, reach, &low) : __builtin_add_overflow(high, reach, &high)))
                return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s spans more than the address space", name);
        }
    }
    *count = n;
    if (n == 0)
        return HK_SUCCESS;
    if (!a->data)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.data is NULL but it has %zu elements", name, n);
    if ((uintptr_t)a->data % item)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.data (%p) is not aligned to its element size (%zu)", name,
                        a->data, item);
    /* Byte range touched, checked against the address space. */
    __int128 begin = (__int128)(uintptr_t)a->data + (__int128)low * (__int128)item;
    __int128 end = (__int128)(uintptr_t)a->data + ((__int128)high + 1) * (__int128)item;
    if (begin < 0 || end > (__int128)UINTPTR_MAX)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s reaches outside the address space", name);
    *first = (uintptr_t)begin;
    *last = (uintptr_t)end;
    return HK_SUCCESS;
}

/* src's strides as seen through dst's shape (NumPy broadcasting), or an error. */
static hk_status broadcast(const char *fn, const hk_array *src, const hk_array *dst, int64_t *strides)
{
    if (src->ndim > dst->ndim)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "src has %d dimensions, more than dst's %d", src->ndim,
                        dst->ndim);
    int shift = dst->ndim - src->ndim;
    for (int k = 0; k < dst->ndim; k++) {
        if (k < shift) {
            strides[k] = 0;
            continue;
        }
        int64_t extent = src->shape[k - shift];
        if (extent == dst->shape[k])
            strides[k] = src->strides[k - shift];
        else if (extent == 1)
            strides[k] = 0;
        else
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "src's dimension %d (%lld) does not broadcast to dst's dimension %d (%lld)", k - shift,
                            (long long)extent, k, (long long)dst->shape[k]);
    }
    return HK_SUCCESS;
}

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
    hk_status s = check_view(fn, "src", src, &n_src, &src_first, &src_last);
    if (s != HK_SUCCESS || (s = check_view(fn, "dst", dst, &n_dst, &dst_first, &dst_last)) != HK_SUCCESS)
        return s;
    int64_t src_strides[HK_MAX_DIMS];
    if ((s = broadcast(fn, src, dst, src_strides)) != HK_SUCCESS)
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
    if ((s = hk__require_gpu(fn)) != HK_SUCCESS)
        return s;
    hkk_layout layout;
    coalesce(dst->ndim, dst->shape, src_strides, dst->strides, &layout);
    s = hk__backend_current()->copy_array(fn, vendor_stream, src->dtype, dst->dtype, src->data, dst->data, n_dst,
                                          &layout);
    return s == HK_SUCCESS ? hk__ok() : s;
}
