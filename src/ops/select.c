/* select.c: boolean-mask selection (NumPy's x[mask]) and the positions of a mask's true elements
 * (NumPy's nonzero / flatnonzero) on the device: hk_mask_count reads back the one number the
 * result's size needs; hk_mask_select and hk_mask_positions then fill the result asynchronously,
 * with the kind's stream compaction (hip_kernels/index/compact.h). The compaction takes a
 * contiguous mask (and, for values, a contiguous `in`): other views are first copied into C-order
 * scratch. */
#include <string.h>

#include "../../hip_kernels/index/compact.h"
#include "core/device.h"
#include "core/handles.h"
#include "kinds/kind.h"
#include "ops/dense.h"
#include "ops/scratch.h"
#include "ops/view_check.h"

/* `a`'s data as a C-order run of its elements: itself when contiguous, else a scratch copy in *copy
 * (src/ops/dense.c). */
static hk_status flatten(const char *fn, const hk_array *a, void **copy, const void **data, hk_stream stream,
                         void *vendor_stream)
{
    hk_array dense;
    HK_TRY(hk__dense(fn, a, true, &dense, copy, stream, vendor_stream));
    *data = dense.data;
    return HK_SUCCESS;
}

static hk_status check_mask(const char *fn, const hk_array *mask, size_t *count, uintptr_t *first, uintptr_t *last)
{
    HK_TRY(hk__check_view(fn, "mask", mask, HK__VIEW_INT64_COUNT, count, first, last));
    if (mask->dtype != HK_BOOL)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "mask must be bool (hk_dtype %d), not %s", HK_BOOL,
                        hk_dtype_name(mask->dtype));
    return HK_SUCCESS;
}

static int ranges_meet(uintptr_t a_first, uintptr_t a_last, uintptr_t b_first, uintptr_t b_last)
{
    return a_first < a_last && b_first < b_last && a_first < b_last && b_first < a_last;
}

/* The mask's data in C order (flattened first when it is not contiguous), then the kind's compaction
 * with the scratch it asks for. args has everything but mask set. */
static hk_status compact(const char *fn, const hk_array *mask, const hk_array *in, hkk_compact_args *args,
                         hk_stream stream, void *vendor_stream)
{
    void *mask_copy = NULL, *in_copy = NULL, *scratch = NULL;
    const void *in_data = NULL;
    hk_status s = flatten(fn, mask, &mask_copy, &args->mask, stream, vendor_stream);
    if (s == HK_SUCCESS && in) {
        s = flatten(fn, in, &in_copy, &in_data, stream, vendor_stream);
        args->in = in_data;
    }
    const hk__kind *kind = hk__kind_current();
    if (s == HK_SUCCESS)
        s = hk__scratch_alloc(fn, &scratch, kind->compact_scratch_bytes(args), vendor_stream);
    if (s == HK_SUCCESS)
        s = kind->compact(fn, vendor_stream, args, scratch);
    s = hk__scratch_free(fn, scratch, vendor_stream, s);
    s = hk__scratch_free(fn, in_copy, vendor_stream, s);
    s = hk__scratch_free(fn, mask_copy, vendor_stream, s);
    return s == HK_SUCCESS ? hk__ok() : s;
}

hk_status hk_mask_count(const hk_array *mask, int64_t *count, hk_stream stream)
{
    static const char fn[] = "hk_mask_count";
    if (!count)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "count is NULL");
    *count = 0;
    HK_TRY(hk__require_device(fn));
    size_t n = 0;
    uintptr_t first, last;
    HK_TRY(check_mask(fn, mask, &n, &first, &last));
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n == 0)
        return HK_SUCCESS;
    void *sum = NULL;
    HK_TRY(hk__scratch_alloc(fn, &sum, sizeof(int64_t), vendor_stream));
    hk_array total;
    memset(&total, 0, sizeof total);
    total.data = sum;
    total.dtype = HK_INT64;
    total.ndim = 0;
    const uint32_t all = mask->ndim ? (uint32_t)((1ull << mask->ndim) - 1) : 0;
    hk_status s = hk_reduce(HK_REDUCE_SUM, mask, all, &total, 0, stream);
    if (s == HK_SUCCESS)
        s = hk_stream_synchronize(stream);
    if (s == HK_SUCCESS)
        s = hk_memcpy_dtoh(count, sum, sizeof(int64_t));
    return hk__scratch_free(fn, sum, vendor_stream, s);
}

