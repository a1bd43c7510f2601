/* scan_sort.c: hk_scan (cumsum, cumprod along an axis) and hk_sort (stable
 * sort / argsort along the last axis) over N-d strided views: validation of
 * every argument before the GPU is touched, then the layout the kernels
 * want (the scanned or sorted axis apart, the other dimensions coalesced),
 * then the kind, with the scratch it asks for. */
#include <string.h>

#include "../../hip_kernels/scan/scan.h"
#include "../../hip_kernels/sort/sort.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "core/layout.h"
#include "kinds/kind.h"
#include "ops/scratch.h"
#include "ops/view_check.h"

/* A 0-d view as 1-d of one element, so every later step sees ndim >= 1. */
static hk_array scan_sort_at_least_1d(const hk_array *a)
{
    hk_array v = *a;
    if (v.ndim == 0) {
        v.ndim = 1;
        v.shape[0] = 1;
        v.strides[0] = 1;
    }
    return v;
}

/* An output view of `in`'s shape (in 0-d: out 0-d or 1-d of one element), with
 * no stride 0 along an extent above 1 when it has elements (several results
 * would land on one element). */
static hk_status scan_sort_check_output_shape(const char *fn, const char *name, const hk_array *in, const hk_array *out,
                                              size_t out_count)
{
    if (in->ndim == 0) {
        if (!(out->ndim == 0 || (out->ndim == 1 && out->shape[0] == 1)))
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "%s has %d dimensions; for a 0-d in it must be 0-d or 1-d of one element", name, out->ndim);
    } else {
        if (out->ndim != in->ndim)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s has %d dimensions but in has %d; they must match", name,
                            out->ndim, in->ndim);
        for (int k = 0; k < in->ndim; k++)
            if (out->shape[k] != in->shape[k])
                return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                                "%s.shape[%d] is %lld but in.shape[%d] is %lld; the shapes must match", name, k,
                                (long long)out->shape[k], k, (long long)in->shape[k]);
    }
    for (int k = 0; k < out->ndim && out_count > 0; k++)
        if (out->shape[k] > 1 && out->strides[k] == 0)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "%s.strides[%d] is 0 along an extent of %lld: several results would land on one element",
                            name, k, (long long)out->shape[k]);
    return HK_SUCCESS;
}

/* Two views of one shape that address the same elements in the same way
 * (strides compared where the extent is above 1). */
static int scan_sort_same_view(const hk_array *a, const hk_array *b)
{
    if (a->data != b->data || a->dtype != b->dtype || a->ndim != b->ndim)
        return 0;
    for (int k = 0; k < a->ndim; k++)
        if (a->shape[k] > 1 && a->strides[k] != b->strides[k])
            return 0;
    return 1;
}

static int scan_sort_ranges_meet(uintptr_t a_first, uintptr_t a_last, uintptr_t b_first, uintptr_t b_last)
{
    return a_first < b_last && b_first < a_last;
}

/* The row dims before they are split for the kernels (up to HK_MAX_DIMS - 1). */
typedef struct wide_rows {
    int ndim;
    int64_t shape[HK_MAX_DIMS];
    int64_t strides[3][HK_MAX_DIMS];
} wide_rows;

/* The dimensions of `views[0]`'s shape except `skip`, in C order, extent-1
 * dims dropped, neighbours merged where every view walks them as one. */
static void scan_sort_rows(const hk_array *const *views, int nviews, int skip, wide_rows *rows)
{
    const hk_array *shape_of = views[0];
    int m = 0;
    memset(rows, 0, sizeof *rows);
    for (int k = 0; k < shape_of->ndim; k++) {
        if (k == skip)
            continue;
        const int64_t extent = shape_of->shape[k];
        if (extent == 1)
            continue;
        int merge = m > 0;
        for (int v = 0; v < nviews && merge; v++)
            merge = views[v]->strides[k] * extent == rows->strides[v][m - 1];
        if (merge) {
            rows->shape[m - 1] *= extent;
            for (int v = 0; v < nviews; v++)
                rows->strides[v][m - 1] = views[v]->strides[k];
            continue;
        }
        rows->shape[m] = extent;
        for (int v = 0; v < nviews; v++)
            rows->strides[v][m] = views[v]->strides[k];
        m++;
    }
    rows->ndim = m;
}

