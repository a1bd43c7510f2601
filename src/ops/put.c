/* put.c: hk_put, the inverse of hk_take: validation of every argument (views, dtypes, the
 * values' shape, axis, overlap) before the GPU is touched, and the layout the kernel gets (coalesced
 * dimensions, wider copy units for whole rows, out's own layout for a flat put); then the kind's put
 * entry, with the scratch it asks for. */
#include <stdio.h>
#include <string.h>

#include "core/device.h"
#include "core/handles.h"
#include "kinds/kind.h"
#include "ops/dense.h"
#include "ops/matmul_internal.h"
#include "ops/scratch.h"
#include "ops/view_check.h"

/* "(2, 3, 4)" (one dimension: "(5,)") into buf. */
static const char *put_shape_text(const int64_t *shape, int ndim, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "(");
    for (int k = 0; k < ndim && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", k ? ", " : "", (long long)shape[k]);
    if (used < size)
        snprintf(buf + used, size - used, "%s)", ndim == 1 ? "," : "");
    return buf;
}

/* Units of up to 8 bytes (never 16 for smaller elements: a wider store might tear between racing duplicates;
 * complex128 elements are 16-byte units of their own) for whole
 * rows after the axis, when they are contiguous in values and out and every stride and both
 * pointers allow it. */
static void put_widen_units(hkk_put_args *p, size_t item)
{
    const int last = p->ndim - 1;
    if (p->flat || p->values_strides[last] != 1 || p->out_strides[last] != 1 || p->idx_strides[last] != 0)
        return;
    const int width = hk__widen_units(p->ndim, p->shape, &p->count, &p->axis_stride, p->values_strides, p->out_strides,
                                      p->values, p->out, item, 8);
    if (width)
        p->unit_bytes = width;
}

/* Coalesce one stride list over `shape` (C order of positions kept); at least one dimension. */
static int put_coalesce_one(int ndim, int64_t *shape, int64_t *strides)
{
    int64_t *const list[1] = {strides};
    int n = hk__coalesce_dims(ndim, shape, list, 1);
    if (n == 0) {
        shape[0] = 1;
        strides[0] = 0;
        n = 1;
    }
    return n;
}

