/* select.c: boolean-mask selection (NumPy's x[mask]) on the device: hk_mask_count reads back the one
 * number the result's size needs; hk_mask_select then fills the result asynchronously. Composed of the
 * library's own ops (hk_scan, hk_elementwise, hk_put, hk_copy_array) over stream-ordered scratch, so
 * it runs on every device kind with no kernel of its own:
 *
 *   pos  = cumsum(mask) - 1        (int64: where each true element goes)
 *   pos  = where(mask, pos, count) (false elements aim at one spare slot past the end)
 *   ext  = put(values=in, indices=pos) into count + 1 elements; out = ext[:count]. */
#include <string.h>

#include "core/device.h"
#include "core/handles.h"
#include "ops/scratch.h"
#include "ops/view_check.h"

/* A C-contiguous 1-d view of n elements of dtype at ptr. */
static hk_array flat(void *ptr, hk_dtype dtype, int64_t n)
{
    hk_array a;
    memset(&a, 0, sizeof a);
    a.data = ptr;
    a.dtype = dtype;
    a.ndim = 1;
    a.shape[0] = n;
    a.strides[0] = 1;
    return a;
}

static int is_c_contiguous(const hk_array *a)
{
    int64_t step = 1;
    for (int k = a->ndim - 1; k >= 0; k--) {
        if (a->shape[k] == 0)
            return 1;
        if (a->shape[k] != 1 && a->strides[k] != step)
            return 0;
        step *= a->shape[k];
    }
    return 1;
}

/* `a` as a flat C-order 1-d view: itself when contiguous, else a contiguous copy in *copy (scratch). */
static hk_status flatten(const char *fn, const hk_array *a, int64_t n, void **copy, hk_array *flat_view, void *stream)
{
    *copy = NULL;
    if (is_c_contiguous(a)) {
        *flat_view = flat(a->data, a->dtype, n);
        return HK_SUCCESS;
    }
    size_t item = 0;
    HK_TRY(hk_dtype_size(a->dtype, &item));
    HK_TRY(hk__scratch_alloc(fn, copy, (size_t)n * item, stream));
    *flat_view = flat(*copy, a->dtype, n);
    hk_array packed = *a; /* a's shape over the scratch, C-contiguous: hk_copy_array takes equal shapes */
    packed.data = *copy;
    int64_t step = 1;
    for (int k = a->ndim - 1; k >= 0; k--) {
        packed.strides[k] = step;
        step *= a->shape[k] > 1 ? a->shape[k] : 1;
    }
    return hk_copy_array(a, &packed, (hk_stream)stream);
}

static hk_status check_mask(const char *fn, const hk_array *mask, size_t *count)
{
    uintptr_t first, last;
    HK_TRY(hk__check_view(fn, "mask", mask, HK__VIEW_INT64_COUNT, count, &first, &last));
    if (mask->dtype != HK_BOOL)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "mask must be bool (hk_dtype %d), not %s", HK_BOOL,
                        hk_dtype_name(mask->dtype));
    return HK_SUCCESS;
}

hk_status hk_mask_count(const hk_array *mask, int64_t *count, hk_stream stream)
{
    static const char fn[] = "hk_mask_count";
    if (!count)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "count is NULL");
    *count = 0;
    HK_TRY(hk__require_device(fn));
    size_t n = 0;
    HK_TRY(check_mask(fn, mask, &n));
    if (n == 0)
        return HK_SUCCESS;
    void *sum = NULL;
    HK_TRY(hk__scratch_alloc(fn, &sum, sizeof(int64_t), stream));
    hk_array total;
    memset(&total, 0, sizeof total);
    total.data = sum;
    total.dtype = HK_INT64;
    total.ndim = 0;
    const uint32_t all = mask->ndim ? (uint32_t)((1u << mask->ndim) - 1) : 0;
    hk_status s = hk_reduce(HK_REDUCE_SUM, mask, all, &total, 0, stream);
    if (s == HK_SUCCESS)
        s = hk_stream_synchronize(stream);
    if (s == HK_SUCCESS)
        s = hk_memcpy_dtoh(count, sum, sizeof(int64_t));
    return hk__scratch_free(fn, sum, stream, s);
}