/* The kernels' rows layout: the inner HKK_MAX_DIMS row dims of `w` (all of them when it fits), with
 * *count rows; returns how many launches the outer dims need (1 when it fits). */
static int64_t scan_sort_split(const wide_rows *w, hkk_rows *rows, int64_t *count)
{
    const int inner = w->ndim < HKK_MAX_DIMS ? w->ndim : HKK_MAX_DIMS, outer = w->ndim - inner;
    memset(rows, 0, sizeof *rows);
    rows->ndim = inner;
    *count = 1;
    for (int k = 0; k < inner; k++) {
        rows->shape[k] = w->shape[outer + k];
        *count *= w->shape[outer + k];
        for (int v = 0; v < 3; v++)
            rows->strides[v][k] = w->strides[v][outer + k];
    }
    return hk__outer_count(w->ndim, w->shape, inner);
}

/* Element offsets, in each of the three views, of launch p's first row. */
static void scan_sort_launch_offsets(const wide_rows *w, int64_t p, int64_t *off)
{
    int64_t *lists[3] = {(int64_t *)w->strides[0], (int64_t *)w->strides[1], (int64_t *)w->strides[2]};
    const int inner = w->ndim < HKK_MAX_DIMS ? w->ndim : HKK_MAX_DIMS;
    hk__outer_offsets(p, w->ndim, w->shape, lists, 3, inner, off);
}

/* Does `a`, read in C order, walk one stride? (extent-1 dims ignored) */
static int scan_sort_flat(const hk_array *a, int64_t *stride)
{
    int m = 0;
    int64_t s = 1, extent = 1;
    for (int k = 0; k < a->ndim; k++) {
        if (a->shape[k] == 1)
            continue;
        if (m > 0 && a->strides[k] * a->shape[k] == s) {
            extent *= a->shape[k];
            s = a->strides[k];
            continue;
        }
        if (m > 0)
            return 0;
        s = a->strides[k];
        extent = a->shape[k];
        m++;
    }
    (void)extent;
    *stride = s;
    return 1;
}

static hk_dtype scan_sort_acc_dtype(hk_dtype d)
{
    switch (d) {
    case HK_BOOL:
    case HK_INT8:
    case HK_INT16:
    case HK_INT32:
    case HK_INT64: return HK_INT64;
    case HK_UINT8:
    case HK_UINT16:
    case HK_UINT32:
    case HK_UINT64: return HK_UINT64;
    default: return d;
    }
}

