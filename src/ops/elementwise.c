/* elementwise.c: hk_elementwise, NumPy's elementwise functions over N-d
 * strided views: validation of the op, dtypes, views, broadcasting, host
 * scalars and overlap; then the layout the kernels walk (negative strides of
 * out flipped, dimensions ordered by out's strides, neighbours merged), and
 * the dispatch to the current device's backend. */
#include <stdio.h>
#include <string.h>

#include "../../hip_kernels/kernels_elementwise.h"
#include "core/device.h"
#include "core/handles.h"
#include "ops/backend.h"
#include "ops/view_check.h"

static const char *const op_names[HK_OP_COUNT] = {
    "add",         "subtract",   "multiply",    "divide",      "floor_divide",
    "remainder",   "power",      "minimum",     "maximum",     "equal",
    "not_equal",   "less",       "less_equal",  "greater",     "greater_equal",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor", "negative",   "absolute",    "logical_not", "bitwise_invert",
    "exp",         "log",        "log2",        "log1p",       "expm1",
    "sqrt",        "sin",        "cos",         "tan",         "tanh",
    "erf",         "floor",      "ceil",        "rint",        "isnan",
    "isinf",       "isfinite",   "where",       "clip",
};

#define DT(d) (1u << (d))
#define DT_ALL 0x3FFu
#define DT_FLOATS (DT(HK_FLOAT16) | DT(HK_FLOAT32) | DT(HK_FLOAT64))
#define DT_NUMERIC (DT_ALL & ~DT(HK_BOOL))
#define DT_INTEGERS (DT_ALL & ~DT_FLOATS) /* bool and the integers */

/* Dtypes T each op accepts (see hipkit.h). */
static unsigned op_dtypes(hk_op op)
{
    switch (op) {
    case HK_OP_SUBTRACT:
    case HK_OP_NEGATIVE:
    case HK_OP_FLOOR_DIVIDE:
    case HK_OP_REMAINDER:
    case HK_OP_POWER: return DT_NUMERIC;
    case HK_OP_DIVIDE:
    case HK_OP_EXP:
    case HK_OP_LOG:
    case HK_OP_LOG2:
    case HK_OP_LOG1P:
    case HK_OP_EXPM1:
    case HK_OP_SQRT:
    case HK_OP_SIN:
    case HK_OP_COS:
    case HK_OP_TAN:
    case HK_OP_TANH:
    case HK_OP_ERF: return DT_FLOATS;
    case HK_OP_BITWISE_AND:
    case HK_OP_BITWISE_OR:
    case HK_OP_BITWISE_XOR:
    case HK_OP_BITWISE_INVERT: return DT_INTEGERS;
    default: return DT_ALL;
    }
}

static bool op_gives_bool(hk_op op)
{
    return (op >= HK_OP_EQUAL && op <= HK_OP_LOGICAL_XOR) || op == HK_OP_LOGICAL_NOT || op == HK_OP_ISNAN ||
           op == HK_OP_ISINF || op == HK_OP_ISFINITE;
}

static int op_inputs(hk_op op)
{
    if (op <= HK_OP_BITWISE_XOR)
        return 2;
    return op >= HK_OP_WHERE ? 3 : 1;
}

const char *hk_op_name(hk_op op)
{
    return (unsigned)op < HK_OP_COUNT ? op_names[op] : "invalid";
}

hk_status hk_op_arity(hk_op op, int *inputs)
{
    static const char fn[] = "hk_op_arity";
    if (!inputs)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "inputs must not be NULL");
    if ((unsigned)op >= HK_OP_COUNT)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "op %d is not a hk_op (0..%d)", (int)op, HK_OP_COUNT - 1);
    *inputs = op_inputs(op);
    return hk__ok();
}

/* "float16, float32, float64" for a dtype mask. */
static const char *dtype_list(unsigned mask, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d <= HK_FLOAT64; d++) {
        if (!(mask & DT(d)))
            continue;
        int w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", hk_dtype_name((hk_dtype)d));
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
    return buf;
}

/* ---- the layout the kernels walk */

/* Flip out's negative strides (moving every operand's base), order the
 * dimensions by out's stride, drop extent 1, merge neighbours. `base` holds
 * each operand's element offset, updated here. Operand 0 is out. */
static void elementwise_layout(int ndim, const int64_t *shape, int64_t (*strides)[HK_MAX_DIMS], int operands,
                               int64_t *base, hkk_ew_call *call)
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
            merge = strides[t][k] * shape[k] == call->strides[t][n - 1];
        if (merge) {
            call->shape[n - 1] *= shape[k];
            for (int t = 0; t < operands; t++)
                call->strides[t][n - 1] = strides[t][k];
            continue;
        }
        call->shape[n] = shape[k];
        for (int t = 0; t < operands; t++)
            call->strides[t][n] = strides[t][k];
        n++;
    }
    if (n == 0) { /* a single element */
        call->shape[0] = 1;
        for (int t = 0; t < operands; t++)
            call->strides[t][0] = t == 0 ? 1 : 0;
        n = 1;
    }
    call->ndim = n;
}

