/* matmul.c: hk_matmul, hk_matmul_vendor_available and hk_take: validation of every argument (views,
 * dtypes, shapes, broadcasting, axes, overlap) before the GPU is touched, and the layout the kernels
 * get (broadcast batch strides, coalesced dimensions, wider copy units for take); then the kind's
 * matmul and take entries, with the scratch they ask for. */
#include <stdio.h>
#include <string.h>

#include "core/device.h"
#include "core/handles.h"
#include "kinds/kind.h"
#include "ops/dense.h"
#include "ops/matmul_internal.h"
#include "ops/scratch.h"
#include "ops/view_check.h"

/* "(2, 3, 4)" into buf. */
static const char *shape_text(const int64_t *shape, int ndim, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "(");
    for (int k = 0; k < ndim && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", k ? ", " : "", (long long)shape[k]);
    if (ndim == 1 && used < size)
        used += (size_t)snprintf(buf + used, size - used, ",");
    if (used < size)
        snprintf(buf + used, size - used, ")");
    return buf;
}

/* out must not write one element twice: a 0 stride on an extent above 1 would (an empty out writes
 * nothing, whatever its strides). */
static hk_status refuse_repeated_out(const char *fn, const hk_array *out, size_t count)
{
    for (int k = 0; k < out->ndim && count > 0; k++)
        if (out->strides[k] == 0 && out->shape[k] > 1)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "out.strides[%d] is 0 with extent %lld: several results would go to one element", k,
                            (long long)out->shape[k]);
    return HK_SUCCESS;
}

static bool ranges_overlap(uintptr_t first_a, uintptr_t last_a, uintptr_t first_b, uintptr_t last_b)
{
    return first_a < last_b && first_b < last_a;
}

/* --------------------------------------------------------------------- matmul */

hk_status hk_matmul_vendor_available(int *available)
{
    if (!available)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, "hk_matmul_vendor_available", "available must not be NULL");
    *available = hk__kind_current()->vendor_blas_unavailable() == NULL;
    return hk__ok();
}

