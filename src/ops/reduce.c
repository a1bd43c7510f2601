/* reduce.c: hk_reduce: validation of the views, axes, dtypes and overlap,
 * then the layout the kernels want: (kept dims) x (reduced dims), size-1 dims
 * dropped, reversed dims flipped, dims sorted by input stride and mergeable
 * neighbours merged (see hip_kernels/reduce/reduce.h for the rules). */
#include <stdio.h>
#include <string.h>

#include "../../hip_kernels/reduce/reduce.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "core/layout.h"
#include "kinds/kind.h"
#include "ops/reduce_internal.h"
#include "ops/scratch.h"
#include "ops/view_check.h"

static const char *const reduce_op_names[] = {"sum", "prod", "min",  "max", "argmin", "argmax",
                                              "any", "all",  "mean", "var", "std"};

const char *hk_reduce_op_name(hk_reduce_op op)
{
    return (unsigned)op < (unsigned)HK_REDUCE_COUNT ? reduce_op_names[op] : "invalid";
}

/* "(3, 1, 5)" into buf. */
static const char *reduce_format_shape(const int64_t *shape, int ndim, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    used += (size_t)snprintf(buf + used, size - used, "(");
    for (int k = 0; k < ndim && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, k ? ", %lld" : "%lld", (long long)shape[k]);
    if (ndim == 1 && used < size)
        used += (size_t)snprintf(buf + used, size - used, ",");
    if (used < size)
        snprintf(buf + used, size - used, ")");
    return buf;
}

/* A reduction whose merged layout is deeper than a kernel layout: `in` copied into scratch with its
 * kept dims first and its reduced dims last (each group in order, so ARGMIN/ARGMAX's C-order position
 * is unchanged), which is (kept, reduced) as two dims; reduced into out directly when out walks as one
 * dim, else into scratch copied to out. `kept` is the product of the kept extents, `count` of the
 * reduced ones (both >= 1 here). */
static hk_status reduce_deep(const char *fn, hk_reduce_op op, const hk_array *in, uint32_t axes, const hk_array *out,
                             int ddof, hk_stream stream, void *vendor_stream, int64_t kept, int64_t count)
{
    const size_t in_item = hk__dtype_bytes(in->dtype), out_item = hk__dtype_bytes(out->dtype);
    hk_array perm, packed, pair, flat_out, packed_out;
    memset(&perm, 0, sizeof perm);
    perm.data = in->data;
    perm.dtype = in->dtype;
    perm.ndim = in->ndim;
    int d = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < in->ndim; k++)
            if ((int)(axes >> k & 1u) == pass) {
                perm.shape[d] = in->shape[k];
                perm.strides[d++] = in->strides[k];
            }
    void *in_copy = NULL, *out_copy = NULL;
    HK_TRY(hk__scratch_alloc(fn, &in_copy, (size_t)(kept * count) * in_item, vendor_stream));
    packed = perm;
    packed.data = in_copy;
    int64_t step = 1;
    for (int k = perm.ndim - 1; k >= 0; k--) {
        packed.strides[k] = step;
        step *= perm.shape[k];
    }
    memset(&pair, 0, sizeof pair);
    pair.data = in_copy;
    pair.dtype = in->dtype;
    pair.ndim = 2;
    pair.shape[0] = kept;
    pair.shape[1] = count;
    pair.strides[0] = count;
    pair.strides[1] = 1;
    /* out as one dim of `kept` elements, when its own walk merges into one */
    int64_t oshape[HK_MAX_DIMS], ostrides[HK_MAX_DIMS];
    int64_t *olist[1] = {ostrides};
    memcpy(oshape, out->shape, (size_t)out->ndim * sizeof *oshape);
    memcpy(ostrides, out->strides, (size_t)out->ndim * sizeof *ostrides);
    const int merged = hk__coalesce_dims(out->ndim, oshape, olist, 1);
    memset(&flat_out, 0, sizeof flat_out);
    flat_out.data = out->data;
    flat_out.dtype = out->dtype;
    flat_out.ndim = 1;
    flat_out.shape[0] = kept;
    flat_out.strides[0] = merged == 1 ? ostrides[0] : 1;
    hk_status s = hk_copy_array(&perm, &packed, stream);
    if (s == HK_SUCCESS && merged > 1)
        s = hk__scratch_alloc(fn, &out_copy, (size_t)kept * out_item, vendor_stream);
    if (s == HK_SUCCESS) {
        if (out_copy)
            flat_out.data = out_copy;
        s = hk_reduce(op, &pair, 2u, &flat_out, ddof, stream);
    }
    if (s == HK_SUCCESS && out_copy) {
        packed_out = *out;
        packed_out.data = out_copy;
        step = 1;
        for (int k = out->ndim - 1; k >= 0; k--) {
            packed_out.strides[k] = step;
            step *= out->shape[k];
        }
        s = hk_copy_array(&packed_out, out, stream);
    }
    s = hk__scratch_free(fn, out_copy, vendor_stream, s);
    return hk__scratch_free(fn, in_copy, vendor_stream, s);
}

