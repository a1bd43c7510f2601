/* elementwise.c: hk_elementwise, NumPy's elementwise functions over N-d
 * strided views: validation of the op, dtypes (from the op table), views,
 * broadcasting, host scalars and overlap; then the layout the kernels walk
 * (negative strides of out flipped, dimensions ordered by out's strides,
 * neighbours merged), and the dispatch to the current device's kind. Calls
 * whose operands are all C-contiguous and of out's shape take a short path
 * to the same kernels. */
#include <stdio.h>
#include <string.h>

#include "../../hip_kernels/elementwise/elementwise.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/handles.h"
#include "core/layout.h"
#include "kinds/kind.h"
#include "ops/elementwise.h"
#include "ops/op_table.h"
#include "ops/view_check.h"

/* ---- the layout the kernels walk */

/* A merged layout before it is split for the kernels (up to HK_MAX_DIMS dims); operand 0 is out. */
typedef struct ew_layout {
    int ndim;
    int64_t shape[HK_MAX_DIMS];
    int64_t strides[4][HK_MAX_DIMS];
} ew_layout;

/* Flip out's negative strides (moving every operand's base), order the
 * dimensions by out's stride, drop extent 1, merge neighbours. `base` holds
 * each operand's element offset, updated here. Operand 0 is out. */
static void elementwise_layout(int ndim, const int64_t *shape, int64_t (*strides)[HK_MAX_DIMS], int operands,
                               int64_t *base, ew_layout *w)
{
    int order[HK_MAX_DIMS], kept = 0;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] == 1)
            continue;
        if (strides[0][k] < 0) {
            for (int t = 0; t < operands; t++) {
                base[t] += strides[t][k] * (shape[k] - 1);
                strides[t][k] = -strides[t][k];
            }
        }
        /* insertion sort, largest out stride first (stable) */
        int at = kept++;
        while (at > 0 && strides[0][order[at - 1]] < strides[0][k]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = k;
    }
    int n = 0;
    for (int i = 0; i < kept; i++) {
        int k = order[i];
        bool merge = n > 0;
        for (int t = 0; t < operands && merge; t++)
            merge = strides[t][k] * shape[k] == w->strides[t][n - 1];
        if (merge) {
            w->shape[n - 1] *= shape[k];
            for (int t = 0; t < operands; t++)
                w->strides[t][n - 1] = strides[t][k];
            continue;
        }
        w->shape[n] = shape[k];
        for (int t = 0; t < operands; t++)
            w->strides[t][n] = strides[t][k];
        n++;
    }
    if (n == 0) { /* a single element */
        w->shape[0] = 1;
        for (int t = 0; t < operands; t++)
            w->strides[t][0] = t == 0 ? 1 : 0;
        n = 1;
    }
    w->ndim = n;
}

static hk_status launch(const char *fn, void *vendor_stream, const hkk_ew_call *call)
{
    HK_TRY(hk__require_device(fn));
    hk_status s = hk__kind_current()->elementwise(fn, vendor_stream, call);
    return s == HK_SUCCESS ? hk__ok() : s;
}

/* Launches `call` (op, dtypes, scalars, and out / in[] at the layout's origins set) over the layout
 * (items: each operand's element size, out first):
 * once when it fits a kernel layout, else once per coordinate of the dims above the inner HKK_MAX_DIMS
 * (the layout is ordered by out's stride, so the inner dims are the dense ones). */