hk_status hk_mask_select(const hk_array *in, const hk_array *mask, const hk_array *out, hk_stream stream)
{
    static const char fn[] = "hk_mask_select";
    HK_TRY(hk__require_device(fn));
    size_t n = 0, n_in = 0, n_out = 0;
    uintptr_t mask_first, mask_last, first, last, out_first, out_last;
    HK_TRY(check_mask(fn, mask, &n, &mask_first, &mask_last));
    HK_TRY(hk__check_view(fn, "in", in, HK__VIEW_INT64_COUNT, &n_in, &first, &last));
    HK_TRY(hk__check_view(fn, "out", out, HK__VIEW_INT64_COUNT, &n_out, &out_first, &out_last));
    if (in->ndim != mask->ndim || memcmp(in->shape, mask->shape, sizeof(int64_t) * (size_t)in->ndim) != 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "mask must have in's shape (ndim %d and %d, or other extents)",
                        mask->ndim, in->ndim);
    if (out->ndim != 1 || out->dtype != in->dtype)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out must be 1-d with in's dtype %s (of hk_mask_count's length), not %d-d %s",
                        hk_dtype_name(in->dtype), out->ndim, hk_dtype_name(out->dtype));
    if (out->shape[0] > 1 && out->strides[0] == 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out.strides[0] is 0 along an extent of %lld: several results would land on one element",
                        (long long)out->shape[0]);
    if (ranges_meet(out_first, out_last, first, last))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out must not overlap in");
    if (ranges_meet(out_first, out_last, mask_first, mask_last))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out must not overlap mask");
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n_out == 0 || n == 0)
        return HK_SUCCESS;
    size_t item = 0;
    HK_TRY(hk_dtype_size(in->dtype, &item));
    hkk_compact_args args;
    memset(&args, 0, sizeof args);
    args.mode = HKK_COMPACT_VALUES;
    args.n = (int64_t)n;
    args.count = (int64_t)n_out;
    args.item_bytes = (int)item;
    args.out = out->data;
    args.out_stride = out->strides[0];
    return compact(fn, mask, in, &args, stream, vendor_stream);
}

hk_status hk_mask_positions(const hk_array *mask, const hk_array *out, hk_stream stream)
{
    static const char fn[] = "hk_mask_positions";
    HK_TRY(hk__require_device(fn));
    size_t n = 0, n_out = 0;
    uintptr_t mask_first, mask_last, out_first, out_last;
    HK_TRY(check_mask(fn, mask, &n, &mask_first, &mask_last));
    HK_TRY(hk__check_view(fn, "out", out, HK__VIEW_INT64_COUNT, &n_out, &out_first, &out_last));
    if (out->dtype != HK_INT64 || out->ndim != 2)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out must be a 2-d int64 array of shape (k, count), k being mask.ndim (%d) for coordinates "
                        "or 1 for flat C-order positions, not %d-d %s",
                        mask->ndim, out->ndim, hk_dtype_name(out->dtype));
    const int64_t k = out->shape[0], count = out->shape[1];
    if (k != mask->ndim && k != 1)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out.shape[0] is %lld; it must be mask.ndim (%d), for coordinates, or 1, for flat C-order "
                        "positions",
                        (long long)k, mask->ndim);
    if (k > HKK_COMPACT_MAX_DIMS)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "mask has %d dimensions; coordinates are written for at most %d (ask for flat positions, "
                        "out.shape[0] == 1)",
                        mask->ndim, HKK_COMPACT_MAX_DIMS);
    if (count > 1 && out->strides[1] == 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out.strides[1] is 0 along an extent of %lld: several results would land on one element",
                        (long long)count);
    if (k > 1 && count > 0 && out->strides[0] == 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out.strides[0] is 0 along an extent of %lld: the coordinate rows would land on one another",
                        (long long)k);
    if (ranges_meet(out_first, out_last, mask_first, mask_last))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out must not overlap mask");
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n_out == 0 || n == 0)
        return HK_SUCCESS;
    hkk_compact_args args;
    memset(&args, 0, sizeof args);
    args.mode = HKK_COMPACT_POSITIONS;
    args.n = (int64_t)n;
    args.count = count;
    args.ndim = k == 1 ? 1 : mask->ndim; /* a 1-d mask's coordinates are its flat positions */
    for (int d = 0; d < args.ndim; d++) {
        args.shape[d] = k == 1 ? (int64_t)n : mask->shape[d];
        args.rows[d] = (int64_t *)out->data + (int64_t)d * out->strides[0];
        args.row_strides[d] = out->strides[1];
    }
    return compact(fn, mask, NULL, &args, stream, vendor_stream);
}