hk_status hk_reduce(hk_reduce_op op, const hk_array *in, uint32_t axes, const hk_array *out, int ddof, hk_stream stream)
{
    static const char fn[] = "hk_reduce";
    if ((unsigned)op >= (unsigned)HK_REDUCE_COUNT)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "op %d is not a hk_reduce_op (0..%d)", (int)op,
                        (int)HK_REDUCE_COUNT - 1);
    const char *name = reduce_op_names[op];
    size_t n_in, n_out;
    uintptr_t in_first, in_last, out_first, out_last;
    HK_TRY(hk__check_view(fn, "in", in, HK__VIEW_INT64_COUNT, &n_in, &in_first, &in_last));
    HK_TRY(hk__check_view(fn, "out", out, HK__VIEW_INT64_COUNT, &n_out, &out_first, &out_last));
    if (in->ndim < 32 && (axes >> in->ndim) != 0) {
        int bit = in->ndim;
        while (!(axes >> bit & 1u))
            bit++;
        if (in->ndim == 0)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "axes (0x%x) has bit %d set, but in has 0 dimensions (a 0-d input takes axes 0)", axes,
                            bit);
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "axes (0x%x) has bit %d set, but in has %d dimension%s (bits 0..%d)", axes, bit, in->ndim,
                        in->ndim == 1 ? "" : "s", in->ndim - 1);
    }
    const int reduced = reduce_popcount(axes);
    const int indexed = op == HK_REDUCE_ARGMIN || op == HK_REDUCE_ARGMAX;
    const uint32_t all_axes = in->ndim ? (uint32_t)((1ull << in->ndim) - 1) : 0u;
    if (indexed && reduced != 1 && axes != all_axes)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "%s needs one axis or all of them, but axes (0x%x) names %d of in's %d dimensions", name, axes,
                        reduced, in->ndim);
    if ((in->dtype == HK_COMPLEX64 || in->dtype == HK_COMPLEX128) && op != HK_REDUCE_SUM && op != HK_REDUCE_PROD &&
        op != HK_REDUCE_MEAN)
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn,
                        "%s of %s is not supported: complex numbers have no order (min, max, argmin, argmax), and "
                        "any, all, var and std take real dtypes (use abs() or real()/imag() first)",
                        name, hk_dtype_name(in->dtype));
    const hk_dtype want = reduce_out_dtype(op, in->dtype);
    if (out->dtype != want)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out.dtype is %s, but %s of %s gives %s",
                        hk_dtype_name(out->dtype), name, hk_dtype_name(in->dtype), hk_dtype_name(want));
    /* out's shape: in's without the reduced axes, or with them as 1 (keepdims). */
    const int keepdims = out->ndim == in->ndim && reduced > 0;
    int64_t expect[HK_MAX_DIMS];
    int ne = 0;
    for (int k = 0; k < in->ndim; k++) {
        if (!(axes >> k & 1u))
            expect[ne++] = in->shape[k];
        else if (keepdims)
            expect[ne++] = 1;
    }
    int shape_ok = out->ndim == ne;
    for (int k = 0; shape_ok && k < ne; k++)
        shape_ok = out->shape[k] == expect[k];
    if (!shape_ok) {
        char got[160], dropped[160], kept[160], whole[160];
        int64_t with_ones[HK_MAX_DIMS];
        int nd = 0;
        for (int k = 0; k < in->ndim; k++)
            if (!(axes >> k & 1u))
                expect[nd++] = in->shape[k];
        for (int k = 0; k < in->ndim; k++)
            with_ones[k] = axes >> k & 1u ? 1 : in->shape[k];
        reduce_format_shape(out->shape, out->ndim, got, sizeof got);
        reduce_format_shape(expect, nd, dropped, sizeof dropped);
        reduce_format_shape(with_ones, in->ndim, kept, sizeof kept);
        if (reduced == 0)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out.shape is %s, but reducing no axis needs %s", got,
                            dropped);
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out.shape is %s, but %s over axes 0x%x of in %s needs %s (or %s with keepdims)", got, name,
                        axes, reduce_format_shape(in->shape, in->ndim, whole, sizeof whole), dropped, kept);
    }
    for (int k = 0; k < out->ndim; k++)
        if (out->shape[k] > 1 && out->strides[k] == 0)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "out.strides[%d] is 0 along an extent of %lld: several results would land on one element",
                            k, (long long)out->shape[k]);
    void *vendor_stream = NULL;
    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n_out == 0)
        return hk__ok();
    int64_t count = 1;
    for (int k = 0; k < in->ndim; k++)
        if (axes >> k & 1u)
            count *= in->shape[k];
    if (count == 0 && (op == HK_REDUCE_MIN || op == HK_REDUCE_MAX || indexed))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "zero-size reduction: %s over an empty extent has no identity (in has 0 elements along the "
                        "reduced axes)",
                        name);
    if (n_in > 0 && in_first < out_last && out_first < in_last)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out overlaps in in memory; use a separate output");
    HK_TRY(hk__require_device(fn));
    hkk_reduce_layout layout;
    int64_t in_off, out_off;
    if (!reduce_build_layout(in, axes, out, keepdims, indexed, &layout, &in_off, &out_off)) {
        hk_status s = reduce_deep(fn, op, in, axes, out, ddof, stream, vendor_stream, (int64_t)n_out, count);
        return s == HK_SUCCESS ? hk__ok() : s;
    }
    size_t in_item, out_item;
    (void)hk_dtype_size(in->dtype, &in_item);
    (void)hk_dtype_size(out->dtype, &out_item);
    /* An empty reduction reads nothing: in may be NULL then. */
    const void *in_origin = count > 0 ? (const char *)in->data + in_off * (int64_t)in_item : in->data;
    void *out_origin = (char *)out->data + out_off * (int64_t)out_item;
    const hk__kind *kind = hk__kind_current();
    void *scratch;
    const size_t scratch_bytes = kind->reduce_scratch_bytes(op, in->dtype, in_origin, &layout);
    HK_TRY(hk__scratch_alloc(fn, &scratch, scratch_bytes, vendor_stream));
    hk_status s = kind->reduce(fn, vendor_stream, op, in->dtype, in_origin, out_origin, &layout, ddof, scratch);
    s = hk__scratch_free(fn, scratch, vendor_stream, s);
    return s == HK_SUCCESS ? hk__ok() : s;
}