static hk_status launch_layout(const char *fn, void *vendor_stream, hkk_ew_call *call, const ew_layout *w,
                               int operands, const size_t *items)
{
    const int inner = w->ndim < HKK_MAX_DIMS ? w->ndim : HKK_MAX_DIMS, outer = w->ndim - inner;
    call->ndim = inner;
    call->n = 1;
    for (int k = 0; k < inner; k++) {
        call->shape[k] = w->shape[outer + k];
        call->n *= (size_t)w->shape[outer + k];
        for (int t = 0; t < 4; t++)
            call->strides[t][k] = t < operands ? w->strides[t][outer + k] : 0;
    }
    if (outer == 0)
        return launch(fn, vendor_stream, call);
    char *out0 = call->out;
    const void *in0[3] = {call->in[0], call->in[1], call->in[2]};
    int64_t *lists[4] = {(int64_t *)w->strides[0], (int64_t *)w->strides[1], (int64_t *)w->strides[2],
                         (int64_t *)w->strides[3]};
    const int64_t launches = hk__outer_count(w->ndim, w->shape, inner);
    for (int64_t p = 0; p < launches; p++) {
        int64_t off[4];
        hk__outer_offsets(p, w->ndim, w->shape, lists, operands, inner, off);
        call->out = out0 + off[0] * (int64_t)items[0];
        for (int k = 0; k + 1 < operands; k++)
            if (in0[k])
                call->in[k] = (const char *)in0[k] + off[1 + k] * (int64_t)items[1 + k];
        HK_TRY(launch(fn, vendor_stream, call));
    }
    return hk__ok();
}

hk_status hk__elementwise_over(const char *fn, void *vendor_stream, const hk_array *out, hkk_ew_call *call)
{
    int64_t strides[4][HK_MAX_DIMS];
    memset(strides, 0, sizeof strides);
    if (out->ndim > 0)
        memcpy(strides[0], out->strides, (size_t)out->ndim * sizeof(int64_t));
    int64_t base[4] = {0, 0, 0, 0};
    ew_layout w;
    elementwise_layout(out->ndim, out->shape, strides, 1, base, &w);
    const size_t items[1] = {hk__dtype_bytes(out->dtype)};
    call->out = (char *)out->data + base[0] * (int64_t)items[0];
    return launch_layout(fn, vendor_stream, call, &w, 1, items);
}

/* The dtypes: T from in[1] for a bool-condition op (where), in[0] otherwise; every other input T, the
 * condition bool; T in the op's mask; out T, or bool or T's real dtype where the rule says. Records the error. */
static hk_status check_dtypes(const char *fn, const hk_op_info *row, const hk_array *inputs, const hk_array *out,
                              hk_dtype *t_out)
{
    const int t_index = row->rule == HK_RULE_WHERE ? 1 : 0;
    const hk_dtype t = inputs[t_index].dtype;
    if (t_index == 1 && inputs[0].dtype != HK_BOOL)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s's condition inputs[0] is %s; it must be bool", row->name,
                        hk_dtype_name(inputs[0].dtype));
    for (int k = t_index + 1; k < row->arity; k++)
        if (inputs[k].dtype != t)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "inputs[%d] is %s but inputs[%d] is %s; %s needs inputs of one dtype (cast with "
                            "hk_copy_array first)",
                            k, hk_dtype_name(inputs[k].dtype), t_index, hk_dtype_name(t), row->name);
    if (!(row->dtypes & HK_DTYPE_BIT(t))) {
        char list[128];
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s is not supported for %s (it supports %s)", row->name,
                        hk_dtype_name(t), hk__dtype_list(row->dtypes, list, sizeof list));
    }
    const hk_dtype out_dtype = hk__op_out_dtype(row, t);
    if (out->dtype != out_dtype)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out is %s, but %s of %s gives %s", hk_dtype_name(out->dtype),
                        row->name, hk_dtype_name(t), hk_dtype_name(out_dtype));
    *t_out = t;
    return HK_SUCCESS;
}

/* A host scalar's bytes into call->scalar[k] (bool: 0 or 1). */
static void take_scalar(hkk_ew_call *call, int k, const hk_array *in)
{
    call->scalar_mask |= 1u << k;
    memset(&call->scalar[k], 0, sizeof call->scalar[k]);
    memcpy(call->scalar[k].bits, in->data, hk__dtype_bytes(in->dtype));
    if (in->dtype == HK_BOOL) /* any non-zero byte is true; true is stored as 1 */
        call->scalar[k].bits[0] = call->scalar[k].bits[0] != 0;
}