hk_status hk_matmul(const hk_array *a, const hk_array *b, const hk_array *out, hk_matmul_engine engine,
                    hk_stream stream)
{
    static const char fn[] = "hk_matmul";
    size_t n_a, n_b, n_out;
    uintptr_t a_first, a_last, b_first, b_last, out_first, out_last;
    HK_TRY(hk__check_view(fn, "a", a, HK__VIEW_INT64_EXTENTS, &n_a, &a_first, &a_last));
    HK_TRY(hk__check_view(fn, "b", b, HK__VIEW_INT64_EXTENTS, &n_b, &b_first, &b_last));
    HK_TRY(hk__check_view(fn, "out", out, HK__VIEW_INT64_EXTENTS, &n_out, &out_first, &out_last));
    const hk_array *views[3] = {a, b, out};
    static const char *const names[3] = {"a", "b", "out"};
    for (int i = 0; i < 3; i++)
        if (views[i]->ndim < 2)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "%s has %d dimension%s; hk_matmul needs at least 2 (a vector is a 1 x K or K x 1 "
                            "matrix: reshape it first)",
                            names[i], views[i]->ndim, views[i]->ndim == 1 ? "" : "s");
    if (a->dtype != b->dtype || a->dtype != out->dtype)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "a is %s, b is %s and out is %s: all three must have one dtype (cast with hk_copy_array)",
                        hk_dtype_name(a->dtype), hk_dtype_name(b->dtype), hk_dtype_name(out->dtype));
    if (a->dtype != HK_FLOAT32 && a->dtype != HK_FLOAT64)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s is not supported: hk_matmul does float32 and float64",
                        hk_dtype_name(a->dtype));
    if ((unsigned)engine > (unsigned)HK_MATMUL_VENDOR)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "engine %d is not a hk_matmul_engine (0..2)", (int)engine);

    char text_a[160], text_b[160], text_out[160];
    const int64_t m = a->shape[a->ndim - 2], k = a->shape[a->ndim - 1];
    const int64_t kb = b->shape[b->ndim - 2], n = b->shape[b->ndim - 1];
    if (k != kb)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "a's last dimension (K = %lld, a's shape %s) does not match b's second-to-last (%lld, b's "
                        "shape %s)",
                        (long long)k, shape_text(a->shape, a->ndim, text_a, sizeof text_a), (long long)kb,
                        shape_text(b->shape, b->ndim, text_b, sizeof text_b));

    /* Batch dimensions: NumPy's broadcasting of a.shape[:-2] and b.shape[:-2]. */
    const int a_nb = a->ndim - 2, b_nb = b->ndim - 2;
    const int nb = a_nb > b_nb ? a_nb : b_nb;
    int64_t result[HK_MAX_DIMS];
    for (int d = 0; d < nb; d++) {
        const int da = d - (nb - a_nb), db = d - (nb - b_nb);
        const int64_t ea = da >= 0 ? a->shape[da] : 1, eb = db >= 0 ? b->shape[db] : 1;
        if (ea != eb && ea != 1 && eb != 1)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "the batch dimensions of a %s and b %s do not broadcast: %lld against %lld",
                            shape_text(a->shape, a->ndim, text_a, sizeof text_a),
                            shape_text(b->shape, b->ndim, text_b, sizeof text_b), (long long)ea, (long long)eb);
        result[d] = ea == 1 ? eb : ea;
    }
    result[nb] = m;
    result[nb + 1] = n;
    bool shape_ok = out->ndim == nb + 2;
    for (int d = 0; shape_ok && d < nb + 2; d++)
        shape_ok = out->shape[d] == result[d];
    if (!shape_ok)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out has shape %s, but a %s @ b %s has shape %s",
                        shape_text(out->shape, out->ndim, text_out, sizeof text_out),
                        shape_text(a->shape, a->ndim, text_a, sizeof text_a),
                        shape_text(b->shape, b->ndim, text_b, sizeof text_b),
                        shape_text(result, nb + 2, (char[160]){0}, 160));
    HK_TRY(refuse_repeated_out(fn, out, n_out));
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (ranges_overlap(out_first, out_last, a_first, a_last) || ranges_overlap(out_first, out_last, b_first, b_last))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out overlaps %s in memory; write the product elsewhere",
                        ranges_overlap(out_first, out_last, a_first, a_last) ? "a" : "b");
    /* OWN never loads the vendor library. */
    const char *vendor_missing = engine == HK_MATMUL_OWN ? NULL : hk__kind_current()->vendor_blas_unavailable();
    if (engine == HK_MATMUL_VENDOR && vendor_missing)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn,
                        "engine HK_MATMUL_VENDOR was asked for, but %s (HK_MATMUL_OWN "
                        "or HK_MATMUL_AUTO work without it)",
                        vendor_missing);
    const int use_vendor = engine == HK_MATMUL_VENDOR || (engine == HK_MATMUL_AUTO && !vendor_missing);
    if (n_out == 0)
        return hk__ok();
    HK_TRY(hk__require_device(fn));

    /* Layout: strides of extent-1 dimensions are 0; batch strides broadcast (0 where an operand
     * repeats) and coalesced over a, b and out together. */
    hkk_matmul_args args;
    memset(&args, 0, sizeof args);
    args.dtype = a->dtype;
    args.m = m;
    args.n = n;
    args.k = k;
    args.a = a->data;
    args.b = b->data;
    args.out = out->data;
    args.a_rs = m == 1 ? 0 : a->strides[a->ndim - 2];
    args.a_cs = k == 1 ? 0 : a->strides[a->ndim - 1];
    args.b_rs = k == 1 ? 0 : b->strides[b->ndim - 2];
    args.b_cs = n == 1 ? 0 : b->strides[b->ndim - 1];
    args.o_rs = m == 1 ? 0 : out->strides[out->ndim - 2];
    args.o_cs = n == 1 ? 0 : out->strides[out->ndim - 1];
    int64_t shape[HK_MAX_DIMS], sa[HK_MAX_DIMS], sb[HK_MAX_DIMS], so[HK_MAX_DIMS];
    for (int d = 0; d < nb; d++) {
        const int da = d - (nb - a_nb), db = d - (nb - b_nb);
        shape[d] = result[d];
        sa[d] = da >= 0 && a->shape[da] != 1 ? a->strides[da] : 0;
        sb[d] = db >= 0 && b->shape[db] != 1 ? b->strides[db] : 0;
        so[d] = out->strides[d];
    }
    int64_t *const batch_strides[3] = {sa, sb, so};
    int batch_ndim = hk__coalesce_dims(nb, shape, batch_strides, 3);
    /* (..., M, K) @ (K, N) with a's batch walking on from its rows: one (batch * M) x K product. */
    if (batch_ndim == 1 && sb[0] == 0 && (m == 1 || (sa[0] == m * args.a_rs && so[0] == m * args.o_rs))) {
        if (m == 1) {
            args.a_rs = sa[0];
            args.o_rs = so[0];
        }
        args.m = m * shape[0];
        batch_ndim = 0;
    }
    /* Batch dims beyond what a kernel layout holds: one call per coordinate of the outer ones. */
    const int inner = batch_ndim < HKK_MATMUL_MAX_BATCH ? batch_ndim : HKK_MATMUL_MAX_BATCH,
              outer = batch_ndim - inner;
    args.batch_ndim = inner;
    args.batch_count = 1;
    for (int d = 0; d < inner; d++) {
        args.batch_shape[d] = shape[outer + d];
        args.a_bs[d] = sa[outer + d];
        args.b_bs[d] = sb[outer + d];
        args.o_bs[d] = so[outer + d];
        args.batch_count *= shape[outer + d];
    }
    const hk__kind *kind = hk__kind_current();
    hk__scratch_list scratch;
    kind->matmul_scratch(&args, use_vendor, &scratch);
    HK_TRY(hk__scratch_list_alloc(fn, &scratch, vendor_stream));
    const size_t item = a->dtype == HK_FLOAT32 ? 4 : 8;
    const int64_t launches = hk__outer_count(batch_ndim, shape, inner);
    hk_status s = HK_SUCCESS;
    for (int64_t p = 0; p < launches && s == HK_SUCCESS; p++) {
        int64_t off[3];
        hk__outer_offsets(p, batch_ndim, shape, batch_strides, 3, inner, off);
        args.a = (const char *)a->data + off[0] * (int64_t)item;
        args.b = (const char *)b->data + off[1] * (int64_t)item;
        args.out = (char *)out->data + off[2] * (int64_t)item;
        s = kind->matmul(fn, vendor_stream, &args, use_vendor, &scratch);
    }
    s = hk__scratch_list_free(fn, &scratch, vendor_stream, s);
    return s == HK_SUCCESS ? hk__ok() : s;
}