hk_status hk_scan(hk_scan_op op, const hk_array *in, int axis, const hk_array *out, hk_stream stream)
{
    static const char fn[] = "hk_scan";
    if ((unsigned)op > HK_SCAN_CUMPROD)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "op %d is not a hk_scan_op (0 cumsum, 1 cumprod)", (int)op);
    size_t n_in, n_out;
    uintptr_t in_first, in_last, out_first, out_last;
    HK_TRY(hk__check_view(fn, "in", in, 0, &n_in, &in_first, &in_last));
    HK_TRY(hk__check_view(fn, "out", out, 0, &n_out, &out_first, &out_last));
    const int ndim = in->ndim == 0 ? 1 : in->ndim;
    if (axis < -ndim || axis >= ndim)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "axis %d is out of range for in with %d dimension%s", axis,
                        in->ndim, in->ndim == 1 ? "" : "s");
    if (axis < 0)
        axis += ndim;
    if (in->dtype == HK_COMPLEX64 || in->dtype == HK_COMPLEX128)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn,
                        "in is %s: scans take real dtypes (a complex cumsum is the cumsums of its real and imaginary "
                        "parts, as hipkit.cumsum computes it)",
                        hk_dtype_name(in->dtype));
    const hk_dtype acc = scan_sort_acc_dtype(in->dtype);
    if (out->dtype != acc)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out.dtype is %s but the %s of %s is %s (NumPy's accumulation dtype)",
                        hk_dtype_name(out->dtype), op == HK_SCAN_CUMSUM ? "cumsum" : "cumprod",
                        hk_dtype_name(in->dtype), hk_dtype_name(acc));
    HK_TRY(scan_sort_check_output_shape(fn, "out", in, out, n_out));
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n_out == 0)
        return hk__ok();
    hk_array a = scan_sort_at_least_1d(in), b = scan_sort_at_least_1d(out);
    if (scan_sort_ranges_meet(in_first, in_last, out_first, out_last) && !scan_sort_same_view(&a, &b))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out overlaps in without being the same view (in place needs equal data, dtype and strides); "
                        "use a separate output");
    HK_TRY(hk__require_device(fn));

    hkk_scan_args args;
    memset(&args, 0, sizeof args);
    args.op = (int)op;
    args.in_dtype = in->dtype;
    args.in = in->data;
    args.out = out->data;
    args.length = a.shape[axis];
    args.in_stride = a.strides[axis];
    args.out_stride = b.strides[axis];
    const hk_array *views[2] = {&a, &b};
    wide_rows w;
    scan_sort_rows(views, 2, axis, &w);
    const int64_t launches = scan_sort_split(&w, &args.rows_layout, &args.rows);
    const hk__kind *kind = hk__kind_current();
    void *scratch;
    HK_TRY(hk__scratch_alloc(fn, &scratch, kind->scan_scratch_bytes(&args), vendor_stream));
    const size_t in_item = hk__dtype_bytes(in->dtype), out_item = hk__dtype_bytes(out->dtype);
    hk_status s = HK_SUCCESS;
    for (int64_t p = 0; p < launches && s == HK_SUCCESS; p++) { /* one unless the rows are deeper than 8 dims */
        int64_t off[3];
        scan_sort_launch_offsets(&w, p, off);
        args.in = (const char *)in->data + off[0] * (int64_t)in_item;
        args.out = (char *)out->data + off[1] * (int64_t)out_item;
        s = kind->scan(fn, vendor_stream, &args, scratch);
    }
    s = hk__scratch_free(fn, scratch, vendor_stream, s);
    return s == HK_SUCCESS ? hk__ok() : s;
}

/* 1-byte keys (bool, int8, uint8) in rows longer than the shared-memory sort takes go to the radix path,
 * which returned unsorted keys for them on the H200 (SortOnGpu.Bool/Int8/Uint8, 2026-11-29) while 2-byte
 * and wider keys sort correctly. Until that is found, such sorts go through int32: the keys are copied
 * to int32 (exact and order-preserving for all three), sorted there, and copied back. */
static hk_status sort_widened(const hk_array *in, const hk_array *keys_out, const hk_array *indices_out,
                              hk_stream stream, size_t n)
{
    hk_array wide;
    memset(&wide, 0, sizeof wide);
    wide.dtype = HK_INT32;
    wide.ndim = in->ndim;
    int64_t step = 1;
    for (int d = in->ndim - 1; d >= 0; d--) {
        wide.shape[d] = in->shape[d];
        wide.strides[d] = step;
        step *= in->shape[d] > 1 ? in->shape[d] : 1;
    }
    hk_array sorted = wide;
    hk_status s = hk_malloc_async(&wide.data, n * sizeof(int32_t), stream);
    if (s != HK_SUCCESS)
        return s;
    if (keys_out && (s = hk_malloc_async(&sorted.data, n * sizeof(int32_t), stream)) != HK_SUCCESS) {
        (void)hk_free_async(wide.data, stream);
        return s;
    }
    s = hk_copy_array(in, &wide, stream);
    if (s == HK_SUCCESS)
        s = hk_sort(&wide, keys_out ? &sorted : NULL, indices_out, stream);
    if (s == HK_SUCCESS && keys_out)
        s = hk_copy_array(&sorted, keys_out, stream);
    hk_status f = hk_free_async(wide.data, stream);
    if (keys_out) {
        hk_status g = hk_free_async(sorted.data, stream);
        f = f == HK_SUCCESS ? g : f;
    }
    return s == HK_SUCCESS ? f : s;
}