/* The short path: every device operand C-contiguous with out's shape and a known dtype, aligned, inside the
 * address space; host scalars present; inputs equal to out or apart from it; at least one element. Fills
 * `call` as one flat dimension (host scalars only marked in scalar_mask: their values are read after the
 * dtype check) and returns true; false sends the call to the general path, which checks
 * everything again and words any error. */
static bool contiguous_call(const hk_array *inputs, int arity, const hk_array *out, hkk_ew_call *call)
{
    const int ndim = out->ndim;
    const size_t item = hk__dtype_bytes(out->dtype);
    size_t n = 1;
    if (ndim < 0 || ndim > HK_MAX_DIMS || item == 0 || !out->data)
        return false;
    for (int k = ndim - 1; k >= 0; k--) {
        const int64_t e = out->shape[k];
        if (e <= 0 || (e > 1 && out->strides[k] != (int64_t)n) || hk__mul_overflows(n, (size_t)e, &n))
            return false;
    }
    const uintptr_t begin = (uintptr_t)out->data;
    size_t bytes;
    if (n > ((size_t)1 << 62) || hk__mul_overflows(n, item, &bytes) || begin % item || begin > UINTPTR_MAX - bytes)
        return false;
    /* Only what the contiguous kernel reads (the call is one flat dimension); the rest stays unset. */
    call->scalar_mask = 0;
    for (int k = 0; k < 3; k++) {
        call->in[k] = NULL;
        memset(&call->scalar[k], 0, sizeof call->scalar[k]);
    }
    for (int k = 0; k < arity; k++) {
        const hk_array *in = &inputs[k];
        const size_t in_item = hk__dtype_bytes(in->dtype);
        if (in_item == 0 || !in->data)
            return false;
        if (in->ndim == HK_HOST_SCALAR) {
            call->scalar_mask |= 1u << k; /* its value is read once its dtype has been checked */
            continue;
        }
        if (in->ndim != ndim)
            return false;
        for (int d = 0; d < ndim; d++)
            if (in->shape[d] != out->shape[d] || (in->shape[d] > 1 && in->strides[d] != out->strides[d]))
                return false;
        const uintptr_t first = (uintptr_t)in->data;
        const size_t in_bytes = n * in_item; /* <= bytes * 8: no overflow past the check above for 8-byte out */
        if (in_bytes / in_item != n || first % in_item || first > UINTPTR_MAX - in_bytes)
            return false;
        const bool apart = first + in_bytes <= begin || begin + bytes <= first;
        if (!apart && !(in->data == out->data && in->dtype == out->dtype))
            return false;
        call->in[k] = in->data;
        call->strides[1 + k][0] = 1;
    }
    for (int k = arity; k < 3; k++)
        call->strides[1 + k][0] = 0;
    call->n = n;
    call->out = out->data;
    call->ndim = 1;
    call->shape[0] = (int64_t)n;
    call->strides[0][0] = 1;
    return true;
}