hk_status hk_elementwise(hk_op op, const hk_array *inputs, int n_inputs, const hk_array *out, hk_stream stream)
{
    static const char fn[] = "hk_elementwise";
    if ((unsigned)op >= HK_OP_COUNT)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "op %d is not a hk_op (0..%d)", (int)op, HK_OP_COUNT - 1);
    const char *name = op_names[op];
    const int arity = op_inputs(op);
    if (n_inputs != arity)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "%s takes %d input%s, but n_inputs is %d", name, arity,
                        arity == 1 ? "" : "s", n_inputs);
    if (!inputs)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "inputs must not be NULL (%s takes %d)", name, arity);
    if (!out)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out must not be NULL");
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

    /* dtypes: T from in[1] for where, in[0] otherwise; all inputs T (where: condition bool) */
    const int t_index = op == HK_OP_WHERE ? 1 : 0;
    const hk_dtype t = inputs[t_index].dtype;
    if (op == HK_OP_WHERE && inputs[0].dtype != HK_BOOL)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "where's condition inputs[0] is %s; it must be bool",
                        hk_dtype_name(inputs[0].dtype));
    for (int k = t_index + 1; k < arity; k++)
        if (inputs[k].dtype != t)
            return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn,
                            "inputs[%d] is %s but inputs[%d] is %s; %s needs inputs of one dtype (cast with "
                            "hk_copy_array first)",
                            k, hk_dtype_name(inputs[k].dtype), t_index, hk_dtype_name(t), name);
    const unsigned supported = op_dtypes(op);
    if (!(supported & DT(t))) {
        char list[128];
        return hk__fail(HK_ERROR_NOT_SUPPORTED, fn, "%s is not supported for %s (it supports %s)", name,
                        hk_dtype_name(t), dtype_list(supported, list, sizeof list));
    }
    const hk_dtype out_dtype = op_gives_bool(op) ? HK_BOOL : t;
    if (out->dtype != out_dtype)
        return hk__fail(HK_ERROR_INVALID_ARGUMENT, fn, "out is %s, but %s of %s gives %s", hk_dtype_name(out->dtype),
                        name, hk_dtype_name(t), hk_dtype_name(out_dtype));

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

    void *vendor_stream = NULL;
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
    HK_TRY(hk__require_gpu(fn));

    hkk_ew_call call;
    memset(&call, 0, sizeof call);
    call.op = op;
    call.dtype = t;
    call.n_inputs = arity;
    call.n = n_out;
    for (int k = 0; k < arity; k++) {
        if (inputs[k].ndim == HK_HOST_SCALAR) {
            size_t item;
            (void)hk_dtype_size(inputs[k].dtype, &item);
            call.scalar_mask |= 1u << k;
            memcpy(&call.scalar[k], inputs[k].data, item);
            if (inputs[k].dtype == HK_BOOL) /* any non-zero byte is true; true is stored as 1 */
                call.scalar[k] = call.scalar[k] != 0;
        }
    }
    /* Ops that are the identity for T run as a copy; isnan and friends of
     * integers as a fill from a host scalar. */
    const bool is_float = (DT(t) & DT_FLOATS) != 0;
    const bool is_unsigned = t == HK_BOOL || t == HK_UINT8 || t == HK_UINT32 || t == HK_UINT64;
    if (!is_float &&
        (op == HK_OP_FLOOR || op == HK_OP_CEIL || op == HK_OP_RINT || (op == HK_OP_ABSOLUTE && is_unsigned)))
        call.op = HKK_EW_COPY;
    if (!is_float && (op == HK_OP_ISNAN || op == HK_OP_ISINF || op == HK_OP_ISFINITE)) {
        call.op = HKK_EW_COPY;
        call.dtype = HK_BOOL;
        call.scalar_mask = 1u;
        call.scalar[0] = op == HK_OP_ISFINITE ? 1u : 0u;
        memset(strides[1], 0, sizeof strides[1]);
    }

    int64_t base[4] = {0, 0, 0, 0};
    elementwise_layout(out->ndim, out->shape, strides, 1 + arity, base, &call);
    size_t item;
    (void)hk_dtype_size(out->dtype, &item);
    call.out = (char *)out->data + base[0] * (int64_t)item;
    for (int k = 0; k < arity; k++) {
        if (call.scalar_mask & (1u << k))
            continue;
        (void)hk_dtype_size(inputs[k].dtype, &item);
        call.in[k] = (const char *)inputs[k].data + base[1 + k] * (int64_t)item;
    }
    hk_status s = hk__backend_current()->elementwise(fn, vendor_stream, &call);
    return s == HK_SUCCESS ? hk__ok() : s;
}