hk_status hk_sort(const hk_array *in, const hk_array *keys_out, const hk_array *indices_out, hk_stream stream)
{
    static const char fn[] = "hk_sort";
    size_t n_in, n_keys = 0, n_indices = 0;
    uintptr_t in_first, in_last, keys_first = 0, keys_last = 0, indices_first = 0, indices_last = 0;
    HK_TRY(hk__check_view(fn, "in", in, 0, &n_in, &in_first, &in_last));
    if (!keys_out && !indices_out)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "keys_out and indices_out are both NULL; ask for at least one");
    if (in->dtype == HK_COMPLEX64 || in->dtype == HK_COMPLEX128)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn,
                        "in is %s: complex numbers have no order to sort by (sort real(), imag() or abs() instead)",
                        hk_dtype_name(in->dtype));
    if (keys_out) {
        HK_TRY(hk__check_view(fn, "keys_out", keys_out, 0, &n_keys, &keys_first, &keys_last));
        if (keys_out->dtype != in->dtype)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "keys_out.dtype is %s but in's is %s; they must match",
                            hk_dtype_name(keys_out->dtype), hk_dtype_name(in->dtype));
        HK_TRY(scan_sort_check_output_shape(fn, "keys_out", in, keys_out, n_keys));
    }
    if (indices_out) {
        HK_TRY(hk__check_view(fn, "indices_out", indices_out, 0, &n_indices, &indices_first, &indices_last));
        if (indices_out->dtype != HK_INT64)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "indices_out.dtype is %s; argsort indices are int64",
                            hk_dtype_name(indices_out->dtype));
        HK_TRY(scan_sort_check_output_shape(fn, "indices_out", in, indices_out, n_indices));
    }
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n_in == 0)
        return hk__ok();
    hk_array a = scan_sort_at_least_1d(in);
    hk_array k = keys_out ? scan_sort_at_least_1d(keys_out) : a;
    hk_array x = indices_out ? scan_sort_at_least_1d(indices_out) : a;
    int in_place = 0;
    if (keys_out && scan_sort_ranges_meet(in_first, in_last, keys_first, keys_last)) {
        if (!scan_sort_same_view(&a, &k))
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "keys_out overlaps in without being the same view (an in-place sort needs equal data "
                            "and strides); use a separate output");
        in_place = 1;
    }
    if (indices_out && scan_sort_ranges_meet(in_first, in_last, indices_first, indices_last))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "indices_out overlaps in; use a separate output");
    if (keys_out && indices_out && scan_sort_ranges_meet(keys_first, keys_last, indices_first, indices_last))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "indices_out overlaps keys_out; use separate outputs");
    HK_TRY(hk__require_device(fn));
    if ((in->dtype == HK_BOOL || in->dtype == HK_INT8 || in->dtype == HK_UINT8) && a.shape[a.ndim - 1] > 2048) {
        hk_status w = sort_widened(in, keys_out, indices_out, stream, n_in);
        return w == HK_SUCCESS ? hk__ok() : w;
    }

    hkk_sort_args args;
    memset(&args, 0, sizeof args);
    args.dtype = in->dtype;
    args.in = in->data;
    args.keys = keys_out ? keys_out->data : NULL;
    args.indices = indices_out ? (int64_t *)indices_out->data : NULL;
    const int last = a.ndim - 1;
    args.length = a.shape[last];
    const hk_array *views[3] = {&a, &k, &x};
    wide_rows w;
    scan_sort_rows(views, 3, last, &w);
    const int64_t launches = scan_sort_split(&w, &args.rows_layout, &args.rows);
    for (int v = 0; v < 3; v++) {
        args.last_stride[v] = views[v]->strides[last];
        args.flat[v] = scan_sort_flat(views[v], &args.flat_stride[v]);
    }
    args.in_place = in_place;
    const hk__kind *kind = hk__kind_current();
    void *scratch;
    HK_TRY(hk__scratch_alloc(fn, &scratch, kind->sort_scratch_bytes(&args), vendor_stream));
    const size_t item = hk__dtype_bytes(in->dtype);
    hk_status s = HK_SUCCESS;
    for (int64_t p = 0; p < launches && s == HK_SUCCESS; p++) { /* one unless the rows are deeper than 8 dims */
        int64_t off[3];
        scan_sort_launch_offsets(&w, p, off);
        args.in = (const char *)in->data + off[0] * (int64_t)item;
        args.keys = keys_out ? (char *)keys_out->data + off[1] * (int64_t)item : NULL;
        args.indices = indices_out ? (int64_t *)indices_out->data + off[2] : NULL;
        s = kind->sort(fn, vendor_stream, &args, scratch);
    }
    s = hk__scratch_free(fn, scratch, vendor_stream, s);
    return s == HK_SUCCESS ? hk__ok() : s;
}