hk_status hk_put(const hk_array *values, const hk_array *indices, int axis, const hk_array *out, hk_take_mode mode,
                 hk_stream stream)
{
    static const char fn[] = "hk_put";
    size_t n_values, n_idx, n_out;
    uintptr_t v_first, v_last, idx_first, idx_last, out_first, out_last;
    HK_TRY(hk__check_view(fn, "values", values, HK__VIEW_INT64_EXTENTS, &n_values, &v_first, &v_last));
    HK_TRY(hk__check_view(fn, "indices", indices, HK__VIEW_INT64_EXTENTS, &n_idx, &idx_first, &idx_last));
    HK_TRY(hk__check_view(fn, "out", out, HK__VIEW_INT64_EXTENTS, &n_out, &out_first, &out_last));
    if (indices->dtype != HK_INT64)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "indices are %s; hk_put takes int64 indices (cast with "
                        "hk_copy_array)",
                        hk_dtype_name(indices->dtype));
    const bool flat = axis == HK_PUT_FLAT;
    if (!flat && out->ndim == 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "axis %d is out of range: out is 0-d and has no axis (use "
                        "HK_PUT_FLAT)",
                        axis);
    if (!flat && (axis < -out->ndim || axis >= out->ndim))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "axis %d is out of range for out with %d dimension%s", axis,
                        out->ndim, out->ndim == 1 ? "" : "s");
    const int ax = flat ? 0 : axis < 0 ? axis + out->ndim : axis;
    if ((unsigned)mode > (unsigned)HK_TAKE_CLIP)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "mode %d is not a hk_take_mode (0..2)", (int)mode);
    if (values->dtype != out->dtype)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "values are %s but out is %s: put copies elements, the "
                        "dtypes must match (convert values with hk_copy_array)",
                        hk_dtype_name(values->dtype), hk_dtype_name(out->dtype));
    /* values' shape: out.shape[:axis] + indices.shape + out.shape[axis+1:], or indices.shape (flat). */
    const int expect_ndim = flat ? indices->ndim : out->ndim - 1 + indices->ndim;
    if (expect_ndim > HK_MAX_DIMS)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "values would need %d dimensions, more than HK_MAX_DIMS (%d)",
                        expect_ndim, HK_MAX_DIMS);
    int64_t expect[HK_MAX_DIMS];
    int r = 0;
    for (int d = 0; !flat && d < ax; d++)
        expect[r++] = out->shape[d];
    for (int d = 0; d < indices->ndim; d++)
        expect[r++] = indices->shape[d];
    for (int d = ax + 1; !flat && d < out->ndim; d++)
        expect[r++] = out->shape[d];
    bool shape_ok = values->ndim == expect_ndim;
    for (int d = 0; shape_ok && d < expect_ndim; d++)
        shape_ok = values->shape[d] == expect[d];
    char text_values[160], text_expect[160];
    if (!shape_ok) {
        put_shape_text(values->shape, values->ndim, text_values, sizeof text_values);
        put_shape_text(expect, expect_ndim, text_expect, sizeof text_expect);
        if (flat)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "values have shape %s, but a flat put needs indices' "
                            "shape %s",
                            text_values, text_expect);
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "values have shape %s, but putting along axis %d needs "
                        "out.shape[:axis] + indices.shape + out.shape[axis+1:] = %s",
                        text_values, ax, text_expect);
    }
    for (int k = 0; k < out->ndim && n_out > 0; k++)
        if (out->strides[k] == 0 && out->shape[k] > 1)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "out.strides[%d] is 0 with extent %lld: several places would be one element", k,
                            (long long)out->shape[k]);
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n_out > 0 && n_values > 0 && out_first < v_last && v_first < out_last)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out overlaps values in memory; copy the values first");
    if (n_out > 0 && n_idx > 0 && out_first < idx_last && idx_first < out_last)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out overlaps indices in memory; copy the indices first");
    if (n_values == 0)
        return hk__ok();
    const int64_t axis_size = flat ? (int64_t)n_out : out->shape[ax];
    if (axis_size == 0)
        return flat ? hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "cannot put %zu values into an empty out", n_values)
                    : hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                               "cannot do a non-empty put into an empty axis (axis %d of out has size 0)", ax);
    HK_TRY(hk__require_device(fn));

    size_t item;
    hk_dtype_size(out->dtype, &item);
    /* values' dimensions, each with its stride in values, indices and out, merged (up to HK_MAX_DIMS);
     * the indices alone (RAISE's check) and, flat, out's own layout (a C-order position to an offset). */
    int64_t shape[HK_MAX_DIMS], st[3][HK_MAX_DIMS], idx_shape[HK_MAX_DIMS], idx_st[HK_MAX_DIMS];
    int64_t out_shape[HK_MAX_DIMS], out_st[HK_MAX_DIMS];
    memset(st, 0, sizeof st);
    for (int d = 0; d < expect_ndim; d++) {
        shape[d] = values->shape[d];
        st[0][d] = values->strides[d];
        const int i = flat ? d : d - ax; /* position among the indices' dimensions */
        if (!flat && d < ax) {
            st[2][d] = out->strides[d];
        } else if (i < indices->ndim) {
            st[1][d] = indices->strides[i];
        } else {
            st[2][d] = out->strides[ax + 1 + (i - indices->ndim)];
        }
    }
    int64_t *const strides[3] = {st[0], st[1], st[2]};
    const int ndim = hk__coalesce_dims(expect_ndim, shape, strides, 3);
    memcpy(idx_shape, indices->shape, (size_t)indices->ndim * sizeof *idx_shape);
    memcpy(idx_st, indices->strides, (size_t)indices->ndim * sizeof *idx_st);
    const int idx_ndim = put_coalesce_one(indices->ndim, idx_shape, idx_st);
    int out_ndim = 0;
    if (flat) {
        memcpy(out_shape, out->shape, (size_t)out->ndim * sizeof *out_shape);
        memcpy(out_st, out->strides, (size_t)out->ndim * sizeof *out_st);
        out_ndim = put_coalesce_one(out->ndim, out_shape, out_st);
    }
    if (ndim > HKK_MAX_DIMS || idx_ndim > HKK_MAX_DIMS || out_ndim > HKK_MAX_DIMS) {
        /* Deeper than a kernel layout: on C-contiguous stand-ins (out's holds out's elements and goes back
         * to out), whose layouts merge to at most 3 dims. */
        hk_array v_c, idx_c, out_c;
        void *v_copy = NULL, *idx_copy = NULL, *out_copy = NULL;
        hk_status s = hk__dense(fn, values, true, &v_c, &v_copy, stream, vendor_stream);
        if (s == HK_SUCCESS)
            s = hk__dense(fn, indices, true, &idx_c, &idx_copy, stream, vendor_stream);
        if (s == HK_SUCCESS)
            s = hk__dense(fn, out, true, &out_c, &out_copy, stream, vendor_stream);
        if (s == HK_SUCCESS)
            s = hk_put(&v_c, &idx_c, axis, &out_c, mode, stream);
        if (s == HK_SUCCESS && out_copy)
            s = hk_copy_array(&out_c, out, stream);
        s = hk__scratch_free(fn, out_copy, vendor_stream, s);
        s = hk__scratch_free(fn, idx_copy, vendor_stream, s);
        s = hk__scratch_free(fn, v_copy, vendor_stream, s);
        return s == HK_SUCCESS ? hk__ok() : s;
    }
    hkk_put_args args;
    memset(&args, 0, sizeof args);
    args.values = values->data;
    args.out = out->data;
    args.indices = (const int64_t *)indices->data;
    args.unit_bytes = (int)item;
    args.mode = (int)mode;
    args.flat = flat;
    args.count = (int64_t)n_values;
    args.axis_size = axis_size;
    args.axis_stride = flat || out->shape[ax] == 1 ? 0 : out->strides[ax];
    args.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        args.shape[d] = shape[d];
        args.values_strides[d] = st[0][d];
        args.idx_strides[d] = st[1][d];
        args.out_strides[d] = st[2][d];
    }
    if (args.ndim == 0) {
        args.ndim = 1;
        args.shape[0] = 1;
        args.values_strides[0] = args.idx_strides[0] = args.out_strides[0] = 0;
    }
    if (flat) {
        args.out_ndim = out_ndim;
        memcpy(args.out_shape, out_shape, (size_t)out_ndim * sizeof *out_shape);
        memcpy(args.out_own_strides, out_st, (size_t)out_ndim * sizeof *out_st);
    }
    put_widen_units(&args, item);
    /* RAISE's check runs take's check kernel over the indices alone. */
    hkk_take_args check;
    memset(&check, 0, sizeof check);
    check.indices = args.indices;
    check.mode = (int)mode;
    check.axis_size = axis_size;
    check.idx_count = (int64_t)n_idx;
    check.idx_ndim = idx_ndim;
    memcpy(check.idx_shape, idx_shape, (size_t)idx_ndim * sizeof *idx_shape);
    memcpy(check.idx_own_strides, idx_st, (size_t)idx_ndim * sizeof *idx_st);
    const hk__kind *kind = hk__kind_current();
    const hkk_take_args *raise = mode == HK_TAKE_RAISE ? &check : NULL;
    void *scratch;
    HK_TRY(hk__scratch_alloc(fn, &scratch, kind->put_scratch_bytes(&args, raise), vendor_stream));
    hk_status s = hk__scratch_free(fn, scratch, vendor_stream, kind->put(fn, vendor_stream, &args, raise, ax, scratch));
    return s == HK_SUCCESS ? hk__ok() : s;
}