hk_status hk_elementwise(hk_op op, const hk_array *inputs, int n_inputs, const hk_array *out, hk_stream stream)
{
    static const char fn[] = "hk_elementwise";
    const hk_op_info *row = hk__op_row(op);
    if (!row)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "op %d is not a hk_op (0..%d)", (int)op, HK_OP_COUNT - 1);
    const char *name = row->name;
    const int arity = row->arity;
    if (n_inputs != arity)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s takes %d input%s, but n_inputs is %d", name, arity,
                        arity == 1 ? "" : "s", n_inputs);
    if (!inputs)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "inputs must not be NULL (%s takes %d)", name, arity);
    if (!out)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out must not be NULL");

    hkk_ew_call call;
    hk_dtype t;
    void *vendor_stream = NULL;
    if (contiguous_call(inputs, arity, out, &call)) {
        HK_TRY(check_dtypes(fn, row, inputs, out, &t));
        for (int k = 0; k < arity; k++)
            if (call.scalar_mask & (1u << k))
                take_scalar(&call, k, &inputs[k]);
        if (stream)
            HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
        call.op = op;
        call.dtype = t;
        call.n_inputs = arity;
        return launch(fn, vendor_stream, &call);
    }

    if (out->ndim == HK_HOST_SCALAR)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                        "out.ndim is HK_HOST_SCALAR; out must be a device view (a 0-d array for one element)");
    size_t n_out, n_in;
    uintptr_t out_first, out_last, first[3] = {0}, last[3] = {0};
    HK_TRY(hk__check_view(fn, "out", out, HK__VIEW_HOST_SCALAR_HINT, &n_out, &out_first, &out_last));
    char in_names[3][24];
    for (int k = 0; k < arity; k++) {
        const hk_array *in = &inputs[k];
        snprintf(in_names[k], sizeof in_names[k], "inputs[%d]", k);
        if (in->ndim == HK_HOST_SCALAR) {
            size_t item;
            if (hk_dtype_size(in->dtype, &item) != HK_SUCCESS)
                return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s.dtype %d is not a hk_dtype", in_names[k],
                                (int)in->dtype);
            if (!in->data)
                return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                                "%s is a host scalar (ndim HK_HOST_SCALAR) but its data is NULL", in_names[k]);
            continue;
        }
        HK_TRY(hk__check_view(fn, in_names[k], in, HK__VIEW_HOST_SCALAR_HINT, &n_in, &first[k], &last[k]));
    }
    HK_TRY(check_dtypes(fn, row, inputs, out, &t));

    for (int k = 0; k < out->ndim && n_out > 0; k++)
        if (out->strides[k] == 0 && out->shape[k] > 1)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "out.strides[%d] is 0 over an extent of %lld: several results would land on one element", k,
                            (long long)out->shape[k]);
    if (n_out > ((size_t)1 << 62))
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out has %zu elements; at most 2^62 are supported", n_out);

    /* strides[0]: out; strides[1 + k]: input k broadcast to out's shape (host scalars: 0) */
    int64_t strides[4][HK_MAX_DIMS];
    memset(strides, 0, sizeof strides);
    if (out->ndim > 0)
        memcpy(strides[0], out->strides, (size_t)out->ndim * sizeof(int64_t));
    for (int k = 0; k < arity; k++)
        if (inputs[k].ndim != HK_HOST_SCALAR)
            HK_TRY(hk__broadcast(fn, in_names[k], &inputs[k], "out", out, "; inputs broadcast to out's shape",
                                 strides[1 + k]));

    if (stream)
        HK_TRY(hk__resolve_stream(fn, stream, &vendor_stream));
    if (n_out == 0)
        return hk__ok();

    /* out may be exactly an input (same data, dtype and walk); any other overlap is refused */
    for (int k = 0; k < arity; k++) {
        const hk_array *in = &inputs[k];
        if (in->ndim == HK_HOST_SCALAR || !(first[k] < out_last && out_first < last[k]))
            continue;
        bool same = in->data == out->data && in->dtype == out->dtype;
        for (int d = 0; d < out->ndim && same; d++)
            same = out->shape[d] == 1 || strides[1 + k][d] == out->strides[d];
        if (!same)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "%s overlaps out without being the same view (same data, dtype and strides); use a "
                            "separate output",
                            in_names[k]);
    }

    memset(&call, 0, sizeof call);
    call.op = op;
    call.dtype = t;
    call.n_inputs = arity;
    call.n = n_out;
    for (int k = 0; k < arity; k++)
        if (inputs[k].ndim == HK_HOST_SCALAR)
            take_scalar(&call, k, &inputs[k]);

    int64_t base[4] = {0, 0, 0, 0};
    ew_layout w;
    elementwise_layout(out->ndim, out->shape, strides, 1 + arity, base, &w);
    size_t items[4] = {hk__dtype_bytes(out->dtype), 0, 0, 0};
    call.out = (char *)out->data + base[0] * (int64_t)items[0];
    for (int k = 0; k < arity; k++) {
        if (call.scalar_mask & (1u << k))
            continue;
        items[1 + k] = hk__dtype_bytes(inputs[k].dtype);
        call.in[k] = (const char *)inputs[k].data + base[1 + k] * (int64_t)items[1 + k];
    }
    return launch_layout(fn, vendor_stream, &call, &w, 1 + arity, items);
}