hk_status hk_mask_select(const hk_array *in, const hk_array *mask, const hk_array *out, hk_stream stream)
{
    static const char fn[] = "hk_mask_select";
    HK_TRY(hk__require_device(fn));
    size_t n = 0, n_in = 0, n_out = 0;
    uintptr_t first, last, out_first, out_last;
    HK_TRY(check_mask(fn, mask, &n));
    HK_TRY(hk__check_view(fn, "in", in, HK__VIEW_INT64_COUNT, &n_in, &first, &last));
    HK_TRY(hk__check_view(fn, "out", out, HK__VIEW_INT64_COUNT, &n_out, &out_first, &out_last));
    if (in->ndim != mask->ndim || memcmp(in->shape, mask->shape, sizeof(int64_t) * (size_t)in->ndim) != 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "mask must have in's shape (ndim %d and %d, or other extents)",
                        mask->ndim, in->ndim);
    if (out->ndim != 1 || out->dtype != in->dtype)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out must be 1-d with in's dtype %s (of hk_mask_count's length), not %d-d %s",
                        hk_dtype_name(in->dtype), out->ndim, hk_dtype_name(out->dtype));
    if (out_first < out_last && out_first < last && first < out_last)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out must not overlap in");
    if (n_out == 0)
        return HK_SUCCESS;
    const int64_t count = (int64_t)n_out;
    size_t item = 0;
    HK_TRY(hk_dtype_size(in->dtype, &item));
    void *mask_copy = NULL, *in_copy = NULL, *pos = NULL, *ext = NULL;
    hk_array m, x;
    hk_status s = flatten(fn, mask, (int64_t)n, &mask_copy, &m, stream);
    if (s == HK_SUCCESS)
        s = flatten(fn, in, (int64_t)n, &in_copy, &x, stream);
    if (s == HK_SUCCESS)
        s = hk__scratch_alloc(fn, &pos, n * sizeof(int64_t), stream);
    if (s == HK_SUCCESS)
        s = hk__scratch_alloc(fn, &ext, (size_t)(count + 1) * item, stream);
    const hk_array p = flat(pos, HK_INT64, (int64_t)n), e = flat(ext, in->dtype, count + 1);
    if (s == HK_SUCCESS)
        s = hk_scan(HK_SCAN_CUMSUM, &m, 0, &p, stream);
    const int64_t one = 1;
    hk_array args[3];
    memset(args, 0, sizeof args);
    if (s == HK_SUCCESS) {
        args[0] = p;
        args[1] = flat((void *)&one, HK_INT64, 1);
        args[1].ndim = HK_HOST_SCALAR;
        s = hk_elementwise(HK_OP_SUBTRACT, args, 2, &p, stream);
    }
    if (s == HK_SUCCESS) {
        args[0] = m;
        args[1] = p;
        args[2] = flat((void *)&count, HK_INT64, 1);
        args[2].ndim = HK_HOST_SCALAR;
        s = hk_elementwise(HK_OP_WHERE, args, 3, &p, stream);
    }
    if (s == HK_SUCCESS)
        s = hk_put(&x, &p, 0, &e, HK_TAKE_WRAP, stream); /* every index is in range: no check, no wait */
    if (s == HK_SUCCESS) {
        hk_array head = e;
        head.shape[0] = count;
        s = hk_copy_array(&head, out, stream);
    }
    s = hk__scratch_free(fn, ext, stream, s);
    s = hk__scratch_free(fn, pos, stream, s);
    s = hk__scratch_free(fn, in_copy, stream, s);
    return hk__scratch_free(fn, mask_copy, stream, s);
}
