/* reduce_internal.h: the pure parts of hk_reduce (src/ops/reduce.c): the output
 * dtype of each op, and the normalisation of (in, axes, out) into the
 * kernels' layout. Header-only and valid C and C++, so the host-emulated
 * kernel tests (tests/c/test_reduce_emulated.cpp) build layouts exactly as
 * the library does. Arguments arrive validated. */
#ifndef HIPKIT_REDUCE_INTERNAL_H
#define HIPKIT_REDUCE_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "../../hip_kernels/reduce/reduce.h"
#include "hipkit/hipkit.h"

/* The dtype hk_reduce writes for op over `in` (see hipkit.h). */
static inline hk_dtype reduce_out_dtype(hk_reduce_op op, hk_dtype in)
{
    switch (op) {
    case HK_REDUCE_SUM:
    case HK_REDUCE_PROD:
        switch (in) {
        case HK_UINT8:
        case HK_UINT16:
        case HK_UINT32:
        case HK_UINT64: return HK_UINT64;
        case HK_FLOAT16:
        case HK_FLOAT32:
        case HK_FLOAT64:
        case HK_COMPLEX64:
        case HK_COMPLEX128: return in;
        default: return HK_INT64;
        }
    case HK_REDUCE_MIN:
    case HK_REDUCE_MAX: return in;
    case HK_REDUCE_ARGMIN:
    case HK_REDUCE_ARGMAX: return HK_INT64;
    case HK_REDUCE_ANY:
    case HK_REDUCE_ALL: return HK_BOOL;
    case HK_REDUCE_MEAN:
        return in == HK_FLOAT16 || in == HK_FLOAT32 || in == HK_FLOAT64 || in == HK_COMPLEX64 || in == HK_COMPLEX128
                   ? in
                   : HK_FLOAT64;
    default: /* VAR STD */ return in == HK_FLOAT16 || in == HK_FLOAT32 || in == HK_FLOAT64 ? in : HK_FLOAT64;
    }
}

static inline int reduce_popcount(uint32_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* One dim of a layout under construction. */
typedef struct reduce_dim {
    int64_t extent, in, out;
} reduce_dim;

static inline void reduce_set_dim(reduce_dim *d, int64_t extent, int64_t in, int64_t out)
{
    d->extent = extent;
    d->in = in;
    d->out = out;
}

/* Stable sort by input stride, descending (insertion sort: at most 8 dims). */
static inline void reduce_sort_dims(reduce_dim *d, int n)
{
    for (int i = 1; i < n; i++) {
        reduce_dim x = d[i];
        int j = i;
        for (; j > 0 && d[j - 1].in < x.in; j--)
            d[j] = d[j - 1];
        d[j] = x;
    }
}

/* Merge neighbours (outer a, inner b) that are one dim of extent a*b:
 * a.in == b.in * b.extent (and the same for out when with_out). */
static inline int reduce_merge_dims(reduce_dim *d, int n, int with_out)
{
    int m = 0;
    for (int k = 0; k < n; k++) {
        if (m > 0) {
            reduce_dim *a = &d[m - 1];
            if (a->in == d[k].in * d[k].extent && (!with_out || a->out == d[k].out * d[k].extent)) {
                a->extent *= d[k].extent;
                a->in = d[k].in;
                a->out = d[k].out;
                continue;
            }
        }
        d[m++] = d[k];
    }
    return m;
}

/* Fills the kernels' layout; *in_off / *out_off are the element offsets of
 * the new origins (flipped dims start at their other end). Returns 0, L untouched, when the merged
 * kept or reduced dims are more than a kernel layout holds (HKK_MAX_DIMS); else 1. */
static inline int reduce_build_layout(const hk_array *in, uint32_t axes, const hk_array *out, int keepdims,
                                       int indexed, hkk_reduce_layout *L, int64_t *in_off, int64_t *out_off)
{
    reduce_dim kept[HK_MAX_DIMS], red[HK_MAX_DIMS];
    int nk = 0, nr = 0, ko = 0;
    int64_t count = 1;
    *in_off = *out_off = 0;
    for (int k = 0; k < in->ndim; k++) {
        const int64_t e = in->shape[k];
        if (axes >> k & 1u) {
            count *= e;
            if (e != 1)
                reduce_set_dim(&red[nr++], e, in->strides[k], 0);
            if (keepdims)
                ko++;
        } else {
            if (e != 1)
                reduce_set_dim(&kept[nk++], e, in->strides[k], out->strides[ko]);
            ko++;
        }
    }
    /* Kept dims: flip reversed input dims (the output walks along), sort, merge. */
    for (int k = 0; k < nk; k++) {
        if (kept[k].in < 0) {
            *in_off += (kept[k].extent - 1) * kept[k].in;
            *out_off += (kept[k].extent - 1) * kept[k].out;
            kept[k].in = -kept[k].in;
            kept[k].out = -kept[k].out;
        }
    }
    reduce_sort_dims(kept, nk);
    nk = reduce_merge_dims(kept, nk, 1);
    /* Reduced dims: the index-free ops may reorder and flip them; ARGMIN and
     * ARGMAX keep C order so the position is the index they report. */
    if (count == 0) {
        nr = 1;
        reduce_set_dim(&red[0], 0, 1, 0);
    } else if (nr == 0) {
        nr = 1;
        reduce_set_dim(&red[0], 1, 1, 0);
    } else {
        if (!indexed) {
            for (int k = 0; k < nr; k++) {
                if (red[k].in < 0) {
                    *in_off += (red[k].extent - 1) * red[k].in;
                    red[k].in = -red[k].in;
                }
            }
            reduce_sort_dims(red, nr);
        }
        nr = reduce_merge_dims(red, nr, 0);
    }
    if (nk > HKK_MAX_DIMS || nr > HKK_MAX_DIMS)
        return 0;
    memset(L, 0, sizeof *L);
    L->kept_ndim = nk;
    L->red_ndim = nr;
    L->outputs = 1;
    for (int k = 0; k < nk; k++) {
        L->kept_shape[k] = kept[k].extent;
        L->kept_in[k] = kept[k].in;
        L->kept_out[k] = kept[k].out;
        L->outputs *= kept[k].extent;
    }
    for (int k = 0; k < nr; k++) {
        L->red_shape[k] = red[k].extent;
        L->red_in[k] = red[k].in;
    }
    L->count = count;
    return 1;
}

#endif