/* ----------------------------------------------------------------------- take */

int hk__widen_units(int ndim, int64_t *shape, int64_t *count, int64_t *axis_stride, int64_t *a_strides,
                    int64_t *b_strides, const void *a, const void *b, size_t item, size_t max_width)
{
    const int last = ndim - 1;
    for (size_t width = max_width; width > item; width /= 2) {
        const int64_t f = (int64_t)(width / item);
        bool ok =
            shape[last] % f == 0 && *axis_stride % f == 0 && (uintptr_t)a % width == 0 && (uintptr_t)b % width == 0;
        for (int d = 0; ok && d < last; d++)
            ok = a_strides[d] % f == 0 && b_strides[d] % f == 0;
        if (!ok)
            continue;
        shape[last] /= f;
        *count /= f;
        *axis_stride /= f;
        for (int d = 0; d < last; d++) {
            a_strides[d] /= f;
            b_strides[d] /= f;
        }
        return (int)width;
    }
    return 0;
}

/* Copy whole rows after the axis as wider units (up to 16 bytes) when they are contiguous in in and
 * out and every stride and both pointers allow it. */
static void widen_units(hkk_take_args *p, size_t item)
{
    const int last = p->ndim - 1;
    if (p->in_strides[last] != 1 || p->out_strides[last] != 1 || p->idx_strides[last] != 0)
        return;
    const int width = hk__widen_units(p->ndim, p->shape, &p->count, &p->axis_stride, p->in_strides, p->out_strides,
                                      p->in, p->out, item, 16);
    if (width)
        p->unit_bytes = width;
}

