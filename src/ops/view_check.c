/* view_check.c: the checks of one N-d strided view (hk_array) and NumPy broadcasting of one view
 * to another's shape, shared by hk_copy_array, hk_elementwise, hk_reduce, hk_scan, hk_sort,
 * hk_matmul and hk_take (see view_check.h). */
#include "ops/view_check.h"

hk_status hk__check_view(const char *fn, const char *name, const hk_array *a, unsigned flags, size_t *count,
                         uintptr_t *first, uintptr_t *last)
{
    size_t item;
    if (!a)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s must not be NULL", name);
    if (hk_dtype_size(a->dtype, &item) != HK_SUCCESS)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.dtype %d is not a hk_dtype", name, (int)a->dtype);
    if (a->ndim < 0 || a->ndim > HK_MAX_DIMS)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.ndim is %d; it must be 0..%d%s", name, a->ndim, HK_MAX_DIMS,
                        (flags & HK__VIEW_HOST_SCALAR_HINT) ? " (or HK_HOST_SCALAR for an input)" : "");
    const bool int64_extents = (flags & HK__VIEW_INT64_EXTENTS) != 0;
    size_t n = 1;
    int64_t low = 0, high = 0; /* element offsets reached, relative to data */
    for (int k = 0; k < a->ndim; k++) {
        if (a->shape[k] < 0)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.shape[%d] is negative (%lld)", name, k,
                            (long long)a->shape[k]);
        if (hk__mul_overflows(n, (size_t)a->shape[k], &n) || (int64_extents && n > (size_t)INT64_MAX))
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s has more elements than %s can count", name,
                            int64_extents ? "hipkit" : "size_t");
        if (a->shape[k] > 0) {
            int64_t reach;
            if (__builtin_mul_overflow(a->strides[k], a->shape[k] - 1, &reach))
                return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.strides[%d] * shape overflows", name, k);
            if ((reach < 0 ? __builtin_add_overflow(low, reach, &low) : __builtin_add_overflow(high, reach, &high)))
                return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s spans more than the address space", name);
        }
    }
    *count = n;
    *first = *last = 0;
    if (n == 0)
        return HK_SUCCESS;
    if ((flags & HK__VIEW_INT64_COUNT) && n > (size_t)INT64_MAX)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s has %zu elements, more than int64_t counts", name, n);
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

hk_status hk__broadcast(const char *fn, const char *src_name, const hk_array *src, const char *dst_name,
                        const hk_array *dst, const char *ndim_hint, int64_t *strides)
{
    if (src->ndim > dst->ndim)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s has %d dimensions, more than %s's %d%s", src_name, src->ndim,
                        dst_name, dst->ndim, ndim_hint);
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
                            "%s's dimension %d (%lld) does not broadcast to %s's dimension %d (%lld)", src_name,
                            k - shift, (long long)extent, dst_name, k, (long long)dst->shape[k]);
    }
    return HK_SUCCESS;
}