hk_status hk_take(const hk_array *in, const hk_array *indices, int axis, const hk_array *out, hk_take_mode mode,
                  hk_stream stream)
{
    static const char fn[] = "hk_take";
    size_t n_in, n_idx, n_out;
    uintptr_t in_first, in_last, idx_first, idx_last, out_first, out_last;
    HK_TRY(hk__check_view(fn, "in", in, HK__VIEW_INT64_EXTENTS, &n_in, &in_first, &in_last));
    HK_TRY(hk__check_view(fn, "indices", indices, HK__VIEW_INT64_EXTENTS, &n_idx, &idx_first, &idx_last));
    HK_TRY(hk__check_view(fn, "out", out, HK__VIEW_INT64_EXTENTS, &n_out, &out_first, &out_last));
    if (indices->dtype != HK_INT64)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "indices are %s; hk_take takes int64 indices (cast with "
                        "hk_copy_array)",
                        hk_dtype_name(indices->dtype));
    if (in->ndim == 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "axis %d is out of range: in is 0-d and has no axis", axis);
    if (axis < -in->ndim || axis >= in->ndim)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "axis %d is out of range for in with %d dimension%s", axis,
                        in->ndim, in->ndim == 1 ? "" : "s");
    const int ax = axis < 0 ? axis + in->ndim : axis;
    if ((unsigned)mode > (unsigned)HK_TAKE_CLIP)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "mode %d is not a hk_take_mode (0..2)", (int)mode);
    if (out->dtype != in->dtype)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out is %s but in is %s: take copies elements, the dtypes "
                        "must match",
                        hk_dtype_name(out->dtype), hk_dtype_name(in->dtype));
    const int result_ndim = in->ndim - 1 + indices->ndim;
    if (result_ndim > HK_MAX_DIMS)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "the result would have %d dimensions, more than HK_MAX_DIMS "
                        "(%d)",
                        result_ndim, HK_MAX_DIMS);
    int64_t result[HK_MAX_DIMS];
    int r = 0;
    for (int d = 0; d < ax; d++)
        result[r++] = in->shape[d];
    for (int d = 0; d < indices->ndim; d++)
        result[r++] = indices->shape[d];
    for (int d = ax + 1; d < in->ndim; d++)
        result[r++] = in->shape[d];
    bool shape_ok = out->ndim == result_ndim;
    for (int d = 0; shape_ok && d < result_ndim; d++)
        shape_ok = out->shape[d] == result[d];
    char text_out[160], text_result[160];
    if (!shape_ok)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out has shape %s, but taking along axis %d gives in.shape[:axis] + indices.shape + "
                        "in.shape[axis+1:] = %s",
                        shape_text(out->shape, out->ndim, text_out, sizeof text_out), ax,
                        shape_text(result, result_ndim, text_result, sizeof text_result));
    HK_TRY(refuse_repeated_out(fn, out, n_out));
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (ranges_overlap(out_first, out_last, in_first, in_last))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out overlaps in in memory; take into another buffer");
    if (ranges_overlap(out_first, out_last, idx_first, idx_last))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out overlaps indices in memory; take into another buffer");
    if (n_out == 0)
        return hk__ok();
    if (in->shape[ax] == 0)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "cannot do a non-empty take from an empty axis (axis %d of in has size 0)", ax);
    HK_TRY(hk__require_device(fn));

    size_t item;
    hk_dtype_size(in->dtype, &item);
    /* out's dimensions, each with its stride in in, indices and out, merged (up to HK_MAX_DIMS). */
    int64_t shape[HK_MAX_DIMS], st[3][HK_MAX_DIMS], idx_shape[HK_MAX_DIMS], idx_st[HK_MAX_DIMS];
    for (int d = 0; d < result_ndim; d++) {
        shape[d] = out->shape[d];
        st[2][d] = out->strides[d];
        const int i = d - ax; /* position among the indices' dimensions */
        if (d < ax) {
            st[0][d] = in->strides[d];
            st[1][d] = 0;
        } else if (i < indices->ndim) {
            st[0][d] = 0;
            st[1][d] = indices->strides[i];
        } else {
            st[0][d] = in->strides[ax + 1 + (i - indices->ndim)];
            st[1][d] = 0;
        }
    }
    int64_t *const strides[3] = {st[0], st[1], st[2]};
    const int ndim = hk__coalesce_dims(result_ndim, shape, strides, 3);
    /* The indices alone, for RAISE's check (coalescing keeps the C order of positions). */
    memcpy(idx_shape, indices->shape, (size_t)indices->ndim * sizeof *idx_shape);
    memcpy(idx_st, indices->strides, (size_t)indices->ndim * sizeof *idx_st);
    int64_t *const idx_strides[1] = {idx_st};
    const int idx_ndim = hk__coalesce_dims(indices->ndim, idx_shape, idx_strides, 1);
    if (ndim > HKK_MAX_DIMS || idx_ndim > HKK_MAX_DIMS) {
        /* Deeper than a kernel layout: on C-contiguous stand-ins, whose layout merges to at most 3 dims. */
        hk_array in_c, idx_c, out_c;
        void *in_copy = NULL, *idx_copy = NULL, *out_copy = NULL;
        hk_status s = hk__dense(fn, in, true, &in_c, &in_copy, stream, vendor_stream);
        if (s == HK_SUCCESS)
            s = hk__dense(fn, indices, true, &idx_c, &idx_copy, stream, vendor_stream);
        if (s == HK_SUCCESS)
            s = hk__dense(fn, out, false, &out_c, &out_copy, stream, vendor_stream);
        if (s == HK_SUCCESS)
            s = hk_take(&in_c, &idx_c, ax, &out_c, mode, stream);
        if (s == HK_SUCCESS && out_copy)
            s = hk_copy_array(&out_c, out, stream);
        s = hk__scratch_free(fn, out_copy, vendor_stream, s);
        s = hk__scratch_free(fn, idx_copy, vendor_stream, s);
        s = hk__scratch_free(fn, in_copy, vendor_stream, s);
        return s == HK_SUCCESS ? hk__ok() : s;
    }
    hkk_take_args args;
    memset(&args, 0, sizeof args);
    args.in = in->data;
    args.out = out->data;
    args.indices = (const int64_t *)indices->data;
    args.unit_bytes = (int)item;
    args.mode = (int)mode;
    args.count = (int64_t)n_out;
    args.axis_size = in->shape[ax];
    args.axis_stride = in->shape[ax] == 1 ? 0 : in->strides[ax];
    args.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        args.shape[d] = shape[d];
        args.in_strides[d] = st[0][d];
        args.idx_strides[d] = st[1][d];
        args.out_strides[d] = st[2][d];
    }
    if (args.ndim == 0) {
        args.ndim = 1;
        args.shape[0] = 1;
        args.in_strides[0] = args.idx_strides[0] = args.out_strides[0] = 0;
    }
    widen_units(&args, item);
    args.idx_ndim = idx_ndim;
    memcpy(args.idx_shape, idx_shape, (size_t)idx_ndim * sizeof *idx_shape);
    memcpy(args.idx_own_strides, idx_st, (size_t)idx_ndim * sizeof *idx_st);
    if (args.idx_ndim == 0) {
        args.idx_ndim = 1;
        args.idx_shape[0] = 1;
        args.idx_own_strides[0] = 0;
    }
    args.idx_count = (int64_t)n_idx;
    const hk__kind *kind = hk__kind_current();
    void *scratch;
    HK_TRY(hk__scratch_alloc(fn, &scratch, kind->take_scratch_bytes(&args), vendor_stream));
    hk_status s = hk__scratch_free(fn, scratch, vendor_stream, kind->take(fn, vendor_stream, &args, ax, scratch));
    return s == HK_SUCCESS ? hk__ok() : s;
}
